package crd

import (
	"strconv"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Options configure the definitions resource and its controller. The
// zero value serves definitions without evaluating validation rules.
type Options struct {
	// Rules compiles and evaluates the x-kubernetes-validations (CEL)
	// rules of the schemas. Nil keeps the rules (they are stored and
	// published in OpenAPI) without evaluating them. The module
	// github.com/apisem/apisem/crd/cel implements it with Kubernetes' own
	// code (k8s.io/apiextensions-apiserver), kept out of this module's
	// dependencies.
	Rules RuleCompiler
	// Peers are the other servers on the same storage, whose controllers
	// must serve a definition before it is Established (see Peers). Nil
	// means none: one server.
	Peers Peers
}

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
	// validator is nil when root has no rules. It does not repeat
	// Check's checks, which the definition passed when it was written.
	// A served version's rules are compiled once, on the first write
	// that evaluates them (as kube-apiserver compiles them on the first
	// request), concurrently with other versions' compilations.
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

// Resource returns the description of the customresourcedefinitions
// resource configured by o (see the package function Resource).
func (o Options) Resource() *server.Resource {
	r := Resource()
	if o.Rules != nil {
		r.Warnings = nil
		r.Validate = func(obj, old server.Object) []status.FieldError {
			oldDef, _ := old.(*CustomResourceDefinition)
			return definitionErrors(o.Rules, obj.(*CustomResourceDefinition), oldDef)
		}
	}
	return r
}

// Start starts the controller configured by o (see the package function
// Start); give it the same Options as the definitions resource defs.
func (o Options) Start(s *server.Server, defs *server.Resource) *Controller {
	return start(s, defs, o)
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

// fullObject is u as the rules see it, as Kubernetes holds a custom
// resource: its content with apiVersion, kind and metadata. apiVersion
// and kind are the resource's, which stored objects may not carry. The
// rules can read only metadata.name and metadata.generateName
// (Kubernetes' model.WithTypeAndObjectMeta), but the whole metadata
// counts when comparing objects (self == oldSelf at the root) and
// deciding whether an unchanged object's errors ratchet.
func fullObject(u *server.Unstructured, apiVersion, kind string) map[string]any {
	obj := make(map[string]any, len(u.Content)+3)
	for k, v := range u.Content {
		obj[k] = v
	}
	obj["apiVersion"], obj["kind"] = apiVersion, kind
	obj["metadata"] = metadataMap(&u.ObjectMeta)
	return obj
}

// metadataMap is m as decoded JSON.
func metadataMap(m *meta.ObjectMeta) map[string]any {
	out, err := jsonvalue.MapOf(m)
	if err != nil {
		// ObjectMeta always encodes; keep what the rules can read.
		out = map[string]any{}
		if m.Name != "" {
			out["name"] = m.Name
		}
		if m.GenerateName != "" {
			out["generateName"] = m.GenerateName
		}
	}
	return out
}

// fullObjectOrNil is fullObject of old, or nil on create.
func fullObjectOrNil(old server.Object, apiVersion, kind string) map[string]any {
	u, _ := old.(*server.Unstructured)
	if u == nil {
		return nil
	}
	return fullObject(u, apiVersion, kind)
}

// RulesNotEnforced is the Warning a create or update of a definition
// with x-kubernetes-validations rules gets from a definitions resource
// without a rule compiler (Resource, or Options.Resource without
// Options.Rules): its rules are kept and published, but objects are not
// checked against them.
const RulesNotEnforced = "x-kubernetes-validations rules are not enforced by this server (it has no CEL rule compiler); objects are stored without being checked against them"

// rulesWarnings warns that the rules of a definition are not enforced.
func rulesWarnings(obj, _ server.Object) []string {
	for _, v := range obj.(*CustomResourceDefinition).Spec.Versions {
		if v.Schema == nil {
			continue
		}
		found := false
		walkSchema(v.Schema.OpenAPIV3Schema, func(s *JSONSchemaProps) { found = found || len(s.XValidations) > 0 })
		if found {
			return []string{RulesNotEnforced}
		}
	}
	return nil
}
