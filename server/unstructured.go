package server

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/jsonpath"
	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/table"
)

// Unstructured is an object of a type defined at run time, such as a
// custom resource: Kubernetes' unstructured.Unstructured, with the
// metadata typed so that the store's rules apply to it unchanged.
//
// # JSON
//
// Kubernetes writes an unstructured object by handing its
// map[string]interface{} to encoding/json (k8s.io/apimachinery
// pkg/apis/meta/v1/unstructured, UnstructuredJSONScheme), so every
// object's members, at every depth, come in sorted order: apiVersion,
// kind and metadata sit where the alphabet puts them (a top-level "data"
// comes between apiVersion and kind), and metadata's own members are
// sorted too, unlike those of a typed object. HTML characters are escaped
// as encoding/json escapes them. MarshalJSON writes exactly that.
//
// Numbers keep their kind: an integer that fits an int64 is decoded as
// int64 and written back digit for digit; any other number is a float64
// (sigs.k8s.io/json's preserve-ints decoding, as Kubernetes').
type Unstructured struct {
	// TypeMeta is empty for stored objects; the server writes the
	// resource's kind and apiVersion.
	meta.TypeMeta
	meta.ObjectMeta
	// Content holds every top-level member other than apiVersion, kind
	// and metadata, as JSON values: map[string]any, []any, string,
	// int64, float64, bool and nil; package jsonvalue's Nested
	// functions read and write it. DeepCopyObject copies its objects and
	// arrays (jsonvalue.DeepCopy) and shares a value of any other type.
	Content map[string]any
}

var (
	_ Object                        = (*Unstructured)(nil)
	_ json.Marshaler                = (*Unstructured)(nil)
	_ json.Unmarshaler              = (*Unstructured)(nil)
	_ negotiation.StrictUnmarshaler = (*Unstructured)(nil)
)

// Types returns the object's kind and apiVersion.
func (u *Unstructured) Types() *meta.TypeMeta { return &u.TypeMeta }

// DeepCopyObject returns a copy of u sharing no maps, slices or pointers.
func (u *Unstructured) DeepCopyObject() Object { return u.DeepCopy() }

// DeepCopy returns a copy of u sharing no maps, slices or pointers.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	out := &Unstructured{TypeMeta: u.TypeMeta}
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Content = jsonvalue.DeepCopyMap(u.Content)
	return out
}

// MarshalJSON writes u as Kubernetes writes an unstructured object: all
// members sorted, kind and apiVersion only when set.
func (u *Unstructured) MarshalJSON() ([]byte, error) {
	return u.appendJSON(nil, u.TypeMeta)
}

// appendJSON appends u's JSON with kind and apiVersion tm (the codec's
// for stored objects, whose TypeMeta is empty): its members sorted,
// metadata as appendSortedMetaJSON writes it and the rest as
// jsonvalue.AppendJSON does, without reflection.
func (u *Unstructured) appendJSON(dst []byte, tm meta.TypeMeta) ([]byte, error) {
	var arr [16]string
	keys := arr[:0]
	for k := range u.Content {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			keys = append(keys, k)
		}
	}
	if tm.APIVersion != "" {
		keys = append(keys, "apiVersion")
	}
	if tm.Kind != "" {
		keys = append(keys, "kind")
	}
	keys = append(keys, "metadata")
	slices.Sort(keys)
	start := len(dst)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsonvalue.AppendString(dst, k), ':')
		var err error
		switch k {
		case "apiVersion":
			dst = jsonvalue.AppendString(dst, tm.APIVersion)
		case "kind":
			dst = jsonvalue.AppendString(dst, tm.Kind)
		case "metadata":
			dst, err = appendSortedMetaJSON(dst, &u.ObjectMeta)
		default:
			dst, err = jsonvalue.AppendJSON(dst, u.Content[k])
		}
		if err != nil {
			return dst[:start], err
		}
	}
	return append(dst, '}'), nil
}

