package server

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
)

// AppendMetaJSON appends m as encoding/json writes a meta.ObjectMeta,
// byte for byte, without reflection: for the AppendJSON method of a type
// that writes its own JSON (see JSONAppender).
func AppendMetaJSON(dst []byte, m *meta.ObjectMeta) ([]byte, error) {
	return appendMetaJSON(dst, m)
}

// appendMetaJSON appends m as encoding/json writes a meta.ObjectMeta
// (json.Marshal(m)), byte for byte, without reflection: every write
// encodes its stored version's metadata, which encoding/json did at a
// tenth of a create's CPU (BenchmarkMetaJSON). A managedFields entry whose
// fieldsV1 encoding/json would rewrite (compact, escape) or reject is
// left to encoding/json, with the rest of m.
func appendMetaJSON(dst []byte, m *meta.ObjectMeta) ([]byte, error) {
	for i := range m.ManagedFields {
		if f := m.ManagedFields[i].FieldsV1; f != nil && !plainJSON(f.Raw) {
			b, err := json.Marshal(m)
			return append(dst, b...), err
		}
	}
	start := len(dst)
	dst = append(dst, '{')
	if m.Name != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "name"), m.Name)
	}
	if m.GenerateName != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "generateName"), m.GenerateName)
	}
	if m.Namespace != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "namespace"), m.Namespace)
	}
	if m.SelfLink != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "selfLink"), m.SelfLink)
	}
	if m.UID != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "uid"), m.UID)
	}
	if m.ResourceVersion != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "resourceVersion"), m.ResourceVersion)
	}
	if m.Generation != 0 {
		dst = strconv.AppendInt(appendKey(dst, start, "generation"), m.Generation, 10)
	}
	if !m.CreationTimestamp.IsZero() { // omitzero
		dst = appendTimeJSON(appendKey(dst, start, "creationTimestamp"), m.CreationTimestamp)
	}
	if m.DeletionTimestamp != nil {
		dst = appendTimeJSON(appendKey(dst, start, "deletionTimestamp"), *m.DeletionTimestamp)
	}
	if m.DeletionGracePeriodSeconds != nil {
		dst = strconv.AppendInt(appendKey(dst, start, "deletionGracePeriodSeconds"), *m.DeletionGracePeriodSeconds, 10)
	}
	if len(m.Labels) > 0 {
		dst = appendStringMap(appendKey(dst, start, "labels"), m.Labels)
	}
	if len(m.Annotations) > 0 {
		dst = appendStringMap(appendKey(dst, start, "annotations"), m.Annotations)
	}
	if len(m.OwnerReferences) > 0 {
		dst = append(appendKey(dst, start, "ownerReferences"), '[')
		for i := range m.OwnerReferences {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendOwnerReference(dst, &m.OwnerReferences[i])
		}
		dst = append(dst, ']')
	}
	if len(m.Finalizers) > 0 {
		dst = append(appendKey(dst, start, "finalizers"), '[')
		for i, f := range m.Finalizers {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonvalue.AppendString(dst, f)
		}
		dst = append(dst, ']')
	}
	if len(m.ManagedFields) > 0 {
		dst = append(appendKey(dst, start, "managedFields"), '[')
		for i := range m.ManagedFields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendManagedFields(dst, &m.ManagedFields[i])
		}
		dst = append(dst, ']')
	}
	return append(dst, '}'), nil
}

// appendKey appends the member name k, after a comma unless it is the
// first member of the object that begins at dst[start].
func appendKey(dst []byte, start int, k string) []byte {
	if len(dst) > start+1 {
		dst = append(dst, ',')
	}
	dst = append(dst, '"')
	dst = append(dst, k...)
	return append(dst, '"', ':')
}

// appendTimeJSON appends meta.Time's MarshalJSON.
func appendTimeJSON(dst []byte, t meta.Time) []byte {
	if t.IsZero() {
		return append(dst, "null"...)
	}
	dst = append(dst, '"')
	dst = t.UTC().AppendFormat(dst, time.RFC3339)
	return append(dst, '"')
}

// appendStringMap appends m with its keys sorted, as encoding/json does.
func appendStringMap(dst []byte, m map[string]string) []byte {
	return appendStringMapOf(dst, m, jsonvalue.AppendString)
}

// appendStringMapOf is appendStringMap with each value appended by value.
func appendStringMapOf(dst []byte, m map[string]string, value func([]byte, string) []byte) []byte {
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(jsonvalue.AppendString(dst, k), ':')
		dst = value(dst, m[k])
	}
	return append(dst, '}')
}

