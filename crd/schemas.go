package crd

import (
	"encoding/json"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/status"
)

// checkSchema is the errors of a definition's schema v at path (such as
// "spec.validation"), whose resource serves the status subresource when
// statusEnabled is set (schema.Check).
func checkSchema(path string, v *CustomResourceValidation, statusEnabled bool) []status.FieldError {
	if v == nil {
		return nil
	}
	return schema.Check(path+".openAPIV3Schema", v.OpenAPIV3Schema, statusEnabled)
}

// validateSelectableFields checks the selectable fields of a version, or
// of all, at p, against their schema s (schema.CheckSelectableFields).
func validateSelectableFields(p string, fields []SelectableField, s *schema.JSONSchemaProps) []status.FieldError {
	paths := make([]string, len(fields))
	for i, f := range fields {
		paths[i] = f.JSONPath
	}
	return schema.CheckSelectableFields(p, paths, s)
}

// jsonEqual reports whether a and b encode to the same JSON, which is
// how Kubernetes' semantic equality compares the parts of versions
// (empty lists and maps equal missing ones).
func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}
