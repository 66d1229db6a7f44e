package crd

import (
	"strconv"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Options configure the definitions resource and its controller. The
// zero value serves definitions without evaluating validation rules.
type Options struct {
	// Rules compiles and evaluates the x-kubernetes-validations (CEL)
	// rules of the schemas. Nil keeps the rules (they are stored and
	// published in OpenAPI) without evaluating them. The module
	// github.com/apisem/apisem/crd/cel implements it with cel-go, kept out
	// of this module's dependencies.
	Rules RuleCompiler
	// Peers are the other servers on the same storage, whose controllers
	// must serve a definition before it is Established (see Peers). Nil
	// means none: one server.
	Peers Peers
}

// A RuleCompiler compiles the validation rules of a version's schema.
type RuleCompiler interface {
	// Compile compiles the rules of the structural schema root, the
	// openAPIV3Schema found at path in a CustomResourceDefinition (such as
	// "spec.versions[0].schema.openAPIV3Schema"). Problems with the rules
	// are field errors under path, which make Kubernetes refuse the
	// definition with a 422; the validator is then nil.
	Compile(path string, root *JSONSchemaProps) (RuleValidator, []status.FieldError)
}

// A RuleValidator evaluates compiled rules against a custom resource.
type RuleValidator interface {
	// Validate evaluates the rules against obj, the whole custom resource
	// as decoded JSON (as server.Unstructured holds it), and old, its
	// previous version on update (nil on create), within Kubernetes' cost
	// limits. The errors carry Kubernetes' paths and messages.
	Validate(obj, old map[string]any) []status.FieldError
}

// Resource returns the description of the customresourcedefinitions
// resource configured by o (see the package function Resource).
func (o Options) Resource() *server.Resource {
	r := Resource()
	if o.Rules != nil {
		r.Validate = func(obj, old server.Object) []status.FieldError {
			errs := validateDefinition(obj, old)
			return append(errs, compileRules(o.Rules, obj.(*CustomResourceDefinition))...)
		}
	}
	return r
}

// Start starts the controller configured by o (see the package function
// Start); give it the same Options as the definitions resource defs.
func (o Options) Start(s *server.Server, defs *server.Resource) *Controller {
	return start(s, defs, o)
}

// compileRules is the field errors of the rules of every version of c.
func compileRules(rc RuleCompiler, c *CustomResourceDefinition) []status.FieldError {
	var errs []status.FieldError
	for i, v := range c.Spec.Versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		_, e := rc.Compile(versionSchemaPath(i), v.Schema.OpenAPIV3Schema)
		errs = append(errs, e...)
	}
	return errs
}

func versionSchemaPath(i int) string {
	return "spec.versions[" + strconv.Itoa(i) + "].schema.openAPIV3Schema"
}

// blocking reports whether errs hold an error after which Kubernetes
// skips the validation rules: a value of the wrong type, a missing
// required field, an unsupported enum value, or a string or list over
// its limit (k8s.io/apiextensions-apiserver pkg/registry/customresource,
// hasBlockingErr).
func blocking(errs []status.FieldError) bool {
	for _, e := range errs {
		switch e.Type {
		case status.CauseTypeFieldValueNotSupported, status.CauseTypeFieldValueRequired,
			status.CauseTypeFieldValueTooLong, status.CauseTypeFieldValueTooMany,
			status.CauseTypeFieldValueTypeInvalid:
			return true
		}
	}
	return false
}

// rulesNotChecked is the error Kubernetes adds in place of the rules'
// errors when the object already has a blocking error.
var rulesNotChecked = status.InvalidValue("<nil>", nil,
	"some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")

// fullObject is u as the rules see it: its content with apiVersion, kind
// and, of its metadata, the name and generateName, which are all that
// Kubernetes declares to CEL (model.WithTypeAndObjectMeta).
// apiVersion and kind are the resource's, which stored objects may not
// carry.
func fullObject(u *server.Unstructured, apiVersion, kind string) map[string]any {
	obj := make(map[string]any, len(u.Content)+3)
	for k, v := range u.Content {
		obj[k] = v
	}
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	m := map[string]any{}
	if u.Name != "" {
		m["name"] = u.Name
	}
	if u.GenerateName != "" {
		m["generateName"] = u.GenerateName
	}
	obj["metadata"] = m
	return obj
}

// fullObjectOrNil is fullObject of old, or nil on create.
func fullObjectOrNil(old server.Object, apiVersion, kind string) map[string]any {
	u, _ := old.(*server.Unstructured)
	if u == nil {
		return nil
	}
	return fullObject(u, apiVersion, kind)
}
