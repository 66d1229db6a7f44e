package namespace

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/table"
	"github.com/apisem/apisem/validation"
)

// verbs are the verbs a cluster serves for namespaces: all but
// deletecollection.
var verbs = []string{"create", "delete", "get", "list", "patch", "update", "watch"}

const (
	specSchema      = "io.k8s.api.core.v1.NamespaceSpec"
	statusSchema    = "io.k8s.api.core.v1.NamespaceStatus"
	conditionSchema = "io.k8s.api.core.v1.NamespaceCondition"
)

func str(desc string) *openapi.Schema { return &openapi.Schema{Type: "string", Description: desc} }

// The OpenAPI schema of Namespace: the fields, formats and Kubernetes
// extensions a cluster publishes, with descriptions of our own.
func openAPI() (*openapi.Schema, map[string]*openapi.Schema) {
	return &openapi.Schema{Type: "object",
			Description: "Namespace is a scope for names.",
			Properties: map[string]*openapi.Schema{
				"spec":   {Ref: specSchema, Default: map[string]any{}, Description: "The desired state of the namespace."},
				"status": {Ref: statusSchema, Default: map[string]any{}, Description: "The observed state of the namespace."},
			}}, map[string]*openapi.Schema{
			specSchema: {Type: "object",
				Description: "NamespaceSpec holds the namespace's finalizers.",
				Properties: map[string]*openapi.Schema{
					"finalizers": {Type: "array", ListType: "atomic", Items: &openapi.Schema{Type: "string", Default: ""},
						Description: "Finalizers that must be gone before the namespace is removed; \"kubernetes\" while it has content."},
				}},
			statusSchema: {Type: "object",
				Description: "NamespaceStatus is the observed state of a namespace.",
				Properties: map[string]*openapi.Schema{
					"conditions": {Type: "array", ListType: "map", ListMapKeys: []string{"type"},
						PatchStrategy: "merge", PatchMergeKey: "type",
						Description: "The latest observations of the namespace's state.",
						Items:       &openapi.Schema{Ref: conditionSchema, Default: map[string]any{}}},
					"phase": {Type: "string", Enum: []string{PhaseActive, PhaseTerminating},
						Description: "Active, or Terminating while the namespace is being deleted."},
				}},
			conditionSchema: {Type: "object",
				Description: "NamespaceCondition is one observation of a namespace's state.",
				Required:    []string{"type", "status"},
				Properties: map[string]*openapi.Schema{
					"lastTransitionTime": {Ref: openapi.TimeSchema, Description: "When the condition last changed status."},
					"message":            str("A human-readable description of the condition."),
					"reason":             str("A CamelCase reason for the condition."),
					"status":             {Type: "string", Default: "", Description: "True, False or Unknown."},
					"type":               {Type: "string", Default: "", Description: "The type of the condition."},
				}},
		}
}

// Resource returns core v1 namespaces as a cluster serves them:
// cluster-scoped, DNS-label names, the name label, a new namespace Active
// with the kubernetes finalizer, the status subresource (status written
// through the namespace itself is kept as it was, so such a write changes
// nothing and records no field ownership), no deletecollection, the
// status.phase field selector and kubectl's columns. Deletion is the
// store's; Lifecycle.Resource adds the two-phase deletion. Each call
// returns a new value the caller may keep.
func Resource() *server.Resource {
	schema, defs := openAPI()
	return &server.Resource{
		Version: "v1", Kind: "Namespace", ListKind: "NamespaceList",
		Plural: "namespaces", Singular: "namespace", ShortNames: []string{"ns"},
		Schema: schema, Definitions: defs,
		Names:             validation.NameIsDNSLabel,
		StatusSubresource: true,
		// PUT of finalize sets spec.finalizers (prepare).
		UpdateSubresources: []string{Finalize},
		Verbs:              slices.Clone(verbs),
		New:                func() server.Object { return &Namespace{} },
		DecodeProto:        DecodeProto,
		Columns: []table.Column{table.NameColumn,
			{Name: "Status", Type: "string", Description: "The phase of the namespace: Active, or Terminating while it is being deleted.",
				Cell: func(o meta.Object, _ time.Time) any { return o.(*Namespace).Status.Phase }},
			table.AgeColumn},
		PatchSchema: &patch.Schema{Fields: map[string]*patch.Schema{
			"metadata": patch.ObjectMetaSchema(),
			"status": {Fields: map[string]*patch.Schema{
				"conditions": {MergeList: true, MergeKey: "type"},
			}},
		}},
		Fields: map[string]func(server.Object) string{
			"status.phase": func(o server.Object) string { return o.(*Namespace).Status.Phase },
		},
		Finalizers: func(o server.Object) bool { return len(o.(*Namespace).Spec.Finalizers) > 0 },
		Default:    setDefaults,
		Prepare:    prepare,
		Validate:   validate,
		// Each distinct error once, as kube-apiserver reports a built-in
		// kind's (a bad label is checked as a create's and as an
		// update's metadata).
		DistinctErrors: true,
	}
}

// setDefaults sets the name label, as Kubernetes' defaulting of Namespace
// does on every write.
func setDefaults(o server.Object) {
	m := o.Meta()
	if m.Name == "" {
		return
	}
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[NameLabel] = m.Name
}

// prepare applies Kubernetes' namespace strategies: a new namespace is
// Active with the finalizers it names and kubernetes; an update through
// the main resource cannot change spec.finalizers, a write of the
// finalize subresource can (and keeps the status, as the server keeps it
// on every write but status's).
func prepare(o, old server.Object) {
	n := o.(*Namespace)
	if old == nil {
		// The client's finalizers and kubernetes, as Kubernetes' strategy
		// keeps them.
		if !slices.Contains(n.Spec.Finalizers, FinalizerKubernetes) {
			n.Spec.Finalizers = append(n.Spec.Finalizers, FinalizerKubernetes)
		}
		n.Status = Status{Phase: PhaseActive}
		return
	}
	if n.subresource != Finalize {
		n.Spec.Finalizers = slices.Clone(old.(*Namespace).Spec.Finalizers)
	}
}

// validate checks the spec.finalizers of a new namespace as Kubernetes'
// ValidateNamespace does (each a qualified name, and one without a '/' a
// standard finalizer, every error naming the list), and those a write of
// finalize sets. Another update keeps the stored finalizers (prepare).
func validate(o, old server.Object) []status.FieldError {
	n := o.(*Namespace)
	switch {
	case old == nil:
		return finalizerErrors("spec.finalizers", n.Spec.Finalizers, false)
	case n.subresource == Finalize:
		// ValidateNamespaceFinalizeUpdate indexes its errors.
		return finalizerErrors("spec.finalizers", n.Spec.Finalizers, true)
	}
	return nil
}

// finalizerErrors validates the names of spec.finalizers at path, each
// error at path or, when indexed, at path[i].
func finalizerErrors(path string, finalizers []string, indexed bool) []status.FieldError {
	var errs []status.FieldError
	for i, f := range finalizers {
		p := path
		if indexed {
			p += "[" + strconv.Itoa(i) + "]"
		}
		for _, msg := range validation.IsQualifiedName(f) {
			errs = append(errs, status.InvalidValue(p, f, msg))
		}
		standard := f == FinalizerKubernetes || f == validation.FinalizerOrphan || f == validation.FinalizerForeground
		if !strings.Contains(f, "/") && !standard {
			errs = append(errs, status.InvalidValue(p, f, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}
