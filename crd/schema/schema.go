package schema

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/validation"
)

// A Validator checks JSON values against one compiled schema, the way
// kube-apiserver validates a custom resource (k8s.io/apiextensions-apiserver
// pkg/apiserver/validation, which runs k8s.io/kube-openapi's validate
// package and converts its results to field errors). The messages are
// kube-openapi's, with the value's path from the object's root and "body"
// as the location: `spec.replicas in body should be greater than or equal
// to 1`.
//
// Kubernetes visits an object's properties in Go map order, so the order
// of several errors in different properties varies from one request to
// the next there; here properties are visited in sorted order.
//
// A Validator is safe for concurrent use; a nil one accepts everything.
type Validator struct {
	s *JSONSchemaProps
	// root is s without apiVersion, kind and metadata, which the server
	// checks itself: what objects are validated against.
	root *JSONSchemaProps
	// patterns are the compiled patterns of the schema, by pattern text.
	patterns map[string]*regexp.Regexp
	// listTypes is whether the schema has set or map lists, whose
	// uniqueness is checked apart, with the list tree made on the first
	// check (a definition without objects needs none).
	listTypes bool
	listOnce  sync.Once
	listTree  *listNode
	// typeOnly are the anyOf alternatives that name a type and nothing
	// else, by address (see failsType).
	typeOnly map[*JSONSchemaProps]bool
}

// Compile checks that every pattern of s compiles and returns its
// Validator. A nil s accepts everything.
func Compile(s *JSONSchemaProps) (*Validator, error) {
	v := &Validator{s: s, patterns: map[string]*regexp.Regexp{}}
	var err error
	Walk(s, func(p *JSONSchemaProps) {
		for i := range p.AnyOf {
			// The alternatives' address is the schema's own: p may be a
			// copy, but its AnyOf is not.
			if a := &p.AnyOf[i]; isTypeOnly(a) {
				if v.typeOnly == nil {
					v.typeOnly = map[*JSONSchemaProps]bool{}
				}
				v.typeOnly[a] = true
			}
		}
		if p.Pattern == "" || err != nil || v.patterns[p.Pattern] != nil {
			return
		}
		re, e := regexp.Compile(p.Pattern)
		if e != nil {
			err = fmt.Errorf("schema: pattern %q: %w", p.Pattern, e)
			return
		}
		v.patterns[p.Pattern] = re
	})
	v.listTypes = hasListTypes(s)
	v.root = s
	if s != nil && serverChecked(s) {
		root := *s
		root.Properties = maps.Clone(root.Properties)
		for _, k := range []string{"apiVersion", "kind", "metadata"} {
			delete(root.Properties, k)
		}
		root.Required = slices.DeleteFunc(slices.Clone(root.Required), func(k string) bool {
			return k == "apiVersion" || k == "kind" || k == "metadata"
		})
		v.root = &root
	}
	return v, err
}

// Validate checks obj, a custom resource as decoded JSON (numbers as
// int64 when they are integers that fit, else float64, as
// server.Unstructured holds them), against the structural schema s as
// kube-apiserver validates a custom resource, with kube-openapi's
// messages, then the duplicates in x-kubernetes-list-type set and map
// lists (`spec.tags[2]: Duplicate value: "a"`); apiVersion, kind and
// metadata are left to the server. It neither defaults nor prunes obj, which the server does before
// validating. It fails when a pattern of s does not compile.
func Validate(s *JSONSchemaProps, obj map[string]any) ([]status.FieldError, error) {
	v, err := Compile(s)
	if err != nil {
		return nil, err
	}
	return v.validateObject(obj, nil, false), nil
}

// serverChecked reports whether s names apiVersion, kind or metadata,
// which the server checks itself, as properties or required.
func serverChecked(s *JSONSchemaProps) bool {
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		if _, ok := s.Properties[k]; ok || slices.Contains(s.Required, k) {
			return true
		}
	}
	return false
}

// ValidateUpdate checks obj, the new state of old, as Validate does, with
// Kubernetes' validation ratcheting (KEP-4008, CRDValidationRatcheting,
// on by default since 1.30): the errors of a value the update left as it
// was are dropped, so that an object stored under an older, looser schema
// can still be updated in its other members. A value is correlated with
// the old object's at its path through object members (properties and
// additionalProperties) and the keys of x-kubernetes-list-type map
// lists, never through the indexes of other lists; the errors of a value
// are dropped when the nearest correlated value that holds it is
// unchanged. Unchanged is Kubernetes' comparison: a member the schema
// does not name (under x-kubernetes-preserve-unknown-fields) makes its
// object changed, and map lists compare element by key, in any order.
// Every keyword ratchets: type, enum, bounds, lengths, patterns, formats,
// required, item and property counts. The duplicates of set and map
// lists ratchet apart, as a whole, as Kubernetes' do: none are reported
// when old had one.
func ValidateUpdate(s *JSONSchemaProps, obj, old map[string]any) ([]status.FieldError, error) {
	v, err := Compile(s)
	if err != nil {
		return nil, err
	}
	if old == nil {
		old = map[string]any{}
	}
	return v.validateObject(obj, old, false), nil
}

