package schema

import "github.com/apisem/apisem/status"

// A RuleCompiler checks and compiles the validation rules of a version's
// schema. Kubernetes does both with its own code: it checks the rules when
// a definition is written, and compiles them when it serves it.
type RuleCompiler interface {
	// Check returns the problems Kubernetes finds with the rules of the
	// structural schema root when a definition holding it is written, as
	// field errors under path, where the schema is in the definition
	// (such as "spec.versions[0].schema.openAPIV3Schema"); they make
	// Kubernetes refuse the definition with a 422.
	Check(path string, root *JSONSchemaProps) []status.FieldError
	// Compile compiles the rules of root for validating objects. The
	// Validator is nil when root has no rules. It does not repeat
	// Check's checks, which the definition passed when it was written.
	// Package crd compiles a served version's rules once, on the first
	// write that evaluates them (as kube-apiserver compiles them on the
	// first request), concurrently with other versions' compilations.
	Compile(root *JSONSchemaProps) (RuleValidator, error)
}

// A RuleValidator evaluates compiled rules against a custom resource.
type RuleValidator interface {
	// Validate evaluates the rules against obj, the whole custom resource
	// as decoded JSON (as server.Unstructured holds it, with apiVersion,
	// kind and metadata), and old, its previous version on update (nil
	// on create), within Kubernetes' cost limits. The errors carry
	// Kubernetes' paths and messages.
	Validate(obj, old map[string]any) []status.FieldError
}
