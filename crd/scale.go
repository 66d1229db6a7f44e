package crd

import (
	"fmt"
	"math"
	"strings"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/scale"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// The scale subresource reads and writes the members its paths name the
// way Kubernetes does (k8s.io/apimachinery's unstructured Nested
// helpers, which package jsonvalue follows), with their messages:
// `.spec.replicas accessor error: x is of the type string, expected int64`.

// splitPath splits a scale path (".spec.replicas") into member names.
func splitPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "."), ".") }

// scaleSubresource serves the Scale view of sc's paths.
func scaleSubresource(sc *CustomResourceSubresourceScale) *server.ScaleSubresource {
	spec, stat := splitPath(sc.SpecReplicasPath), splitPath(sc.StatusReplicasPath)
	var sel []string
	if sc.LabelSelectorPath != nil && *sc.LabelSelectorPath != "" {
		sel = splitPath(*sc.LabelSelectorPath)
	}
	return &server.ScaleSubresource{
		SpecReplicasPath: sc.SpecReplicasPath,
		Get: func(o server.Object) (scale.Spec, scale.Status, bool, error) {
			c := o.(*server.Unstructured).Content
			want, found, err := jsonvalue.NestedInt64(c, spec...)
			if err != nil {
				return scale.Spec{}, scale.Status{}, false, err
			}
			have, _, err := jsonvalue.NestedInt64(c, stat...)
			if err != nil {
				return scale.Spec{}, scale.Status{}, false, err
			}
			var selector string
			if sel != nil {
				if selector, _, err = jsonvalue.NestedString(c, sel...); err != nil {
					return scale.Spec{}, scale.Status{}, false, err
				}
			}
			// Kubernetes truncates to int32; validation keeps stored
			// values in range.
			return scale.Spec{Replicas: int32(want)}, scale.Status{Replicas: int32(have), Selector: selector}, found, nil
		},
		Set: func(o server.Object, replicas int32) error {
			u := o.(*server.Unstructured)
			if u.Content == nil {
				u.Content = map[string]any{}
			}
			return jsonvalue.SetNestedField(u.Content, int64(replicas), spec...)
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
		n, _, err := jsonvalue.NestedInt64(content, splitPath(path)...)
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
		if s, _, err := jsonvalue.NestedString(content, splitPath(*p)...); err != nil {
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
