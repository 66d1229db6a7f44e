package crd

import (
	"fmt"
	"math"
	"strings"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// The scale subresource reads and writes the members its paths name the
// way Kubernetes does (k8s.io/apimachinery's unstructured Nested
// helpers), with their messages: `.spec.replicas accessor error: x is of
// the type string, expected int64`.

// splitPath splits a scale path (".spec.replicas") into member names.
func splitPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

// dotted is the path of fields as Kubernetes prints it.
func dotted(fields []string) string { return "." + strings.Join(fields, ".") }

// nested returns the value at fields in obj; found is false when a member
// on the way is missing or null.
func nested(obj map[string]any, fields []string) (v any, found bool, err error) {
	v = obj
	for i, f := range fields {
		if v == nil {
			return nil, false, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false, fmt.Errorf("%s accessor error: %v is of the type %T, expected map[string]interface{}", dotted(fields[:i+1]), v, v)
		}
		if v, ok = m[f]; !ok {
			return nil, false, nil
		}
	}
	return v, true, nil
}

func nestedInt64(obj map[string]any, fields []string) (int64, bool, error) {
	v, found, err := nested(obj, fields)
	if !found || err != nil {
		return 0, found, err
	}
	i, ok := v.(int64)
	if !ok {
		return 0, false, fmt.Errorf("%s accessor error: %v is of the type %T, expected int64", dotted(fields), v, v)
	}
	return i, true, nil
}

func nestedString(obj map[string]any, fields []string) (string, bool, error) {
	v, found, err := nested(obj, fields)
	if !found || err != nil {
		return "", found, err
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("%s accessor error: %v is of the type %T, expected string", dotted(fields), v, v)
	}
	return s, true, nil
}

// setNested sets the value at fields in obj, making the objects on the
// way that are missing.
func setNested(obj map[string]any, v any, fields []string) error {
	m := obj
	for i, f := range fields[:len(fields)-1] {
		next, ok := m[f]
		if !ok {
			n := map[string]any{}
			m[f] = n
			m = n
			continue
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("value cannot be set because %s is not a map[string]interface{}", dotted(fields[:i+1]))
		}
	}
	m[fields[len(fields)-1]] = v
	return nil
}

// scaleSubresource serves the Scale view of sc's paths.
func scaleSubresource(sc *CustomResourceSubresourceScale) *server.ScaleSubresource {
	spec, stat := splitPath(sc.SpecReplicasPath), splitPath(sc.StatusReplicasPath)
	var sel []string
	if sc.LabelSelectorPath != nil && *sc.LabelSelectorPath != "" {
		sel = splitPath(*sc.LabelSelectorPath)
	}
	return &server.ScaleSubresource{
		SpecReplicasPath: sc.SpecReplicasPath,
		Get: func(o server.Object) (server.ScaleSpec, server.ScaleStatus, bool, error) {
			c := o.(*server.Unstructured).Content
			want, found, err := nestedInt64(c, spec)
			if err != nil {
				return server.ScaleSpec{}, server.ScaleStatus{}, false, err
			}
			have, _, err := nestedInt64(c, stat)
			if err != nil {
				return server.ScaleSpec{}, server.ScaleStatus{}, false, err
			}
			var selector string
			if sel != nil {
				if selector, _, err = nestedString(c, sel); err != nil {
					return server.ScaleSpec{}, server.ScaleStatus{}, false, err
				}
			}
			// Kubernetes truncates to int32; validation keeps stored
			// values in range.
			return server.ScaleSpec{Replicas: int32(want)}, server.ScaleStatus{Replicas: int32(have), Selector: selector}, found, nil
		},
		Set: func(o server.Object, replicas int32) error {
			u := o.(*server.Unstructured)
			if u.Content == nil {
				u.Content = map[string]any{}
			}
			return setNested(u.Content, int64(replicas), spec)
		},
	}
}

// validateScale checks the members the scale paths name, as Kubernetes
// validates a custom resource with the scale subresource: the replicas
// must be integers from 0 to 2^31-1 (or missing), the selector a string.
// The fields are the paths as the definition writes them.
func validateScale(content map[string]any, sc *CustomResourceSubresourceScale) []status.FieldError {
	if sc == nil {
		return nil
	}
	var errs []status.FieldError
	replicas := func(path string) {
		n, _, err := nestedInt64(content, splitPath(path))
		switch {
		case err != nil:
			errs = append(errs, status.InvalidValue(path, n, err.Error()))
		case n < 0:
			errs = append(errs, status.InvalidValue(path, n, "should be a non-negative integer"))
		case n > math.MaxInt32:
			errs = append(errs, status.InvalidValue(path, n, fmt.Sprintf("should be less than or equal to %d", math.MaxInt32)))
		}
	}
	replicas(sc.SpecReplicasPath)
	replicas(sc.StatusReplicasPath)
	if p := sc.LabelSelectorPath; p != nil {
		if s, _, err := nestedString(content, splitPath(*p)); err != nil {
			errs = append(errs, status.InvalidValue(*p, s, err.Error()))
		}
	}
	return errs
}

// validateScalePaths checks the paths of a version's scale subresource
// with Kubernetes' messages.
func validateScalePaths(p string, sc *CustomResourceSubresourceScale) []status.FieldError {
	var errs []status.FieldError
	check := func(field, path string, under ...string) {
		fp := p + ".scale." + field
		switch {
		case path == "":
			// labelSelectorPath is optional; the others are required.
			if len(under) == 1 {
				errs = append(errs, status.Required(fp, ""))
			}
		case path[0] != '.':
			errs = append(errs, status.InvalidValue(fp, path, "must be a simple json path starting with ."))
		case !strings.HasPrefix(path, under[0]) && (len(under) == 1 || !strings.HasPrefix(path, under[1])):
			msg := "should be a json path under " + under[0][:len(under[0])-1]
			if len(under) == 2 {
				msg = "should be a json path under either .spec or .status"
			}
			errs = append(errs, status.InvalidValue(fp, path, msg))
		}
	}
	check("specReplicasPath", sc.SpecReplicasPath, ".spec.")
	check("statusReplicasPath", sc.StatusReplicasPath, ".status.")
	if sc.LabelSelectorPath != nil {
		check("labelSelectorPath", *sc.LabelSelectorPath, ".spec.", ".status.")
	}
	return errs
}
