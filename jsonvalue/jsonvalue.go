package jsonvalue

import (
	"encoding/json"
	"fmt"
	"strings"

	kjson "sigs.k8s.io/json"
)

// path is fields as Kubernetes prints it in its messages: ".spec.replicas".
func path(fields []string) string { return "." + strings.Join(fields, ".") }

// NestedField returns the value at fields in obj, not a copy. found is
// false when a member on the way, or the value, is missing, or a member
// on the way is null; it is an error when a member on the way is not an
// object.
func NestedField(obj map[string]any, fields ...string) (v any, found bool, err error) {
	v = obj
	for i, f := range fields {
		if v == nil {
			return nil, false, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s accessor error: %v is of the type %T, expected map[string]interface{}", path(fields[:i+1]), v, v)
		}
		if v, ok = m[f]; !ok {
			return nil, false, nil
		}
	}
	return v, true, nil
}

// nested is NestedField's value as a T, an error when it is of another
// type (named as Kubernetes names it).
func nested[T any](obj map[string]any, fields []string, typeName string) (T, bool, error) {
	var zero T
	v, found, err := NestedField(obj, fields...)
	if !found || err != nil {
		return zero, found, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, false, fmt.Errorf("%s accessor error: %v is of the type %T, expected %s", path(fields), v, v, typeName)
	}
	return t, true, nil
}

// NestedString returns the string at fields in obj (see NestedField); it
// is an error when the value is not a string.
func NestedString(obj map[string]any, fields ...string) (string, bool, error) {
	return nested[string](obj, fields, "string")
}

// NestedInt64 returns the integer at fields in obj (see NestedField); it
// is an error when the value is not an int64 (a number with a fraction,
// or beyond int64, decodes as a float64).
func NestedInt64(obj map[string]any, fields ...string) (int64, bool, error) {
	return nested[int64](obj, fields, "int64")
}

// NestedFloat64 returns the float64 at fields in obj (see NestedField);
// it is an error when the value is not a float64 (integers decode as
// int64).
func NestedFloat64(obj map[string]any, fields ...string) (float64, bool, error) {
	return nested[float64](obj, fields, "float64")
}

// NestedBool returns the boolean at fields in obj (see NestedField); it
// is an error when the value is not a boolean.
func NestedBool(obj map[string]any, fields ...string) (bool, bool, error) {
	return nested[bool](obj, fields, "bool")
}

// NestedMap returns the object at fields in obj, not a copy (see
// NestedField); it is an error when the value is not an object.
func NestedMap(obj map[string]any, fields ...string) (map[string]any, bool, error) {
	return nested[map[string]any](obj, fields, "map[string]interface{}")
}

// NestedSlice returns the array at fields in obj, not a copy (see
// NestedField); it is an error when the value is not an array.
func NestedSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	return nested[[]any](obj, fields, "[]interface{}")
}

// SetNestedField sets the value at fields in obj to value, itself, not a
// copy, making the objects on the way that are missing. It is an error
// when one on the way exists and is not an object (null included), or
// fields is empty.
func SetNestedField(obj map[string]any, value any, fields ...string) error {
	if len(fields) == 0 {
		return fmt.Errorf("jsonvalue: SetNestedField needs a field")
	}
	m := obj
	for i, f := range fields[:len(fields)-1] {
		next, ok := m[f]
		if !ok {
			n := map[string]any{}
			m[f], m = n, n
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("value cannot be set because %s is not a map[string]interface{}", path(fields[:i+1]))
		}
	}
	m[fields[len(fields)-1]] = value
	return nil
}

// DeepCopy returns a copy of v sharing no object or array with it. Any
// other value is returned as it is: JSON's strings, numbers, booleans and
// null do not change, and a value of another Go type (which no JSON
// decoder makes) is shared, not copied.
func DeepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return DeepCopyMap(v)
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}

// DeepCopyMap is DeepCopy of an object; nil stays nil.
func DeepCopyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = DeepCopy(v)
	}
	return out
}

// MapOf returns v, a Go value that encodes as a JSON object (a struct
// such as meta.ObjectMeta, say), as a decoded object: what Kubernetes
// keeps of it in an unstructured object, integers as int64, written back
// with its members sorted.
func MapOf(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}
