package openapi

// Schema is an OpenAPI schema: the subset of JSON Schema, and of
// Kubernetes' extensions to it, that Kubernetes' published API types use.
// Package server writes it into /openapi/v2 (as Swagger 2.0) and
// /openapi/v3, where kubectl explain reads the documentation of fields,
// kubectl create and apply validate objects on the client, and kubectl
// apply finds how lists merge.
//
// A Schema either refers to a named definition (Ref) or describes a value
// itself (the other fields).
type Schema struct {
	// Ref names a definition: one of a resource's own
	// (server.Resource.Definitions) or of those every server contributes
	// (ObjectMetaSchema, TimeSchema, ...). The schema is that definition;
	// Description and Default may accompany Ref, the other fields are
	// then ignored.
	Ref string

	// Type is "object", "array", "string", "integer", "number" or
	// "boolean"; "" accepts any value.
	Type string
	// Format refines Type: "int32", "int64", "double", "byte" (base64),
	// "date-time", ...
	Format      string
	Description string
	// Default is the value the server sets when the field is absent.
	Default any
	// Enum lists the values a string may take.
	Enum []string

	// Properties are the fields of an object; Required lists the ones that
	// must be set.
	Properties map[string]*Schema
	Required   []string
	// AdditionalProperties is the schema of a map's values.
	AdditionalProperties *Schema
	// Items is the schema of an array's elements.
	Items *Schema

	// PatchStrategy and PatchMergeKey say how a strategic merge patch
	// merges the field (x-kubernetes-patch-strategy, -patch-merge-key):
	// "merge" with a key merges list elements by that key.
	PatchStrategy, PatchMergeKey string
	// ListType ("atomic", "set" or "map"), ListMapKeys and MapType
	// ("atomic" or "granular") say how server-side apply merges the field
	// (x-kubernetes-list-type, -list-map-keys, -map-type).
	ListType    string
	ListMapKeys []string
	MapType     string
	// IntOrString accepts an integer or a string
	// (x-kubernetes-int-or-string).
	IntOrString bool
	// PreserveUnknownFields keeps fields the schema does not name
	// (x-kubernetes-preserve-unknown-fields), as in a RawExtension.
	PreserveUnknownFields bool
}

// Names of the definitions the server contributes to every OpenAPI
// document, for Schema.Ref. They are Kubernetes' names, so that clients
// that know them (kubectl explain prints "<ObjectMeta>") see the familiar
// types.
const (
	ObjectMetaSchema    = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	ListMetaSchema      = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
	TimeSchema          = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
	MicroTimeSchema     = "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"
	StatusSchema        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	DeleteOptionsSchema = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	WatchEventSchema    = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
	PatchSchema         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
)