// appendSortedMetaJSON appends m as an unstructured object writes its
// metadata, json.Marshal(jsonvalue.MapOf(m)): as encoding/json writes a
// meta.ObjectMeta but with the members of every object sorted, and a
// managedFields entry's fieldsV1 as its decoded value is written. It does
// so without reflection and without decoding m's JSON again; only a
// fieldsV1 that is not already written so (sortedFields) is decoded.
func appendSortedMetaJSON(dst []byte, m *meta.ObjectMeta) ([]byte, error) {
	if !validKeys(m.Labels) || !validKeys(m.Annotations) {
		// Their replacement characters may reorder or merge them.
		mm, err := jsonvalue.MapOf(m)
		if err != nil {
			return dst, err
		}
		return jsonvalue.AppendJSON(dst, mm)
	}
	start := len(dst)
	dst = append(dst, '{')
	if len(m.Annotations) > 0 {
		dst = appendMetaStringMap(appendKey(dst, start, "annotations"), m.Annotations)
	}
	if !m.CreationTimestamp.IsZero() { // omitzero
		dst = appendTimeJSON(appendKey(dst, start, "creationTimestamp"), m.CreationTimestamp)
	}
	if m.DeletionGracePeriodSeconds != nil {
		dst = strconv.AppendInt(appendKey(dst, start, "deletionGracePeriodSeconds"), *m.DeletionGracePeriodSeconds, 10)
	}
	if m.DeletionTimestamp != nil {
		dst = appendTimeJSON(appendKey(dst, start, "deletionTimestamp"), *m.DeletionTimestamp)
	}
	if len(m.Finalizers) > 0 {
		dst = append(appendKey(dst, start, "finalizers"), '[')
		for i, f := range m.Finalizers {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendMetaString(dst, f)
		}
		dst = append(dst, ']')
	}
	if m.GenerateName != "" {
		dst = appendMetaString(appendKey(dst, start, "generateName"), m.GenerateName)
	}
	if m.Generation != 0 {
		dst = strconv.AppendInt(appendKey(dst, start, "generation"), m.Generation, 10)
	}
	if len(m.Labels) > 0 {
		dst = appendMetaStringMap(appendKey(dst, start, "labels"), m.Labels)
	}
	if len(m.ManagedFields) > 0 {
		dst = append(appendKey(dst, start, "managedFields"), '[')
		for i := range m.ManagedFields {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendSortedManagedFields(dst, &m.ManagedFields[i]); err != nil {
				return dst[:start], err
			}
		}
		dst = append(dst, ']')
	}
	if m.Name != "" {
		dst = appendMetaString(appendKey(dst, start, "name"), m.Name)
	}
	if m.Namespace != "" {
		dst = appendMetaString(appendKey(dst, start, "namespace"), m.Namespace)
	}
	if len(m.OwnerReferences) > 0 {
		dst = append(appendKey(dst, start, "ownerReferences"), '[')
		for i := range m.OwnerReferences {
			r := &m.OwnerReferences[i]
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendMetaString(append(dst, `{"apiVersion":`...), r.APIVersion)
			if r.BlockOwnerDeletion != nil {
				dst = strconv.AppendBool(append(dst, `,"blockOwnerDeletion":`...), *r.BlockOwnerDeletion)
			}
			if r.Controller != nil {
				dst = strconv.AppendBool(append(dst, `,"controller":`...), *r.Controller)
			}
			dst = appendMetaString(append(dst, `,"kind":`...), r.Kind)
			dst = appendMetaString(append(dst, `,"name":`...), r.Name)
			dst = appendMetaString(append(dst, `,"uid":`...), r.UID)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if m.ResourceVersion != "" {
		dst = appendMetaString(appendKey(dst, start, "resourceVersion"), m.ResourceVersion)
	}
	if m.SelfLink != "" {
		dst = appendMetaString(appendKey(dst, start, "selfLink"), m.SelfLink)
	}
	if m.UID != "" {
		dst = appendMetaString(appendKey(dst, start, "uid"), m.UID)
	}
	return append(dst, '}'), nil
}

// appendMetaString appends s as MapOf's decoded string is written: each
// byte of invalid UTF-8, which encoding/json writes as \ufffd and decodes
// as U+FFFD, is written as U+FFFD itself.
func appendMetaString(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return jsonvalue.AppendString(dst, s)
	}
	v := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			v = utf8.AppendRune(v, utf8.RuneError)
		} else {
			v = append(v, s[i:i+size]...)
		}
		i += size
	}
	return jsonvalue.AppendString(dst, string(v))
}

