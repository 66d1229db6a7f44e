package server

import "github.com/apisem/apisem/openapi"

// The definitions every document carries: the meta/v1 types of Kubernetes'
// API machinery, with the fields and Kubernetes extensions Kubernetes
// publishes for them (k8s.io/apimachinery/pkg/apis/meta/v1/types.go) and
// descriptions of our own.

const metaV1 = "io.k8s.apimachinery.pkg.apis.meta.v1."

var (
	apiVersionProperty = &openapi.Schema{Type: "string",
		Description: "APIVersion is the versioned schema of this representation of an object: group/version, or the version alone for the core group."}
	kindProperty = &openapi.Schema{Type: "string",
		Description: "Kind is the type of the object, in CamelCase: the REST resource it is written to or read from."}
	metadataProperty = &openapi.Schema{Ref: openapi.ObjectMetaSchema, Default: map[string]any{},
		Description: "Standard object's metadata: its name, namespace, labels, annotations and the fields the server maintains."}
)

func str(desc string) *openapi.Schema { return &openapi.Schema{Type: "string", Description: desc} }

func stringMap(desc string) *openapi.Schema {
	return &openapi.Schema{Type: "object", Description: desc, AdditionalProperties: &openapi.Schema{Type: "string", Default: ""}}
}

func stringList(desc string) *openapi.Schema {
	return &openapi.Schema{Type: "array", Description: desc, Items: &openapi.Schema{Type: "string", Default: ""}}
}

func intField(format, desc string) *openapi.Schema {
	return &openapi.Schema{Type: "integer", Format: format, Description: desc}
}

func ref(name, desc string) *openapi.Schema { return &openapi.Schema{Ref: name, Description: desc} }

