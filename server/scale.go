package server

import (
	"math"
	"strings"
	"time"

	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/scale"
	"github.com/apisem/apisem/table"
)

// scaleObject is the Scale view as the server serves it: a Scale that is
// an Object.
type scaleObject struct{ scale.Scale }

var _ ProtoObject = (*scaleObject)(nil)

// DeepCopyObject returns a copy sharing nothing with s.
func (s *scaleObject) DeepCopyObject() Object { return &scaleObject{*s.DeepCopy()} }

// decodeScaleProto decodes the protobuf encoding of a Scale.
func decodeScaleProto(raw []byte) (Object, error) {
	s, err := scale.DecodeProto(raw)
	if err != nil {
		return nil, err
	}
	return &scaleObject{*s}, nil
}

// ScaleSubresource serves an object's replicas as <name>/scale (get,
// update, patch, server-side apply), as Kubernetes serves a scale
// subresource: a read answers the Scale of the stored object; a write
// changes the object's spec replicas alone, with the object's own
// defaulting and validation, and answers the Scale of the result.
//
// The managedFields of a write are those of the Scale view, mapped to the
// object as Kubernetes maps them (package managedfields, ScaleMapping):
// entries that own the spec replicas own the Scale's spec.replicas, and
// a write's entry, with subresource "scale", owns the object's spec
// replicas. An apply is merged into the Scale view with the Scale type's
// rules and conflicts.
type ScaleSubresource struct {
	// SpecReplicasPath names the spec replicas, such as ".spec.replicas":
	// in messages, and as the field a write's managedFields entry owns.
	SpecReplicasPath string
	// ReplicasPaths are the spec replicas paths of each apiVersion the
	// object's managedFields entries may name, as written in
	// SpecReplicasPath ("" for a version without a scale subresource),
	// when the object is served in several versions; entries of other
	// versions are dropped by a scale write, as Kubernetes drops them.
	// nil means the resource's own version alone, at SpecReplicasPath.
	ReplicasPaths map[string]string
	// Get returns the replicas of obj (which it must not modify): found
	// is false when obj has no spec replicas, which a GET answers with a
	// 500 and a write that sets none with a 400, as Kubernetes does. An
	// error (a value of the wrong type) is a 500 with its text as the
	// message, or a 400 when it is the result of a write.
	Get func(obj Object) (spec scale.Spec, st scale.Status, found bool, err error)
	// Set sets the spec replicas of obj, a copy the server owns.
	Set func(obj Object, replicas int32) error
	// CheckUID makes a write whose Scale names another metadata.uid than
	// the object's a 409 Conflict of "<resource>/scale", as Kubernetes'
	// built-in scale subresources answer a patch or apply of it (an
	// update is refused before, by its storage precondition). Without
	// it the uid is ignored, as for a custom resource.
	CheckUID bool
}

// scaleVerbs are the verbs of the scale subresource, sorted as discovery
// lists them.
var scaleVerbs = []string{"get", "patch", "update"}

// The definitions of autoscaling/v1 Scale, published with every
// resource that has a scale subresource.
const (
	scaleSchemaName   = "io.k8s.api.autoscaling.v1.Scale"
	scaleSpecSchema   = "io.k8s.api.autoscaling.v1.ScaleSpec"
	scaleStatusSchema = "io.k8s.api.autoscaling.v1.ScaleStatus"
)

// scaleGVK is the kind of the Scale view.
var scaleGVK = gvkExt{Group: "autoscaling", Kind: "Scale", Version: "v1"}

// scaleSchema is the Scale's schema, less the apiVersion, kind and
// metadata every object has.
var scaleSchema = &openapi.Schema{Type: "object", Description: "Scale is the number of replicas of a resource that has a scale subresource.",
	Properties: map[string]*openapi.Schema{
		"spec": {Ref: scaleSpecSchema, Default: map[string]any{}, Description: "The wanted number of replicas."},
		"status": {Ref: scaleStatusSchema, Default: map[string]any{},
			Description: "The observed number of replicas and their label selector. Read-only."},
	}}

// scaleDefinitions returns new copies of ScaleSpec and ScaleStatus.
func scaleDefinitions() map[string]*openapi.Schema {
	return map[string]*openapi.Schema{
		scaleSpecSchema: {Type: "object", Description: "ScaleSpec is the wanted state of a scale subresource.",
			Properties: map[string]*openapi.Schema{
				"replicas": {Type: "integer", Format: "int32", Default: 0, Description: "The wanted number of replicas of the scaled object."},
			}},
		scaleStatusSchema: {Type: "object", Description: "ScaleStatus is the observed state of a scale subresource.",
			Required: []string{"replicas"},
			Properties: map[string]*openapi.Schema{
				"replicas": {Type: "integer", Format: "int32", Default: 0, Description: "The observed number of replicas of the scaled object."},
				"selector": str("The label selector of what the replicas count, in the string form of a label selector query parameter."),
			}},
	}
}

// scaleResource describes the Scale objects of res's scale subresource,
// for decoding, encoding and managedFields.
func scaleResource(res *Resource) *Resource {
	return &Resource{
		Group: "autoscaling", Version: "v1", Kind: "Scale", ListKind: "ScaleList",
		Plural: res.Plural, Namespaced: res.Namespaced,
		New:         func() Object { return &scaleObject{} },
		DecodeProto: decodeScaleProto,
		// Scale has no patch strategies: a strategic merge patch (where
		// the object takes one) merges as a merge patch does.
		PatchSchema: &patch.Schema{},
		Schema:      scaleSchema, SchemaName: scaleSchemaName, Definitions: scaleDefinitions(),
		// Kubernetes' default Table columns.
		Columns: []table.Column{table.NameColumn, {Name: "Created At", Type: "date", Description: table.CreationTimestampDescription,
			Cell: func(o meta.Object, _ time.Time) any { return o.Meta().CreationTimestamp.UTC().Format(time.RFC3339) }}},
	}
}

// scaleOf returns the Scale of o. found is as ScaleSubresource.Get's.
func (rs *resource) scaleOf(o Object) (*scaleObject, bool, error) {
	spec, st, found, err := rs.def.Scale.Get(o)
	if err != nil {
		return nil, false, err
	}
	m := o.Meta()
	return &scaleObject{scale.Scale{
		ObjectMeta: meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
		Spec: spec, Status: st,
	}}, found, nil
}

// unsetReplicas stands for spec replicas an object does not have, in the
// Scale a write starts from: a write that leaves it is refused.
const unsetReplicas = math.MinInt32

// scaleMapping is the managedFields mapping of d's scale subresource.
func scaleMapping(d *Resource) managedfields.ScaleMapping {
	paths := d.Scale.ReplicasPaths
	if paths == nil {
		paths = map[string]string{d.GroupVersion(): d.Scale.SpecReplicasPath}
	}
	m := managedfields.ScaleMapping{APIVersion: d.GroupVersion(), Replicas: make(map[string][]string, len(paths))}
	for v, p := range paths {
		if p == "" {
			m.Replicas[v] = nil
			continue
		}
		m.Replicas[v] = strings.Split(strings.TrimPrefix(p, "."), ".")
	}
	return m
}