// appendMetaStringMap is appendStringMap with appendMetaString's values;
// m's keys are valid UTF-8 (validKeys).
func appendMetaStringMap(dst []byte, m map[string]string) []byte {
	return appendStringMapOf(dst, m, appendMetaString)
}

// validKeys reports whether m's keys are valid UTF-8.
func validKeys(m map[string]string) bool {
	for k := range m {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}

// appendSortedManagedFields appends e with its members sorted.
func appendSortedManagedFields(dst []byte, e *meta.ManagedFieldsEntry) ([]byte, error) {
	start := len(dst)
	dst = append(dst, '{')
	if e.APIVersion != "" {
		dst = appendMetaString(appendKey(dst, start, "apiVersion"), e.APIVersion)
	}
	if e.FieldsType != "" {
		dst = appendMetaString(appendKey(dst, start, "fieldsType"), e.FieldsType)
	}
	if e.FieldsV1 != nil {
		dst = appendKey(dst, start, "fieldsV1")
		switch raw := e.FieldsV1.Raw; {
		case len(raw) == 0:
			dst = append(dst, "null"...)
		case sortedFields(raw):
			dst = append(dst, raw...)
		default:
			// As encoding/json checks a Marshaler's output, then as
			// MapOf decodes it.
			if !json.Valid(raw) {
				_, err := json.Marshal(e.FieldsV1)
				return dst, err
			}
			var v any
			err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &v)
			if err == nil {
				dst, err = jsonvalue.AppendJSON(dst, v)
			}
			if err != nil {
				return dst, err
			}
		}
	}
	if e.Manager != "" {
		dst = appendMetaString(appendKey(dst, start, "manager"), e.Manager)
	}
	if e.Operation != "" {
		dst = appendMetaString(appendKey(dst, start, "operation"), e.Operation)
	}
	if e.Subresource != "" {
		dst = appendMetaString(appendKey(dst, start, "subresource"), e.Subresource)
	}
	if e.Time != nil {
		dst = appendTimeJSON(appendKey(dst, start, "time"), *e.Time)
	}
	return append(dst, '}'), nil
}

// sortedFields reports whether raw is written as decoding and writing it
// again would write it: objects only, compact, each object's member names
// in strictly increasing order and made of printable ASCII that needs no
// escape but \" and \\, as a fieldsV1 ({"f:spec":{".":{},"f:x":{}}},
// k:{\"type\":\"Ready\"} for a keyed list's item) is. Names are compared
// decoded, as their decoded map is sorted; other escapes are left to the
// decoder.
func sortedFields(raw []byte) bool {
	i, ok := sortedObject(raw, 0, 0)
	return ok && i == len(raw)
}

// unescapeName appends name, a member name whose only escapes are \" and
// \\ (sortedObject checked), decoded.
func unescapeName(dst, name []byte) []byte {
	for i := 0; i < len(name); i++ {
		if name[i] == '\\' {
			i++
		}
		dst = append(dst, name[i])
	}
	return dst
}

// sortedObject checks the object at raw[i] (see sortedFields) and returns
// the index past it.
func sortedObject(raw []byte, i, depth int) (int, bool) {
	if depth > 100 || i >= len(raw) || raw[i] != '{' {
		return i, false
	}
	i++
	// prev is the last name, decoded; names with escapes are decoded
	// into the two buffers in turn.
	var prev []byte
	var bufs [2][]byte
	for n := 0; ; n++ {
		if i < len(raw) && raw[i] == '}' && n == 0 {
			return i + 1, true
		}
		if n > 0 {
			if i >= len(raw) {
				return i, false
			}
			if raw[i] == '}' {
				return i + 1, true
			}
			if raw[i] != ',' {
				return i, false
			}
			i++
		}
		if i >= len(raw) || raw[i] != '"' {
			return i, false
		}
		i++
		nameStart, escaped := i, false
		for i < len(raw) && raw[i] != '"' {
			c := raw[i]
			if c == '\\' {
				if i+1 < len(raw) && (raw[i+1] == '"' || raw[i+1] == '\\') {
					escaped = true
					i += 2
					continue
				}
				return i, false
			}
			if c < 0x20 || c > 0x7e || c == '<' || c == '>' || c == '&' {
				return i, false
			}
			i++
		}
		if i >= len(raw) {
			return i, false
		}
		name := raw[nameStart:i]
		if escaped {
			bufs[n%2] = unescapeName(bufs[n%2][:0], name)
			name = bufs[n%2]
		}
		if n > 0 && string(prev) >= string(name) {
			return i, false
		}
		prev = name
		i++
		if i >= len(raw) || raw[i] != ':' {
			return i, false
		}
		var ok bool
		if i, ok = sortedObject(raw, i+1, depth+1); !ok {
			return i, false
		}
	}
}