func appendOwnerReference(dst []byte, r *meta.OwnerReference) []byte {
	dst = append(dst, `{"apiVersion":`...)
	dst = jsonvalue.AppendString(dst, r.APIVersion)
	dst = append(dst, `,"kind":`...)
	dst = jsonvalue.AppendString(dst, r.Kind)
	dst = append(dst, `,"name":`...)
	dst = jsonvalue.AppendString(dst, r.Name)
	dst = append(dst, `,"uid":`...)
	dst = jsonvalue.AppendString(dst, r.UID)
	if r.Controller != nil {
		dst = strconv.AppendBool(append(dst, `,"controller":`...), *r.Controller)
	}
	if r.BlockOwnerDeletion != nil {
		dst = strconv.AppendBool(append(dst, `,"blockOwnerDeletion":`...), *r.BlockOwnerDeletion)
	}
	return append(dst, '}')
}

func appendManagedFields(dst []byte, e *meta.ManagedFieldsEntry) []byte {
	start := len(dst)
	dst = append(dst, '{')
	if e.Manager != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "manager"), e.Manager)
	}
	if e.Operation != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "operation"), e.Operation)
	}
	if e.APIVersion != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "apiVersion"), e.APIVersion)
	}
	if e.Time != nil {
		dst = appendTimeJSON(appendKey(dst, start, "time"), *e.Time)
	}
	if e.FieldsType != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "fieldsType"), e.FieldsType)
	}
	if e.FieldsV1 != nil {
		dst = appendKey(dst, start, "fieldsV1")
		if len(e.FieldsV1.Raw) == 0 {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, e.FieldsV1.Raw...) // plainJSON: as encoding/json writes it
		}
	}
	if e.Subresource != "" {
		dst = jsonvalue.AppendString(appendKey(dst, start, "subresource"), e.Subresource)
	}
	return append(dst, '}')
}

// plainJSON reports whether encoding/json writes raw, a Marshaler's
// output, unchanged: valid JSON that compacting leaves alone (no
// whitespace) and HTML escaping too (no <, >, & and no byte that may
// begin U+2028 or U+2029). Empty raw is FieldsV1's null.
func plainJSON(raw []byte) bool {
	if len(raw) == 0 {
		return true
	}
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r', '<', '>', '&', 0xe2:
			return false
		}
	}
	return fieldsTree(raw) || json.Valid(raw)
}

// fieldsTree reports whether raw is an object whose members' values are
// objects of the same kind, all the way down, with names of printable
// ASCII and no escapes: the shape of every fieldsV1 Kubernetes writes.
// Such a raw is valid JSON; on anything else (false) plainJSON asks
// json.Valid, whose scanner took half of appendMetaJSON's time
// (BenchmarkWithMeta). It does not recurse, and leaves nesting deeper
// than encoding/json's limit to json.Valid too.
func fieldsTree(raw []byte) bool {
	const maxDepth = 10000 // encoding/json's
	depth, i := 0, 0
	for {
		// An object opens at raw[i].
		if i >= len(raw) || raw[i] != '{' || depth == maxDepth {
			return false
		}
		depth++
		if i++; i < len(raw) && raw[i] != '}' {
			var ok bool
			if i, ok = fieldsName(raw, i); !ok {
				return false
			}
			continue // to the member's value
		}
		// An object closes at raw[i]: so do its parents that end
		// here; the first that goes on has its next member.
		for i++; ; i++ {
			if depth--; depth == 0 {
				return i == len(raw)
			}
			if i >= len(raw) || raw[i] != '}' {
				break
			}
		}
		if i >= len(raw) || raw[i] != ',' {
			return false
		}
		var ok bool
		if i, ok = fieldsName(raw, i+1); !ok {
			return false
		}
	}
}

// fieldsName reads the member name at raw[i] and its colon, for
// fieldsTree, and returns where the value begins.
func fieldsName(raw []byte, i int) (int, bool) {
	if i >= len(raw) || raw[i] != '"' {
		return i, false
	}
	for i++; i < len(raw) && raw[i] != '"'; i++ {
		if c := raw[i]; c < 0x20 || c >= 0x7f || c == '\\' {
			return i, false
		}
	}
	if i+1 >= len(raw) || raw[i+1] != ':' {
		return i, false
	}
	return i + 2, true
}