// Walk calls f with s and every schema below it. f must not keep its
// argument: the properties of a schema are passed in one copy, each in
// turn (a copy per property moved each to the heap).
func Walk(s *JSONSchemaProps, f func(*JSONSchemaProps)) {
	if s == nil {
		return
	}
	f(s)
	if len(s.Properties) > 0 {
		p := new(JSONSchemaProps)
		for _, k := range sortedKeys(s.Properties) {
			*p = s.Properties[k]
			Walk(p, f)
		}
	}
	Walk(s.Items, f)
	if s.AdditionalProperties != nil {
		Walk(s.AdditionalProperties.Schema, f)
	}
	for i := range s.AllOf {
		Walk(&s.AllOf[i], f)
	}
	for i := range s.AnyOf {
		Walk(&s.AnyOf[i], f)
	}
	for i := range s.OneOf {
		Walk(&s.OneOf[i], f)
	}
	Walk(s.Not, f)
}

// validateObject validates the members of a custom resource outside
// apiVersion, kind and metadata (content) against the root schema: the
// schema's errors, then those of embedded resources, then the duplicates
// of set and map lists. On an update, old
// is the old object's content and errors ratchet (ValidateUpdate); with
// wholeObject, content stands for an object whose metadata the schema
// cannot name entirely (uid, resourceVersion), which Kubernetes therefore
// never finds unchanged at its root.
func (v *Validator) validateObject(content, old map[string]any, wholeObject bool) []status.FieldError {
	errs, embedded := v.check(content, old, wholeObject)
	return append(append(errs, embedded...), v.ListErrors(content, old)...)
}

// Validate checks obj, the members of a custom resource outside
// apiVersion, kind and metadata as decoded JSON, and old, the old
// object's on an update (nil on create), as Kubernetes validates a
// custom resource: the schema's errors, ratcheted on an update (see
// ValidateUpdate; the object as a whole always counts as changed, as
// its metadata does), and apart from them the errors of its embedded
// resources' apiVersion and kind, which Kubernetes reports later. The
// duplicates of set and map lists are ListErrors'.
func (v *Validator) Validate(obj, old map[string]any) (errs, embedded []status.FieldError) {
	return v.check(obj, old, true)
}

// ListErrors is the errors of the x-kubernetes-list-type set and map
// lists in obj (members as for Validate): duplicates, and map lists'
// items that are not objects. On an update, old is the old object's
// members, and the errors ratchet as a whole: none are reported when old
// had one.
func (v *Validator) ListErrors(obj, old map[string]any) []status.FieldError {
	if v == nil || !v.listTypes {
		return nil
	}
	v.listOnce.Do(func() { v.listTree = newListNode(v.s) })
	return listTypeErrors(v.listTree, obj, old)
}

// check is validateObject with the errors of embedded resources apart,
// as Kubernetes reports them after those of the schema and the scale
// subresource's checks.
func (v *Validator) check(content, old map[string]any, wholeObject bool) (errs, embedded []status.FieldError) {
	if v == nil || v.s == nil {
		return nil, nil
	}
	if content == nil {
		content = map[string]any{}
	}
	var c *corr
	if old != nil {
		c = &corr{old: old, cur: content, s: corrSchemaOf(v.root)}
		if wholeObject {
			c.eq = unequal
		}
	}
	var sc scratch
	w := &walk{}
	v.validate(w, path{sc: &sc}, content, v.root, c)
	return unique(w.errs), w.embedded
}