// UnmarshalJSON decodes an object: case-sensitive, integers as int64,
// unknown metadata fields dropped and of duplicate members the last
// kept (Kubernetes' non-strict decoding).
func (u *Unstructured) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &m); err != nil {
		return err
	}
	_, err := u.setContent(m, false)
	return err
}

// UnmarshalJSONStrict decodes as UnmarshalJSON does and also returns what
// strict decoding reports (see negotiation.StrictUnmarshaler): duplicate
// members at any depth, and members of metadata that ObjectMeta does not
// have. Outside metadata no member is unknown: the object has no schema,
// as a custom resource whose schema preserves unknown fields.
func (u *Unstructured) UnmarshalJSONStrict(data []byte) (strict []error, err error) {
	var m map[string]any
	if strict, err = kjson.UnmarshalStrict(data, &m); err != nil {
		return nil, err
	}
	more, err := u.setContent(m, true)
	if err != nil {
		return nil, err
	}
	return append(strict, more...), nil
}

// setContent makes u the object m, which it takes over. strict reports
// unknown metadata fields, with paths from the object's root.
func (u *Unstructured) setContent(m map[string]any, strict bool) ([]error, error) {
	*u = Unstructured{}
	for _, k := range []string{"apiVersion", "kind"} {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("json: cannot unmarshal %s into Go struct field .%s of type string", jsonKind(v), k)
		}
		if k == "kind" {
			u.Kind = s
		} else {
			u.APIVersion = s
		}
	}
	var strictErrs []error
	switch meta := m["metadata"].(type) {
	case nil:
	case map[string]any:
		b, err := jsonvalue.AppendJSON(nil, meta) // as json.Marshal, without reflection
		if err != nil {
			return nil, err
		}
		if strict {
			strictErrs, err = kjson.UnmarshalStrict(b, &u.ObjectMeta, kjson.DisallowUnknownFields)
			for _, e := range strictErrs {
				if fe, ok := e.(interface {
					FieldPath() string
					SetFieldPath(string)
				}); ok {
					fe.SetFieldPath("metadata." + fe.FieldPath())
				}
			}
		} else {
			err = kjson.UnmarshalCaseSensitivePreserveInts(b, &u.ObjectMeta)
		}
		if err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
	default:
		return nil, fmt.Errorf("json: cannot unmarshal %s into Go struct field .metadata of type ObjectMeta", jsonKind(meta))
	}
	delete(m, "apiVersion")
	delete(m, "kind")
	delete(m, "metadata")
	if len(m) > 0 {
		u.Content = m
	}
	return strictErrs, nil
}

// jsonKind names the JSON type of a decoded value, as encoding/json's
// errors do.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "number"
}

// A fieldPath is a parsed JSONPath of the simple kind selectable fields
// use: a sequence of member names and array indexes from the object's
// root, such as .spec.color, .status.conditions[0].type or
// .metadata.labels['app.kubernetes.io/name']. Printer columns take the
// whole language (see JSONPathColumn and package jsonpath).
type fieldPath struct {
	text  string
	steps []pathStep
}

// pathStep is a member name, or an array index when field is false.
type pathStep struct {
	name  string
	index int
	field bool
}

