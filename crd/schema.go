package crd

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/apisem/apisem/status"
)

// A validator checks JSON values against one compiled schema, the way
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
type validator struct {
	s *JSONSchemaProps
	// patterns are the compiled patterns of the schema, by pattern text.
	patterns map[string]*regexp.Regexp
}

// compileSchema checks that every pattern of s compiles and returns its
// validator. A nil s accepts everything.
func compileSchema(s *JSONSchemaProps) (*validator, error) {
	v := &validator{s: s, patterns: map[string]*regexp.Regexp{}}
	var err error
	walkSchema(s, func(p *JSONSchemaProps) {
		if p.Pattern == "" || err != nil || v.patterns[p.Pattern] != nil {
			return
		}
		re, e := regexp.Compile(p.Pattern)
		if e != nil {
			err = fmt.Errorf("crd: pattern %q: %w", p.Pattern, e)
			return
		}
		v.patterns[p.Pattern] = re
	})
	return v, err
}

// walkSchema calls f with s and every schema below it.
func walkSchema(s *JSONSchemaProps, f func(*JSONSchemaProps)) {
	if s == nil {
		return
	}
	f(s)
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[k]
		walkSchema(&p, f)
	}
	walkSchema(s.Items, f)
	if s.AdditionalProperties != nil {
		walkSchema(s.AdditionalProperties.Schema, f)
	}
	for i := range s.AllOf {
		walkSchema(&s.AllOf[i], f)
	}
	for i := range s.AnyOf {
		walkSchema(&s.AnyOf[i], f)
	}
	for i := range s.OneOf {
		walkSchema(&s.OneOf[i], f)
	}
	walkSchema(s.Not, f)
}