// unique drops the repeats of errors from errs, as kube-openapi keeps
// one of each message (allOf's alternatives, or a schema and one of its
// alternatives, may find the same fault).
func unique(errs []status.FieldError) []status.FieldError {
	if len(errs) < 2 {
		return errs
	}
	seen := make(map[string]bool, len(errs))
	return slices.DeleteFunc(errs, func(e status.FieldError) bool {
		k := e.Error()
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

// walk is one validation's errors: the schema's, and those of embedded
// resources' apiVersion and kind, which Kubernetes checks apart from the
// schema, without ratcheting.
type walk struct {
	errs, embedded []status.FieldError
	// mc is kube-openapi's match count of the values walked
	// (kindMatches), kept when count is set: in the walks of allOf,
	// anyOf, oneOf and not alternatives, where it decides which errors
	// are reported.
	mc    int
	count bool
}

// merge adds the errors and match count of r, an alternative's walk.
func (w *walk) merge(r *walk) {
	w.errs = append(w.errs, r.errs...)
	w.embedded = append(w.embedded, r.embedded...)
	w.mc += r.mc
}

// child is the path of member k of the value at path.
func child(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// jsonType is the JSON schema type of a decoded value.
func jsonType(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "number"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

func invalid(path string, value any, msg string) status.FieldError {
	return status.InvalidValue(path, value, msg)
}

// typeInvalid is Kubernetes' field.TypeInvalid: printed as "Invalid
// value", with its own cause type.
func typeInvalid(path string, value any, msg string) status.FieldError {
	return status.FieldError{Type: status.CauseTypeFieldValueTypeInvalid, Field: path, BadValue: value, Detail: msg}
}

// validate appends to w what is wrong with x, the value at path, by s.
// c correlates x with the old object's value on an update (nil when
// there is none): when x is unchanged, its errors are dropped.
func (v *Validator) validate(w *walk, at path, x any, s *JSONSchemaProps, c *corr) {
	n := len(w.errs)
	v.validateValue(w, at, x, s, c)
	if len(w.errs) > n && c.equal() {
		w.errs = w.errs[:n]
	}
}

func (v *Validator) validateValue(w *walk, at path, x any, s *JSONSchemaProps, c *corr) {
	if s == nil {
		return
	}
	errs := &w.errs
	if x == nil {
		// kube-openapi checks a null's type and enum only, and counts
		// the type check as a match when it passes.
		if s.Type == "" && !s.XIntOrString || s.Nullable {
			w.mc++
		}
	} else if w.count {
		w.mc += kindMatches(x, s)
	}
	// The type: int-or-string is either, a float that is an integer is an
	// integer, an integer is a number.
	types := []string{s.Type}
	if s.XIntOrString {
		types = []string{"integer", "string"}
	}
	if s.Type != "" || s.XIntOrString {
		t := jsonType(x)
		// A value of a declared format is first checked against the
		// format, by the Go type it decodes to (int64, float64), except
		// strings and arrays, which pass when the type is not numeric.
		format := goFormat(x)
		floatInt := t == "number" && slices.Contains(types, "integer") && isJSONInteger(x.(float64))
		intFloat := t == "integer" && slices.Contains(types, "number")
		numeric := slices.Contains(types, "integer") || slices.Contains(types, "number")
		switch {
		case t == "null" && s.Nullable:
		case t == "null":
			*errs = append(*errs, typeInvalid(at.String(), t, fmt.Sprintf("%s in body must be of type %s: %q", at.String(), strings.Join(types, ","), t)))
			v.enum(errs, at, x, s)
			return
		case s.Format != "" && t != "string" && t != "array" && !slices.Contains(types, t) && format != s.Format && !floatInt && !intFloat:
			*errs = append(*errs, typeInvalid(at.String(), format, fmt.Sprintf("%s in body must be of type %s: %q", at.String(), s.Format, format)))
			v.junctors(w, at, x, s)
			if numeric && (t == "integer" || t == "number") {
				validateNumber(errs, at, x, s)
			}
			v.enum(errs, at, x, s)
			return
		case s.Format != "" && !numeric && (t == "string" || t == "array"):
			w.mc++ // the type check passed
		case !slices.Contains(types, t) && !floatInt && !intFloat:
			*errs = append(*errs, typeInvalid(at.String(), t, fmt.Sprintf("%s in body must be of type %s: %q", at.String(), strings.Join(types, ","), t)))
			v.junctors(w, at, x, s)
			if t == "number" && slices.Contains(types, "integer") {
				// The number checks still run, and first say that the
				// value is no integer.
				validateNumber(errs, at, x, s)
			}
			v.enum(errs, at, x, s)
			return
		default:
			w.mc++ // the type check passed
		}
	} else if f := checkedFormat(s); f != "" && x != nil {
		// A schema under allOf, anyOf, oneOf or not has no type, but its
		// format still asks for a string (or an array).
		switch t := jsonType(x); {
		case t == "string" || t == "array":
			w.mc++
		case goFormat(x) == f:
			w.mc++
		default:
			*errs = append(*errs, typeInvalid(at.String(), goFormat(x), fmt.Sprintf("%s in body must be of type %s: %q", at.String(), f, goFormat(x))))
		}
	}
	if x != nil {
		v.junctors(w, at, x, s)
	}
	switch x := x.(type) {
	case nil:
		// nullable, or without a type; only an enum can refuse it.
	case string:
		v.validateString(errs, at, x, s)
	case int64, float64, json.Number:
		validateNumber(errs, at, x, s)
	case []any:
		for i, e := range x {
			v.validate(w, at.sc.push(at, indexed, "", i), e, s.Items, c.index(i))
			at.sc.pop()
		}
		if s.MinItems != nil && int64(len(x)) < *s.MinItems {
			*errs = append(*errs, invalid(at.String(), int64(len(x)), fmt.Sprintf("%s in body should have at least %d items", at.String(), *s.MinItems)))
		}
		if s.MaxItems != nil && int64(len(x)) > *s.MaxItems {
			*errs = append(*errs, status.TooMany(at.String(), len(x), int(*s.MaxItems)))
		}
		if s.UniqueItems && hasDuplicates(x) {
			*errs = append(*errs, invalid(at.String(), "", at.String()+" in body shouldn't contain duplicates"))
		}
	}
	v.enum(errs, at, x, s)
	if m, ok := x.(map[string]any); ok {
		v.validateMap(w, at, m, s, c)
	}
}

// kindMatches is what kube-openapi's schema validator adds to its match
// count for a value that is not null, apart from the type check's own
// match and what the values below it and the logical junctors add: one
// for each of its validators that applies to the value (the type check
// when the schema names a type or format, the logical junctors always,
// the string, format, number, list, enum and object checks by the
// value's kind), one for the list check itself and one for the whole.
// kube-openapi picks the errors of the failed anyOf or oneOf
// alternative with the highest count.
func kindMatches(x any, s *JSONSchemaProps) int {
	n := 1 + 2 + 1 // the whole; the junctors, which count themselves; the enum
	if s.Type != "" || s.XIntOrString || checkedFormat(s) != "" {
		n++
	}
	switch x.(type) {
	case string:
		n++
		if f := checkedFormat(s); f != "" && stringFormats[f] {
			n++
		}
	case int64, float64, json.Number:
		n += 2 // the number check counts itself
	case []any:
		n += 2 // the list check counts itself
	case map[string]any:
		n++
	}
	return n
}

// stringFormats are the string formats a CRD schema may name (without
// dashes, as kube-openapi compares their names); Kubernetes drops the
// others from the schemas it validates with (k8s.io/apiextensions-apiserver
// pkg/apiserver/validation/formats.go).
var stringFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true, "ipv4": true, "ipv6": true,
	"cidr": true, "mac": true, "uuid": true, "uuid3": true, "uuid4": true, "uuid5": true, "isbn": true,
	"isbn10": true, "isbn13": true, "creditcard": true, "ssn": true, "hexcolor": true, "rgbcolor": true,
	"byte": true, "password": true, "date": true, "duration": true, "datetime": true,
	"k8sshortname": true, "k8slongname": true,
}

// checkedFormat is the format of s that Kubernetes keeps to validate
// with, without dashes for string formats, or "": a string format it
// knows on a string or untyped schema, int32 or int64 on an integer,
// float or double on a number.
func checkedFormat(s *JSONSchemaProps) string {
	switch t := s.Type; {
	case s.Format == "":
	case t == "" || t == "string" || s.XIntOrString:
		if f := strings.ReplaceAll(s.Format, "-", ""); stringFormats[f] {
			return f
		}
	case t == "integer" && (s.Format == "int32" || s.Format == "int64"),
		t == "number" && (s.Format == "float" || s.Format == "double"):
		return s.Format
	}
	return ""
}

// junctors checks x, not null, against the allOf, anyOf, oneOf and not
// of s, as kube-openapi does, with its messages (on a field it leaves
// unnamed): anyOf reports, when no alternative holds, the errors of the
// alternative that matched most (the first of those); oneOf does so when
// none holds, and says how many did when several do; allOf reports the
// errors of every alternative. On an update, the value's errors ratchet
// as a whole, those of the junctors included, but an alternative's
// values are not correlated with the old object's: kube-openapi checks
// alternatives without ratcheting.
func (v *Validator) junctors(w *walk, at path, x any, s *JSONSchemaProps) {
	if len(s.AnyOf) > 0 {
		var best *walk
		held := false
		// First the alternatives that may hold, to the first that does,
		// without the walks of those that surely fail, whose errors are
		// not reported when one holds (an int-or-string's anyOf of
		// integer and string, where a string made an error for the
		// integer). When none holds, all are walked, in order.
		for i := range s.AnyOf {
			if v.failsType(x, &s.AnyOf[i]) {
				continue
			}
			if r := v.alternative(w, at, x, &s.AnyOf[i]); len(r.errs) == 0 {
				best, held = r, true
				break
			}
		}
		if !held {
			// The errors of the alternative that matched most, the
			// first of those.
			for i := range s.AnyOf {
				if r := v.alternative(w, at, x, &s.AnyOf[i]); best == nil || r.mc > best.mc {
					best = r
				}
			}
			w.errs = append(w.errs, invalid("<nil>", "", fmt.Sprintf("%q must validate at least one schema (anyOf)", at.String())))
		}
		w.merge(best)
	}
	if len(s.OneOf) > 0 {
		var best, first *walk
		held := 0
		for i := range s.OneOf {
			r := v.alternative(w, at, x, &s.OneOf[i])
			if len(r.errs) == 0 {
				held++
				best = nil
				if first == nil {
					first = r
				}
				continue
			}
			if held == 0 && (best == nil || r.mc > best.mc) {
				best = r
			}
		}
		switch held {
		case 1:
			w.merge(first)
		case 0:
			w.errs = append(w.errs, invalid("<nil>", "", fmt.Sprintf("%q must validate one and only one schema (oneOf). Found none valid", at.String())))
			w.merge(best)
		default:
			w.errs = append(w.errs, invalid("<nil>", "", fmt.Sprintf("%q must validate one and only one schema (oneOf). Found %d valid alternatives", at.String(), held)))
		}
	}
	if len(s.AllOf) > 0 {
		held := 0
		for i := range s.AllOf {
			r := v.alternative(w, at, x, &s.AllOf[i])
			if len(r.errs) == 0 {
				held++
			}
			w.merge(r)
		}
		if held < len(s.AllOf) {
			none := ""
			if held == 0 {
				none = ". None validated"
			}
			w.errs = append(w.errs, invalid("<nil>", "", fmt.Sprintf("%q must validate all the schemas (allOf)%s", at.String(), none)))
		}
	}
	if s.Not != nil {
		if r := v.alternative(w, at, x, s.Not); len(r.errs) == 0 {
			w.errs = append(w.errs, invalid("<nil>", "", fmt.Sprintf("%q must not validate the schema (not)", at.String())))
		}
	}
}

// isTypeOnly reports whether s names a type and nothing else.
func isTypeOnly(s *JSONSchemaProps) bool {
	c := *s
	c.Type = ""
	return s.Type != "" && reflect.ValueOf(&c).Elem().IsZero()
}

// failsType reports whether x, not null, surely fails the anyOf
// alternative s: s names a type only (typeOnly), and x is of another,
// where no integer and number meet.
func (v *Validator) failsType(x any, s *JSONSchemaProps) bool {
	if x == nil || !v.typeOnly[s] {
		return false
	}
	switch t := jsonType(x); {
	case t == s.Type, t == "integer" && s.Type == "number", t == "number" && s.Type == "integer":
		return false
	}
	return true
}

// alternative is the walk of x, the value at path, against a schema of
// allOf, anyOf, oneOf or not.
func (v *Validator) alternative(w *walk, at path, x any, s *JSONSchemaProps) *walk {
	r := &walk{count: true}
	v.validateValue(r, at, x, s, nil)
	return r
}

// enum checks x against s.Enum: Kubernetes reports the values as
// strings, non-strings in their JSON form.
func (v *Validator) enum(errs *[]status.FieldError, at path, x any, s *JSONSchemaProps) {
	if len(s.Enum) == 0 {
		return
	}
	for _, e := range s.Enum {
		if sameJSON(x, e) {
			return
		}
	}
	values := make([]string, len(s.Enum))
	for i, e := range s.Enum {
		if str, ok := e.(string); ok {
			values[i] = str
		} else {
			b, _ := json.Marshal(e)
			values[i] = string(b)
		}
	}
	*errs = append(*errs, status.NotSupported(at.String(), x, values...))
}

// sameJSON reports whether two decoded JSON values are equal, numbers by
// value.
func sameJSON(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func number(x any) (float64, bool) {
	switch x := x.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func hasDuplicates(x []any) bool {
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			if sameJSON(x[i], x[j]) {
				return true
			}
		}
	}
	return false
}

// validateString checks lengths (in runes, as kube-openapi counts them),
// the pattern and the format. Each of the length and pattern checks stops
// the string checks, as kube-openapi's string validator does.
func (v *Validator) validateString(errs *[]status.FieldError, at path, x string, s *JSONSchemaProps) {
	n := int64(len([]rune(x)))
	switch {
	case s.MaxLength != nil && n > *s.MaxLength:
		*errs = append(*errs, status.TooLong(at.String(), int(*s.MaxLength)))
	case s.MinLength != nil && n < *s.MinLength:
		*errs = append(*errs, invalid(at.String(), x, fmt.Sprintf("%s in body should be at least %d chars long", at.String(), *s.MinLength)))
	case s.Pattern != "" && !v.match(s.Pattern, x):
		*errs = append(*errs, invalid(at.String(), x, fmt.Sprintf("%s in body should match '%s'", at.String(), s.Pattern)))
	}
	if s.Format != "" && !validFormat(s.Format, x) {
		*errs = append(*errs, typeInvalid(at.String(), x, fmt.Sprintf("%s in body must be of type %s: %q", at.String(), s.Format, x)))
	}
}

func (v *Validator) match(pattern, x string) bool {
	re := v.patterns[pattern]
	if re == nil {
		var err error
		if re, err = regexp.Compile(pattern); err != nil {
			return true // refused when the CRD was created
		}
	}
	return re.MatchString(x)
}

// goFormat is the format kube-openapi infers from the Go type of a
// decoded value: int64 and float64 for numbers, none for the others.
func goFormat(x any) string {
	switch x.(type) {
	case int64:
		return "int64"
	case float64:
		return "float64"
	}
	return ""
}

// validateNumber checks that an integer's value is one of its format,
// then multipleOf, then the bounds, as kube-openapi does: with integer
// arithmetic when both the value and the constraint are integers of the
// schema's format, else with float64 (where a multiple must be an integer
// within 2^53).
func validateNumber(errs *[]status.FieldError, at path, x any, s *JSONSchemaProps) {
	f, _ := number(x)
	integer := s.Type == "integer"
	// fits reports whether a value or a constraint is an integer of the
	// schema's format, adding kube-openapi's error (on a field it leaves
	// unnamed) when it is not.
	fits := func(prefix string, v any) bool {
		if !integer || fitsInteger(v, s.Format) {
			return true
		}
		msg := fmt.Sprintf("%s value must be of type integer with format %s in %s", prefix, s.Format, at.String())
		if s.Format == "" {
			msg = prefix + " value must be of type integer (default format) in " + at.String()
		}
		*errs = append(*errs, invalid("<nil>", "", msg))
		return false
	}
	fits("Checked", x)
	i, isInt := x.(int64)
	if m := s.MultipleOf; m != nil && *m > 0 {
		if fits("MultipleOf", *m) && isInt {
			// An integer is checked against the factor as an integer:
			// a factor below 1 truncates to 0, which kube-openapi
			// reports.
			switch n := int64(*m); {
			case n <= 0:
				*errs = append(*errs, invalid(at.String(), n, fmt.Sprintf("factor MultipleOf declared for %s must be positive: %d", at.String(), n)))
			case i%n != 0:
				*errs = append(*errs, invalid(at.String(), x, fmt.Sprintf("%s in body should be a multiple of %d", at.String(), n)))
			}
		} else {
			q := f / *m
			if *m < 1 {
				q = 1 / *m * f
			}
			if !isJSONInteger(q) {
				*errs = append(*errs, invalid(at.String(), x, fmt.Sprintf("%s in body should be a multiple of %v", at.String(), bound(*m, x))))
			}
		}
	}
	// above reports whether the value is past the bound b, on the side
	// given by sign (1 for a maximum).
	past := func(b float64, exclusive bool, sign int) bool {
		var c int
		if isInt {
			c = cmp.Compare(i, int64(b))
		} else {
			c = cmpFloat(f, b)
		}
		c *= sign
		return c > 0 || exclusive && c == 0
	}
	if m := s.Maximum; m != nil {
		native := fits("Maximum boundary", *m)
		if b := *m; native && past(b, s.ExclusiveMaximum, 1) || !native && cmpFloat(f, b) > 0 || !native && s.ExclusiveMaximum && f == b {
			*errs = append(*errs, maxErr(at.String(), x, b, s.ExclusiveMaximum))
		}
	}
	if m := s.Minimum; m != nil {
		native := fits("Minimum boundary", *m)
		if b := *m; native && past(b, s.ExclusiveMinimum, -1) || !native && cmpFloat(f, b) < 0 || !native && s.ExclusiveMinimum && f == b {
			*errs = append(*errs, minErr(at.String(), x, b, s.ExclusiveMinimum))
		}
	}
}

func maxErr(path string, x any, b float64, exclusive bool) status.FieldError {
	if exclusive {
		return invalid(path, x, fmt.Sprintf("%s in body should be less than %v", path, bound(b, x)))
	}
	return invalid(path, x, fmt.Sprintf("%s in body should be less than or equal to %v", path, bound(b, x)))
}

func minErr(path string, x any, b float64, exclusive bool) status.FieldError {
	if exclusive {
		return invalid(path, x, fmt.Sprintf("%s in body should be greater than %v", path, bound(b, x)))
	}
	return invalid(path, x, fmt.Sprintf("%s in body should be greater than or equal to %v", path, bound(b, x)))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// isJSONInteger reports whether f is an integer a JSON number can hold
// exactly (within 2^53), allowing a relative error of 1e-9, as
// kube-openapi's multipleOf check does (go-openapi/swag).
func isJSONInteger(f float64) bool {
	const maxJSON = 1<<53 - 1
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -maxJSON || f > maxJSON {
		return false
	}
	r := math.Round(f)
	if f == r {
		return true
	}
	if r == 0 {
		return false
	}
	return math.Abs(f-r) < 1e-9*math.Abs(r)
}

// fitsInteger reports whether x is an integer of format (int32, or else
// int64), as kube-openapi checks it from the value's decimal form.
func fitsInteger(x any, format string) bool {
	var str string
	switch x := x.(type) {
	case int64:
		str = strconv.FormatInt(x, 10)
	case float64:
		// kube-openapi prints it shortest, as JSON does.
		str = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return true
	}
	bits := 64
	if format == "int32" {
		bits = 32
	}
	_, err := strconv.ParseInt(str, 10, bits)
	return err == nil
}

// bound is a schema bound as kube-openapi prints it: as an integer when
// the value is one and the bound is integral, else as a float64 (%v).
func bound(b float64, x any) any {
	if _, ok := x.(int64); ok && b == math.Trunc(b) && math.Abs(b) < 1<<63 {
		return int64(b)
	}
	return b
}

// validateMap checks the property counts, then every property (sorted),
// then additionalProperties, then required.
func (v *Validator) validateMap(w *walk, at path, m map[string]any, s *JSONSchemaProps, c *corr) {
	errs := &w.errs
	if s.MinProperties != nil && int64(len(m)) < *s.MinProperties {
		*errs = append(*errs, invalid(at.String(), int64(len(m)), fmt.Sprintf("%s in body should have at least %d properties", at.String(), *s.MinProperties)))
	}
	if s.MaxProperties != nil && int64(len(m)) > *s.MaxProperties {
		*errs = append(*errs, status.TooMany(at.String(), len(m), int(*s.MaxProperties)))
	}
	if s.XEmbeddedResource {
		embedded(&w.embedded, at, m)
	}
	keys, taken := at.sc.keys(m)
	defer at.sc.dropKeys(taken)
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		for _, k := range keys {
			if _, known := s.Properties[k]; !known {
				v.validate(w, at.sc.push(at, dotted, k, 0), m[k], ap.Schema, c.key(k))
				at.sc.pop()
			}
		}
	}
	for _, k := range keys {
		if p := at.sc.prop(s.Properties, k); p != nil {
			v.validate(w, at.sc.push(at, member, k, 0), m[k], p, c.key(k))
			at.sc.pop()
			at.sc.release()
		}
	}
	for _, k := range s.Required {
		if _, ok := m[k]; !ok {
			*errs = append(*errs, status.Required(child(at.String(), k), ""))
		}
	}
}

// embedded checks the apiVersion and kind of an embedded resource as
// Kubernetes does (k8s.io/apiextensions-apiserver
// pkg/apiserver/schema/objectmeta): both required, strings, not empty, a
// group/version with at most one slash and a kind that is a DNS-1035
// label in any case. Its metadata is not checked here.
func embedded(errs *[]status.FieldError, at path, m map[string]any) {
	for _, k := range []string{"apiVersion", "kind"} {
		p := child(at.String(), k)
		v, found := m[k]
		str, isString := v.(string)
		switch {
		case !found:
			*errs = append(*errs, status.Required(p, ""))
		case !isString:
			*errs = append(*errs, invalid(p, v, "must be a string"))
		case str == "":
			*errs = append(*errs, invalid(p, str, "must not be empty"))
		case k == "apiVersion" && strings.Count(str, "/") > 1:
			*errs = append(*errs, invalid(p, str, "unexpected GroupVersion string: "+str))
		case k == "kind":
			if e := validation.IsDNS1035Label(strings.ToLower(str)); len(e) > 0 {
				*errs = append(*errs, invalid(p, str, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
			}
		}
	}
}

// The formats Kubernetes checks string values against (those of
// kube-openapi's default registry that a CRD may name); other formats
// accept any string.
var (
	hostnameRe = regexp.MustCompile(`^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$`)
	uuidRe     = regexp.MustCompile(`(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`)
	uuid3Re    = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-3[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	uuid4Re    = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	uuid5Re    = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	// durationRe finds the number-unit pairs of a duration anywhere in
	// a string, as kube-openapi does (unanchored).
	durationRe = regexp.MustCompile(`(\d+)\s*([A-Za-zµ]+)`)
	hexColorRe = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rgbColorRe = regexp.MustCompile(`^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$`)
	// base64Re is the padded standard encoding, at least one group, as
	// the validator kube-openapi uses matches it.
	base64Re = regexp.MustCompile(`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$`)
	emailRe  = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
)

// timeOfDayRe is the time part of a date-time, as kube-openapi matches it.
var timeOfDayRe = regexp.MustCompile(`^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`)

func validFormat(format, x string) bool {
	switch format {
	case "byte":
		return base64Re.MatchString(x)
	case "date":
		_, err := time.Parse("2006-01-02", x)
		return err == nil
	case "date-time", "datetime":
		// A full date, a "t" (any case), and a time with its zone.
		if len(x) < 4 {
			return false
		}
		parts := strings.Split(strings.ToLower(x), "t")
		if len(parts) < 2 {
			return false
		}
		if _, err := time.Parse("2006-01-02", parts[0]); err != nil {
			return false
		}
		m := timeOfDayRe.FindStringSubmatch(parts[1])
		return m != nil && m[1] <= "23" && m[2] <= "59" && m[3] <= "59"
	case "duration":
		return validDuration(x)
	case "ipv4":
		ip := net.ParseIP(x)
		return ip != nil && strings.Contains(x, ".") && !strings.Contains(x, ":")
	case "ipv6":
		ip := net.ParseIP(x)
		return ip != nil && strings.Contains(x, ":")
	case "cidr":
		_, _, err := net.ParseCIDR(x)
		return err == nil
	case "mac":
		_, err := net.ParseMAC(x)
		return err == nil
	case "hostname":
		return len(x) <= 255 && hostnameRe.MatchString(x)
	case "uuid":
		return uuidRe.MatchString(x)
	case "uuid3":
		return uuid3Re.MatchString(x)
	case "uuid4":
		return uuid4Re.MatchString(x)
	case "uuid5":
		return uuid5Re.MatchString(x)
	case "hexcolor":
		return hexColorRe.MatchString(x)
	case "rgbcolor":
		return rgbColorRe.MatchString(x)
	case "email":
		return emailRe.MatchString(x)
	}
	return true
}

// durationUnits are the units a duration may name: each the first of its
// variants, or the last as a prefix ("days").
var durationUnits = [][]string{
	{"ns", "nano"}, {"us", "µs", "micro"}, {"ms", "milli"}, {"s", "sec"},
	{"m", "min"}, {"h", "hr", "hour"}, {"d", "day"}, {"w", "wk", "week"},
}

// validDuration reports whether x is a duration as kube-openapi accepts
// one: Go's form, or else a string in which some number is followed by a
// known unit.
func validDuration(x string) bool {
	if _, err := time.ParseDuration(x); err == nil {
		return true
	}
	for _, m := range durationRe.FindAllStringSubmatch(x, -1) {
		if _, err := strconv.Atoi(m[1]); err != nil {
			return false
		}
		unit := strings.ToLower(m[2])
		for _, variants := range durationUnits {
			for i, v := range variants {
				if unit == v || i == len(variants)-1 && strings.HasPrefix(unit, v) {
					return true
				}
			}
		}
	}
	return false
}

// preserves reports whether s keeps fields it does not name.
func preserves(s *JSONSchemaProps) bool {
	return s != nil && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

// prune drops from x the object members s does not know, as prune
// (of a node) does.
func prune(x any, s *JSONSchemaProps, resource bool, pruned *[]string) {
	var sc scratch
	NewTree(s).n.prune(&sc, x, path{}, resource, pruned)
}

func childPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// schemaNode is what settled reads of a schema, with its children as
// pointers: a JSONSchemaProps holds its properties as values, and a
// node holding a copy of each would keep a second copy of every schema.
type schemaNode struct {
	props      map[string]*schemaNode
	additional *schemaNode // additionalProperties
	items      *schemaNode

	defaulted, nullable, intOrString, embedded, preserves bool
	// propDefaults is whether a property has a default: settled looks
	// for the missing ones only then.
	propDefaults bool
}

// newSchemaNodeOf returns the node of s, and adds the defaults of it and
// the schemas below it to defaults, by node.
func newSchemaNodeOf(s *JSONSchemaProps, defaults map[*schemaNode]any) *schemaNode {
	if s == nil {
		return nil
	}
	n := &schemaNode{additional: newSchemaNodeOf(s.AdditionalProperties.schema(), defaults), items: newSchemaNodeOf(s.Items, defaults),
		defaulted: s.Default != nil, nullable: s.Nullable, intOrString: s.XIntOrString,
		embedded: s.XEmbeddedResource, preserves: preserves(s)}
	if s.Default != nil {
		defaults[n] = s.Default
	}
	if len(s.Properties) > 0 {
		n.props = make(map[string]*schemaNode, len(s.Properties))
		p := new(JSONSchemaProps) // one copy for all: newSchemaNodeOf keeps nothing of it
		for k := range s.Properties {
			*p = s.Properties[k]
			n.props[k] = newSchemaNodeOf(p, defaults)
			n.propDefaults = n.propDefaults || p.Default != nil
		}
	}
	return n
}

// applyDefaults sets the defaults of n in x where members are missing
// (or null and not nullable), as Kubernetes' structural defaulting does,
// then recurses into what is there.
func (t *Tree) applyDefaults(x any, n *schemaNode) {
	if n == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		if n.propDefaults {
			for k, p := range n.props {
				if !p.defaulted {
					continue
				}
				if v, ok := x[k]; !ok || v == nil && !p.nullable {
					x[k] = defaultValue(t.defaults[p])
				}
			}
		}
		for k, v := range x {
			if p := n.props[k]; p != nil {
				t.applyDefaults(v, p)
			} else if ap := n.additional; ap != nil {
				if v == nil && ap.defaulted && !ap.nullable {
					x[k] = defaultValue(t.defaults[ap])
					v = x[k]
				}
				t.applyDefaults(v, ap)
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		for i, e := range x {
			if e == nil && n.items.defaulted && !n.items.nullable {
				x[i] = defaultValue(t.defaults[n.items])
				e = x[i]
			}
			t.applyDefaults(e, n.items)
		}
	}
}

// prune drops from x, the value at path at, the object members n does
// not know, as Kubernetes' structural pruning does
// (k8s.io/apiextensions-apiserver pkg/apiserver/schema/pruning), and
// appends their paths to pruned. At the resource root and in embedded
// resources, apiVersion, kind and metadata are kept.
func (n *schemaNode) prune(sc *scratch, x any, at path, resource bool, pruned *[]string) {
	switch x := x.(type) {
	case map[string]any:
		if n != nil && n.intOrString {
			return
		}
		for k, val := range x {
			if (resource || n != nil && n.embedded) && (k == "apiVersion" || k == "kind" || k == "metadata") {
				continue
			}
			var c *schemaNode
			if n != nil {
				if c = n.props[k]; c == nil {
					c = n.additional
				}
			}
			if c == nil {
				if n == nil || !n.preserves {
					delete(x, k)
					*pruned = append(*pruned, childPath(at.String(), k))
				}
				// Preserved members are kept whole; what is below them
				// is not the schema's.
				continue
			}
			c.prune(sc, val, sc.push(at, member, k, 0), false, pruned)
			sc.pop()
		}
	case []any:
		if n == nil || n.items == nil {
			return
		}
		for i, e := range x {
			n.items.prune(sc, e, sc.push(at, indexed, "", i), false, pruned)
			sc.pop()
		}
	}
}

// pruneNulls drops null members that are neither nullable nor
// defaulted, as Kubernetes does before validating
// (PruneNonNullableNullsWithoutDefaults).
func (n *schemaNode) pruneNulls(x any) {
	if n == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			c := n.props[k]
			if c == nil {
				c = n.additional
			}
			switch {
			case c == nil:
			case v == nil && !c.nullable && !c.defaulted:
				delete(x, k)
			default:
				c.pruneNulls(v)
			}
		}
	case []any:
		for _, e := range x {
			n.items.pruneNulls(e)
		}
	}
}

// settled reports whether coerce would leave x, the value of n, as it
// is: no default to set, no member to prune (pruning: below no
// int-or-string object; resource: x is a resource's root, whose
// apiVersion, kind and metadata stay), no null to drop. It reads x only
// and allocates nothing.
func (n *schemaNode) settled(x any, resource, pruning bool) bool {
	switch x := x.(type) {
	case map[string]any:
		if n.propDefaults {
			for k, p := range n.props {
				if !p.defaulted {
					continue
				}
				if v, ok := x[k]; !ok || v == nil && !p.nullable {
					return false // defaulted
				}
			}
		}
		pruning = pruning && !n.intOrString
		for k, v := range x {
			meta := (resource || n.embedded) && (k == "apiVersion" || k == "kind" || k == "metadata")
			c := n.props[k]
			if c == nil {
				c = n.additional
			}
			if c == nil {
				if pruning && !meta && !n.preserves {
					return false // pruned
				}
				continue
			}
			if v == nil && !c.nullable {
				return false // defaulted, or dropped
			}
			if !c.settled(v, false, pruning && !meta) {
				return false
			}
		}
	case []any:
		if n.items == nil {
			return true
		}
		for _, e := range x {
			if e == nil && n.items.defaulted && !n.items.nullable {
				return false
			}
			if !n.items.settled(e, false, pruning) {
				return false
			}
		}
	}
	return true
}

// defaultValue is a copy of a schema's default, with integers int64 as a
// decoded request holds them, whatever decoded the definition.
func defaultValue(x any) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = defaultValue(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = defaultValue(v)
		}
		return out
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x)
		}
	}
	return x
}

func (s *SchemaOrBool) schema() *JSONSchemaProps {
	if s == nil {
		return nil
	}
	return s.Schema
}

// sortedKeys returns m's keys in order: the walks of a schema visit
// properties in order, for errors in a stable order. The slice is made
// at its size at once (slices.Sorted(maps.Keys(m)) grows it, which was
// most of a walk's cost: BenchmarkInstallRealCRDs in examples/interop).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