// parseFieldPath parses a simple JSONPath: it starts with '.', and is
// made of .name, ['name'] (or ["name"]) and [n] steps; a negative n
// counts from the end of the array. Surrounding braces, as kubectl's
// -o jsonpath takes them, are allowed.
func parseFieldPath(path string) (fieldPath, error) {
	p := fieldPath{text: path}
	s := strings.TrimSpace(path)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	bad := func(why string) (fieldPath, error) {
		return fieldPath{}, fmt.Errorf("server: unsupported JSONPath %q: %s", path, why)
	}
	if !strings.HasPrefix(s, ".") {
		return bad("must start with '.'")
	}
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
			n := strings.IndexAny(s, ".[")
			if n < 0 {
				n = len(s)
			}
			name := s[:n]
			if name == "" {
				return bad("empty member name (recursive descent is not supported)")
			}
			if strings.ContainsAny(name, "*?@$(){}'\" \\]") {
				return bad("member " + strconv.Quote(name) + " (only member names and indexes are supported)")
			}
			p.steps = append(p.steps, pathStep{name: name, field: true})
			s = s[n:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return bad("unterminated '['")
			}
			in := s[1:end]
			if len(in) >= 2 && (in[0] == '\'' || in[0] == '"') && in[len(in)-1] == in[0] {
				p.steps = append(p.steps, pathStep{name: in[1 : len(in)-1], field: true})
			} else if i, err := strconv.Atoi(in); err == nil {
				p.steps = append(p.steps, pathStep{index: i})
			} else {
				return bad("[" + in + "] (only indexes and quoted names are supported)")
			}
			s = s[end+1:]
		default:
			return bad("unexpected " + strconv.QuoteRune(rune(s[0])))
		}
	}
	return p, nil
}

// String returns the path as it was parsed.
func (p fieldPath) String() string { return p.text }

// Get returns the value at p in obj (an *Unstructured, or any object, as
// its JSON); false when it is missing. A path into metadata reads the
// metadata as Kubernetes' unstructured form holds it (timestamps as
// RFC 3339 strings); apiVersion and kind are the object's TypeMeta, empty
// for stored objects.
func (p fieldPath) Get(obj Object) (any, bool) {
	if len(p.steps) == 0 {
		return nil, false
	}
	var root any
	first := p.steps[0]
	switch {
	case !first.field:
		return nil, false
	case first.name == "metadata":
		m, err := metadataMap(obj.Meta(), len(p.steps) < 2 || !p.steps[1].field || p.steps[1].name == "managedFields")
		if err != nil {
			return nil, false
		}
		root = map[string]any{"metadata": m}
	case first.name == "kind" || first.name == "apiVersion":
		tm := obj.Types()
		root = map[string]any{"kind": tm.Kind, "apiVersion": tm.APIVersion}
	default:
		u, ok := obj.(*Unstructured)
		if !ok {
			// A typed object: read it through its JSON.
			b, err := json.Marshal(obj)
			if err != nil || kjson.UnmarshalCaseSensitivePreserveInts(b, &root) != nil {
				return nil, false
			}
			break
		}
		root = u.Content
	}
	v := root
	for _, st := range p.steps {
		if st.field {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[st.name]; !ok {
				return nil, false
			}
			continue
		}
		a, ok := v.([]any)
		if !ok {
			return nil, false
		}
		i := st.index
		if i < 0 {
			i += len(a)
		}
		if i < 0 || i >= len(a) {
			return nil, false
		}
		v = a[i]
	}
	return v, true
}