// metaDefinitions returns new copies of the meta/v1 definitions.
func metaDefinitions() map[string]*openapi.Schema {
	return map[string]*openapi.Schema{
		openapi.TimeSchema: {Type: "string", Format: "date-time",
			Description: "Time is a timestamp in RFC 3339 form, to the second, in UTC."},
		openapi.MicroTimeSchema: {Type: "string", Format: "date-time",
			Description: "MicroTime is a timestamp in RFC 3339 form with microseconds, in UTC."},
		metaV1 + "FieldsV1": {Type: "object",
			Description: "FieldsV1 is the set of fields a manager owns, in the JSON trie form of server-side apply."},
		metaV1 + "ManagedFieldsEntry": {Type: "object",
			Description: "ManagedFieldsEntry records the fields one manager set through one operation.",
			Properties: map[string]*openapi.Schema{
				"apiVersion":  str("The version of the resource the fields were set in."),
				"fieldsType":  str("The format of fieldsV1; only \"FieldsV1\"."),
				"fieldsV1":    ref(metaV1+"FieldsV1", "The set of fields the manager owns."),
				"manager":     str("The name of the workflow managing these fields."),
				"operation":   str("The operation that set the fields: \"Apply\" or \"Update\"."),
				"subresource": str("The subresource the fields were set through; empty for the resource itself."),
				"time":        ref(openapi.TimeSchema, "When the fields were last set."),
			}},
		metaV1 + "OwnerReference": {Type: "object", MapType: "atomic",
			Description: "OwnerReference names an object that owns this one, in the same namespace.",
			Required:    []string{"apiVersion", "kind", "name", "uid"},
			Properties: map[string]*openapi.Schema{
				"apiVersion":         &openapi.Schema{Type: "string", Default: "", Description: "The API version of the owner."},
				"kind":               &openapi.Schema{Type: "string", Default: "", Description: "The kind of the owner."},
				"name":               &openapi.Schema{Type: "string", Default: "", Description: "The name of the owner."},
				"uid":                &openapi.Schema{Type: "string", Default: "", Description: "The uid of the owner."},
				"controller":         {Type: "boolean", Description: "Whether the owner is the managing controller."},
				"blockOwnerDeletion": {Type: "boolean", Description: "Whether foreground deletion of the owner waits for this object."},
			}},
		openapi.ObjectMetaSchema: {Type: "object",
			Description: "ObjectMeta is the metadata every persisted object has.",
			Properties: map[string]*openapi.Schema{
				"annotations":                stringMap("Annotations are unstructured key value data set by tools and users; not queryable."),
				"creationTimestamp":          ref(openapi.TimeSchema, "When the object was created; set by the server, read-only."),
				"deletionGracePeriodSeconds": intField("int64", "Seconds allowed for graceful termination before the object is removed; read-only."),
				"deletionTimestamp":          ref(openapi.TimeSchema, "When the object will be deleted, set when deletion is requested; read-only."),
				"finalizers": {Type: "array", ListType: "set", PatchStrategy: "merge",
					Description: "Finalizers must be empty before the object is removed from storage; each names a controller that has cleanup to do.",
					Items:       &openapi.Schema{Type: "string", Default: ""}},
				"generateName": str("A prefix from which the server generates a unique name when name is not set."),
				"generation":   intField("int64", "A sequence number of changes to the desired state; set by the server, read-only."),
				"labels":       stringMap("Labels are key value pairs used to organize and select objects."),
				"managedFields": {Type: "array", Description: "The fields each manager owns, maintained by the server.",
					Items: &openapi.Schema{Ref: metaV1 + "ManagedFieldsEntry", Default: map[string]any{}}},
				"name":      str("The name of the object, unique within its namespace (or cluster-wide for cluster-scoped objects)."),
				"namespace": str("The namespace of a namespaced object; empty for cluster-scoped ones."),
				"ownerReferences": {Type: "array", ListType: "map", ListMapKeys: []string{"uid"},
					PatchStrategy: "merge", PatchMergeKey: "uid",
					Description: "The objects this object depends on; it is garbage collected when they are all gone.",
					Items:       &openapi.Schema{Ref: metaV1 + "OwnerReference", Default: map[string]any{}}},
				"resourceVersion": str("An opaque value that changes whenever the object does; used for optimistic concurrency, watches and consistent reads."),
				"selfLink":        str("Deprecated and never set."),
				"uid":             str("A unique identifier for this incarnation of the object, set by the server; read-only."),
			}},
		openapi.ListMetaSchema: {Type: "object",
			Description: "ListMeta is the metadata of a list.",
			Properties: map[string]*openapi.Schema{
				"continue":           str("A token to request the next page of the list; empty on the last page."),
				"remainingItemCount": intField("int64", "The number of items after this page, when the server can count them."),
				"resourceVersion":    str("The resourceVersion the list was read at."),
				"selfLink":           str("Deprecated and never set."),
			}},
		metaV1 + "StatusCause": {Type: "object",
			Description: "StatusCause is one cause of an error.",
			Properties: map[string]*openapi.Schema{
				"field":   str("The field the cause concerns, as a path such as spec.containers[0].name."),
				"message": str("A human-readable description of the cause."),
				"reason":  str("A machine-readable description of the cause."),
			}},
		metaV1 + "StatusDetails": {Type: "object",
			Description: "StatusDetails are the particulars of a failure.",
			Properties: map[string]*openapi.Schema{
				"causes": {Type: "array", ListType: "atomic", Description: "The causes of the error, one per invalid field.",
					Items: &openapi.Schema{Ref: metaV1 + "StatusCause", Default: map[string]any{}}},
				"group":             str("The group of the resource concerned."),
				"kind":              str("The kind (or resource) concerned."),
				"name":              str("The name of the object concerned."),
				"retryAfterSeconds": intField("int32", "Seconds to wait before retrying."),
				"uid":               str("The uid of the object concerned."),
			}},
		openapi.StatusSchema: {Type: "object",
			Description: "Status is the result of an operation that returns no object, and of every error.",
			Properties: map[string]*openapi.Schema{
				"apiVersion": apiVersionProperty,
				"code":       intField("int32", "The HTTP status code of the response."),
				"details":    ref(metaV1+"StatusDetails", "Extended data about the reason."),
				"kind":       kindProperty,
				"message":    str("A human-readable description of the outcome."),
				"metadata":   &openapi.Schema{Ref: openapi.ListMetaSchema, Default: map[string]any{}, Description: "Standard list metadata."},
				"reason":     str("A machine-readable description of why the operation failed."),
				"status":     str("\"Success\" or \"Failure\"."),
			}},
		metaV1 + "Preconditions": {Type: "object",
			Description: "Preconditions must hold for a deletion to proceed.",
			Properties: map[string]*openapi.Schema{
				"resourceVersion": str("The object's resourceVersion must be this."),
				"uid":             str("The object's uid must be this."),
			}},
		openapi.DeleteOptionsSchema: {Type: "object",
			Description: "DeleteOptions may accompany a delete request.",
			Properties: map[string]*openapi.Schema{
				"apiVersion":         apiVersionProperty,
				"dryRun":             {Type: "array", ListType: "atomic", Description: "\"All\" processes the request without persisting it.", Items: &openapi.Schema{Type: "string", Default: ""}},
				"gracePeriodSeconds": intField("int64", "Seconds before the object is deleted; 0 deletes at once."),
				"kind":               kindProperty,
				"orphanDependents":   {Type: "boolean", Description: "Deprecated: use propagationPolicy."},
				"preconditions":      ref(metaV1+"Preconditions", "Conditions that must hold for the deletion to proceed."),
				"propagationPolicy":  str("How dependents are garbage collected: \"Orphan\", \"Background\" or \"Foreground\"."),
			}},
		"io.k8s.apimachinery.pkg.runtime.RawExtension": {Type: "object", PreserveUnknownFields: true,
			Description: "RawExtension holds an embedded object of any kind."},
		openapi.WatchEventSchema: {Type: "object",
			Description: "WatchEvent is one event of a watch stream.",
			Required:    []string{"type", "object"},
			Properties: map[string]*openapi.Schema{
				"object": ref("io.k8s.apimachinery.pkg.runtime.RawExtension", "The object of the event: the object changed, a bookmark, or a Status for an error."),
				"type":   &openapi.Schema{Type: "string", Default: "", Description: "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR."},
			}},
		openapi.PatchSchema: {Type: "object",
			Description: "Patch is the body of a PATCH request, in the format its Content-Type names."},
	}
}