// validateObject validates the members of a custom resource outside
// apiVersion, kind and metadata (content) against the root schema.
func (v *validator) validateObject(content map[string]any) []status.FieldError {
	if v == nil || v.s == nil {
		return nil
	}
	root := *v.s
	// The server checks kind, apiVersion and metadata itself.
	root.Properties = maps.Clone(root.Properties)
	for _, k := range []string{"apiVersion", "kind", "metadata"} {
		delete(root.Properties, k)
	}
	root.Required = slices.DeleteFunc(slices.Clone(root.Required), func(k string) bool {
		return k == "apiVersion" || k == "kind" || k == "metadata"
	})
	if content == nil {
		content = map[string]any{}
	}
	var errs []status.FieldError
	v.validate(&errs, "", content, &root)
	return errs
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

// validate appends to errs what is wrong with x, the value at path, by s.
func (v *validator) validate(errs *[]status.FieldError, path string, x any, s *JSONSchemaProps) {
	if s == nil {
		return
	}
	// The type: int-or-string is either, a float that is an integer is an
	// integer, an integer is a number.
	types := []string{s.Type}
	if s.XIntOrString {
		types = []string{"integer", "string"}
	}
	if s.Type != "" || s.XIntOrString {
		t := jsonType(x)
		ok := slices.Contains(types, t) ||
			t == "number" && slices.Contains(types, "integer") && isIntegral(x) ||
			t == "integer" && slices.Contains(types, "number") ||
			t == "null" && s.Nullable
		if !ok {
			*errs = append(*errs, typeInvalid(path, t, fmt.Sprintf("%s in body must be of type %s: %q", path, strings.Join(types, ","), t)))
			v.enum(errs, path, x, s)
			return
		}
	}
	switch x := x.(type) {
	case nil:
		// nullable, or without a type; only an enum can refuse it.
	case string:
		v.validateString(errs, path, x, s)
	case int64, float64, json.Number:
		validateNumber(errs, path, x, s)
	case []any:
		for i, e := range x {
			v.validate(errs, fmt.Sprintf("%s[%d]", path, i), e, s.Items)
		}
		if s.MinItems != nil && int64(len(x)) < *s.MinItems {
			*errs = append(*errs, invalid(path, int64(len(x)), fmt.Sprintf("%s in body should have at least %d items", path, *s.MinItems)))
		}
		if s.MaxItems != nil && int64(len(x)) > *s.MaxItems {
			*errs = append(*errs, status.TooMany(path, len(x), int(*s.MaxItems)))
		}
		if s.UniqueItems && hasDuplicates(x) {
			*errs = append(*errs, invalid(path, "", path+" in body shouldn't contain duplicates"))
		}
	}
	v.enum(errs, path, x, s)
	if m, ok := x.(map[string]any); ok {
		v.validateMap(errs, path, m, s)
	}
}

func isIntegral(x any) bool {
	f, ok := x.(float64)
	return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
}

// enum checks x against s.Enum: Kubernetes reports the values as
// strings, non-strings in their JSON form.
func (v *validator) enum(errs *[]status.FieldError, path string, x any, s *JSONSchemaProps) {
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
	*errs = append(*errs, status.NotSupported(path, x, values...))
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
func (v *validator) validateString(errs *[]status.FieldError, path, x string, s *JSONSchemaProps) {
	n := int64(len([]rune(x)))
	switch {
	case s.MaxLength != nil && n > *s.MaxLength:
		*errs = append(*errs, status.TooLong(path, int(*s.MaxLength)))
	case s.MinLength != nil && n < *s.MinLength:
		*errs = append(*errs, invalid(path, x, fmt.Sprintf("%s in body should be at least %d chars long", path, *s.MinLength)))
	case s.Pattern != "" && !v.match(s.Pattern, x):
		*errs = append(*errs, invalid(path, x, fmt.Sprintf("%s in body should match '%s'", path, s.Pattern)))
	}
	if s.Format != "" && !validFormat(s.Format, x) {
		*errs = append(*errs, typeInvalid(path, x, fmt.Sprintf("%s in body must be of type %s: %q", path, s.Format, x)))
	}
}

func (v *validator) match(pattern, x string) bool {
	re := v.patterns[pattern]
	if re == nil {
		var err error
		if re, err = regexp.Compile(pattern); err != nil {
			return true // refused when the CRD was created
		}
	}
	return re.MatchString(x)
}

// validateNumber checks multipleOf, then the bounds.
func validateNumber(errs *[]status.FieldError, path string, x any, s *JSONSchemaProps) {
	f, _ := number(x)
	if m := s.MultipleOf; m != nil && *m > 0 {
		if q := f / *m; q != math.Trunc(q) {
			*errs = append(*errs, invalid(path, x, fmt.Sprintf("%s in body should be a multiple of %v", path, bound(*m, x))))
		}
	}
	if m := s.Minimum; m != nil {
		if s.ExclusiveMinimum && f <= *m {
			*errs = append(*errs, invalid(path, x, fmt.Sprintf("%s in body should be greater than %v", path, bound(*m, x))))
		} else if !s.ExclusiveMinimum && f < *m {
			*errs = append(*errs, invalid(path, x, fmt.Sprintf("%s in body should be greater than or equal to %v", path, bound(*m, x))))
		}
	}
	if m := s.Maximum; m != nil {
		if s.ExclusiveMaximum && f >= *m {
			*errs = append(*errs, invalid(path, x, fmt.Sprintf("%s in body should be less than %v", path, bound(*m, x))))
		} else if !s.ExclusiveMaximum && f > *m {
			*errs = append(*errs, invalid(path, x, fmt.Sprintf("%s in body should be less than or equal to %v", path, bound(*m, x))))
		}
	}
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
func (v *validator) validateMap(errs *[]status.FieldError, path string, m map[string]any, s *JSONSchemaProps) {
	if s.MinProperties != nil && int64(len(m)) < *s.MinProperties {
		*errs = append(*errs, invalid(path, int64(len(m)), fmt.Sprintf("%s in body should have at least %d properties", path, *s.MinProperties)))
		return
	}
	if s.MaxProperties != nil && int64(len(m)) > *s.MaxProperties {
		*errs = append(*errs, status.TooMany(path, len(m), int(*s.MaxProperties)))
		return
	}
	if s.XEmbeddedResource {
		for _, k := range []string{"apiVersion", "kind"} {
			if str, _ := m[k].(string); str == "" {
				*errs = append(*errs, status.Required(child(path, k), "must not be empty"))
			}
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		for _, k := range keys {
			if _, known := s.Properties[k]; !known {
				v.validate(errs, path+"."+k, m[k], ap.Schema)
			}
		}
	}
	for _, k := range keys {
		if p, ok := s.Properties[k]; ok {
			v.validate(errs, child(path, k), m[k], &p)
		}
	}
	for _, k := range s.Required {
		if _, ok := m[k]; !ok {
			*errs = append(*errs, status.Required(child(path, k), ""))
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
	durationRe = regexp.MustCompile(`^(\s*[-+]?\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?))+\s*$`)
	hexColorRe = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
	rgbColorRe = regexp.MustCompile(`^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$`)
	emailRe    = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
)

// dateTimeLayouts are the layouts kube-openapi's date-time accepts.
var dateTimeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.000Z07:00", "2006-01-02T15:04:05.000000Z07:00",
	"2006-01-02T15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02T15:04:05.999999999",
}

func validFormat(format, x string) bool {
	switch format {
	case "byte":
		_, err := base64.StdEncoding.DecodeString(x)
		return err == nil
	case "date":
		_, err := time.Parse("2006-01-02", x)
		return err == nil
	case "date-time", "datetime":
		for _, l := range dateTimeLayouts {
			if _, err := time.Parse(l, x); err == nil {
				return true
			}
		}
		return false
	case "duration":
		if _, err := time.ParseDuration(x); err == nil {
			return true
		}
		return durationRe.MatchString(x)
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

// preserves reports whether s keeps fields it does not name.
func preserves(s *JSONSchemaProps) bool {
	return s != nil && s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

// prune drops from x the object members s does not know, as Kubernetes'
// structural pruning does (k8s.io/apiextensions-apiserver
// pkg/apiserver/schema/pruning), and appends their paths to pruned.
// At the resource root and in embedded resources, apiVersion, kind and
// metadata are kept.
func prune(x any, s *JSONSchemaProps, path string, resource bool, pruned *[]string) {
	switch x := x.(type) {
	case map[string]any:
		if s != nil && s.XIntOrString {
			return
		}
		for k, val := range x {
			if (resource || s != nil && s.XEmbeddedResource) && (k == "apiVersion" || k == "kind" || k == "metadata") {
				continue
			}
			p := childPath(path, k)
			var ps *JSONSchemaProps
			if s != nil {
				if prop, ok := s.Properties[k]; ok {
					ps = &prop
				} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
					ps = s.AdditionalProperties.Schema
				}
			}
			if ps == nil {
				if !preserves(s) {
					delete(x, k)
					*pruned = append(*pruned, p)
					continue
				}
				// Preserved members are kept whole; what is below them
				// is not the schema's.
				continue
			}
			prune(val, ps, p, false, pruned)
		}
	case []any:
		var items *JSONSchemaProps
		if s != nil {
			items = s.Items
		}
		if items == nil {
			return
		}
		for i, e := range x {
			prune(e, items, fmt.Sprintf("%s[%d]", path, i), false, pruned)
		}
	}
}

func childPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// applyDefaults sets the defaults of s in x where members are missing (or
// null and not nullable), as Kubernetes' structural defaulting does, then
// recurses into what is there.
func applyDefaults(x any, s *JSONSchemaProps) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[k]
			if p.Default == nil {
				continue
			}
			if v, ok := x[k]; !ok || v == nil && !p.Nullable {
				x[k] = copyValue(p.Default)
			}
		}
		for k, v := range x {
			if p, ok := s.Properties[k]; ok {
				applyDefaults(v, &p)
			} else if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				ap := s.AdditionalProperties.Schema
				if v == nil && ap.Default != nil && !ap.Nullable {
					x[k] = copyValue(ap.Default)
					v = x[k]
				}
				applyDefaults(v, ap)
			}
		}
	case []any:
		if s.Items == nil {
			return
		}
		for i, e := range x {
			if e == nil && s.Items.Default != nil && !s.Items.Nullable {
				x[i] = copyValue(s.Items.Default)
				e = x[i]
			}
			applyDefaults(e, s.Items)
		}
	}
}

// pruneNulls drops null members that are neither nullable nor defaulted,
// as Kubernetes does before validating (PruneNonNullableNullsWithoutDefaults).
func pruneNulls(x any, s *JSONSchemaProps) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		for k, v := range x {
			ps := s.AdditionalProperties.schema()
			if p, ok := s.Properties[k]; ok {
				ps = &p
			}
			if ps == nil {
				continue
			}
			if v == nil && !ps.Nullable && ps.Default == nil {
				delete(x, k)
				continue
			}
			pruneNulls(v, ps)
		}
	case []any:
		for _, e := range x {
			pruneNulls(e, s.Items)
		}
	}
}

func (s *SchemaOrBool) schema() *JSONSchemaProps {
	if s == nil {
		return nil
	}
	return s.Schema
}

// copyValue deep-copies a decoded JSON value.
func copyValue(x any) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = copyValue(v)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = copyValue(v)
		}
		return out
	}
	return x
}