// JSONPathColumn returns def with a Cell that evaluates path, as
// Kubernetes computes the cells of a custom resource's
// additionalPrinterColumns (k8s.io/apiextensions-apiserver
// pkg/registry/customresource/tableconvertor): path is kubectl's JSONPath
// (package jsonpath) evaluated as the template {path} with missing
// members allowed, on the object as Kubernetes holds it unstructured
// (apiVersion and kind only when set on the object), and the cell is made
// of the first value it finds:
//
//   - no value, or an evaluation error, is a null cell;
//   - type "string": a string as is, an object or array as compact JSON,
//     null as "<no value>", other values as Go's fmt prints them;
//   - "integer": an integer, or a float64 truncated; "number": a float64;
//     "boolean": a bool; anything else is null;
//   - "date": an RFC 3339 string as an age ("5m", as kubectl's AGE),
//     "" and "null" as "<unknown>", "<invalid>" when it does not parse;
//     anything else is null.
//
// An error means path does not parse; Kubernetes then leaves the column
// and those after it out of the Table.
func JSONPathColumn(def table.Column, path string) (table.Column, error) {
	t, err := jsonpath.Parse("{" + path + "}")
	if err != nil {
		return table.Column{}, fmt.Errorf("server: unrecognized column definition %q: %w", path, err)
	}
	typ := def.Type
	top, skipManaged := readsTopLevel(path), skipsManagedFields(path)
	def.Cell = func(o meta.Object, now time.Time) any {
		rs, err := t.FindResults(unstructuredRoot(o, top, skipManaged), jsonpath.Options{AllowMissingKeys: true})
		if err != nil || len(rs) == 0 || len(rs[0]) == 0 {
			return nil
		}
		return jsonCell(typ, rs[0][0], now)
	}
	return def, nil
}

// readsTopLevel reports whether a column's path may read the object's
// metadata, apiVersion or kind, which an Unstructured keeps apart from
// its Content: it does unless it starts with another plain member name.
func readsTopLevel(path string) bool {
	if len(path) < 2 || path[0] != '.' || strings.ContainsAny(path, "{}\\") {
		return true
	}
	name := path[1:]
	if i := strings.IndexAny(name, ".[ "); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "", "metadata", "kind", "apiVersion":
		return true
	}
	for _, r := range name {
		if r != '_' && r != '-' && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return true
		}
	}
	return false
}

// unstructuredRoot returns o as the JSON value a path is evaluated on:
// an Unstructured's Content alone when the path reads nothing else (see
// readsTopLevel), otherwise the whole object, its metadata without
// managedFields when skipManaged (skipsManagedFields); a typed object
// through its JSON.
func unstructuredRoot(o meta.Object, top, skipManaged bool) any {
	u, ok := o.(*Unstructured)
	if !ok {
		var root any
		b, err := json.Marshal(o)
		if err != nil || kjson.UnmarshalCaseSensitivePreserveInts(b, &root) != nil {
			return nil
		}
		return root
	}
	if !top {
		return u.Content
	}
	m := make(map[string]any, len(u.Content)+3)
	maps.Copy(m, u.Content)
	if u.APIVersion != "" {
		m["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		m["kind"] = u.Kind
	}
	if md, err := metadataMap(&u.ObjectMeta, !skipManaged); err == nil {
		m["metadata"] = md
	}
	return m
}

// metadataMap is jsonvalue.MapOf(m), without managedFields unless
// withManaged: by far the largest member of most objects' metadata, which
// a path into another member cannot read. Entries that do not encode,
// which fail MapOf, keep it.
func metadataMap(m *meta.ObjectMeta, withManaged bool) (map[string]any, error) {
	if !withManaged && len(m.ManagedFields) > 0 && managedFieldsEncode(m.ManagedFields) {
		c := *m
		c.ManagedFields = nil
		m = &c
	}
	return jsonvalue.MapOf(m)
}

// managedFieldsEncode reports whether encoding/json encodes es: whether
// each fieldsV1 is valid JSON, all that may fail.
func managedFieldsEncode(es []meta.ManagedFieldsEntry) bool {
	for _, e := range es {
		if e.FieldsV1 != nil && len(e.FieldsV1.Raw) > 0 && !json.Valid(e.FieldsV1.Raw) {
			return false
		}
	}
	return true
}

// skipsManagedFields reports whether a column's path, kubectl's
// JSONPath, reads metadata only through a member other than
// managedFields (.metadata.creationTimestamp, .metadata.labels.x): its
// second step is a plain name, and nothing in JSONPath climbs back.
func skipsManagedFields(path string) bool {
	rest, ok := strings.CutPrefix(path, ".metadata.")
	if !ok {
		return false
	}
	n := strings.IndexAny(rest, ".[")
	if n < 0 {
		n = len(rest)
	}
	name := rest[:n]
	if name == "" || name == "managedFields" {
		return false
	}
	for _, r := range name {
		if r != '_' && r != '-' && !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// jsonCell is the cell of a printer column of type typ for value v.
func jsonCell(typ string, v any, now time.Time) any {
	if _, ok := v.(jsonpath.Missing); ok {
		return nil // Kubernetes panics on a value that is not there
	}
	if typ == "string" {
		if v == nil {
			return "<no value>"
		}
		s, err := jsonpath.Format(v)
		if err != nil {
			return nil
		}
		return s
	}
	switch typ {
	case "integer":
		switch v := v.(type) {
		case int64:
			return v
		case float64:
			return int64(v)
		case json.Number:
			if i, err := v.Int64(); err == nil {
				return i
			}
		}
	case "number":
		switch v := v.(type) {
		case int64:
			return float64(v)
		case float64:
			return v
		case json.Number:
			if f, err := v.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		if s, ok := v.(string); ok {
			if s == "" || s == "null" {
				return "<unknown>"
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return "<invalid>"
			}
			return table.Age(t, now)
		}
	}
	return nil
}

// JSONPathField returns a field-selector function (for Resource.Fields)
// that reads path, as Kubernetes serves a custom resource's
// selectableFields: a string as is, an integer in decimal, a boolean as
// "true" or "false"; a missing value or one of another type is "".
func JSONPathField(path string) (func(Object) string, error) {
	p, err := parseFieldPath(path)
	if err != nil {
		return nil, err
	}
	return func(o Object) string {
		v, _ := p.Get(o)
		switch v := v.(type) {
		case string:
			return v
		case int64:
			return strconv.FormatInt(v, 10)
		case bool:
			return strconv.FormatBool(v)
		}
		return ""
	}, nil
}

// UnstructuredResource returns a copy of r that serves Unstructured
// objects, the way Kubernetes serves a custom resource:
//
//   - New returns an empty *Unstructured; bodies are JSON or YAML only
//     (DecodeProto is cleared: protobuf answers 406, protobuf bodies
//     415), and strategic merge patches answer 415 (PatchSchema is
//     cleared);
//   - list items carry kind and apiVersion (TypedListItems);
//   - r.Columns are the additionalPrinterColumns (see JSONPathColumn):
//     the Name column goes first, and without columns the Table is Name
//     and Age;
//   - the server keeps metadata.generation (Generation).
//
// Every member outside metadata is kept: with no schema, nothing is
// unknown (fieldValidation only reports duplicate members and unknown
// metadata fields).
func UnstructuredResource(r Resource) *Resource {
	r.New = func() Object { return &Unstructured{} }
	r.DecodeProto = nil
	r.PatchSchema = nil
	r.TypedListItems = true
	r.Generation = true
	r.RequireResourceVersion = true
	cols := r.Columns
	if len(cols) == 0 {
		cols = []table.Column{table.CustomResourceAgeColumn}
	}
	r.Columns = append([]table.Column{table.NameColumn}, cols...)
	return &r
}

// unstructuredListHead and unstructuredListTail surround the items of
// a list of unstructured objects: Kubernetes writes an UnstructuredList
// with its members sorted (apiVersion, items, kind, metadata). Its
// metadata always has continue, empty or not, as Kubernetes' storage sets
// it on every list; remainingItemCount only when known.
func unstructuredListHead(c *codec) []byte {
	b := append([]byte(`{"apiVersion":`), strconv.Quote(c.gv)...)
	return append(b, `,"items":[`...)
}

func unstructuredListTail(c *codec, lm *meta.ListMeta) []byte {
	b := append([]byte(`],"kind":`), strconv.Quote(c.res.ListKind)...)
	b = append(b, `,"metadata":{"continue":`...)
	b = jsonvalue.AppendString(b, lm.Continue)
	if lm.RemainingItemCount != nil {
		b = append(b, `,"remainingItemCount":`...)
		b = strconv.AppendInt(b, *lm.RemainingItemCount, 10)
	}
	b = append(b, `,"resourceVersion":`...)
	b = jsonvalue.AppendString(b, lm.ResourceVersion)
	return append(b, "}}"...)
}
