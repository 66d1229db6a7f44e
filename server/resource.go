package server

import (
	"context"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/table"
	"github.com/apisem/apisem/validation"
)

// Resource is everything the server knows about one served resource.
type Resource struct {
	// Group is "" for the core group.
	Group, Version string
	// Kind and ListKind name the object and list types.
	Kind, ListKind string
	// Plural is the resource name in URLs; Singular and ShortNames are
	// what kubectl accepts besides it.
	Plural, Singular string
	ShortNames       []string
	Categories       []string
	// Namespaced resources live in namespaces; the others are cluster-scoped.
	Namespaced bool
	// Names is the rule for metadata.name and generateName on create,
	// with Kubernetes' messages; nil means validation.NameIsDNSSubdomain,
	// the rule of most resources (Namespaces use NameIsDNSLabel).
	Names validation.NameFunc
	// StatusSubresource serves <name>/status (get, update, patch) as
	// Kubernetes does for a custom resource with the status subresource
	// and for most built-in types: writes to the status subresource
	// change only the object's "status" member, writes to the object
	// keep the stored status, and a create drops the status it is given.
	StatusSubresource bool
	// UpdateSubresources are further subresources, <name>/<sub>, that
	// serve only update (PUT) of the object itself, as a Namespace's
	// finalize: the hooks tell such a write by its subresource
	// (WriteObserver, Attributes.Subresource), and it keeps the stored
	// status (with StatusSubresource).
	UpdateSubresources []string
	// ObjectSubresources are further subresources that serve get, update
	// and patch of the object itself, as a Pod's ephemeralcontainers and
	// resize, and a CertificateSigningRequest's approval: the hooks tell
	// such a write by its subresource and keep what it may not change
	// (Kubernetes' strategies of those subresources do); the server keeps
	// nothing of the stored object for them, not even the status (with
	// StatusSubresource), which an approval writes.
	ObjectSubresources []string
	// Subresources are further subresources served by handlers of their
	// own (a Pod's log, exec, binding, eviction...).
	Subresources []Subresource
	// RequireResourceVersion refuses an update without
	// metadata.resourceVersion (422), as Kubernetes does for custom
	// resources; otherwise such an update is unconditional, as for
	// ConfigMaps.
	RequireResourceVersion bool
	// CreateOnUpdate makes a PUT of an object that does not exist create
	// it (201), as Kubernetes does for the kinds whose registry strategy
	// allows create-on-update (Leases, Events, Endpoints, RBAC roles and
	// bindings...): the object goes through the create path (admission
	// with operation CREATE, defaulting, validation, a new uid and
	// creationTimestamp, the namespace must exist); a resourceVersion in
	// it is ignored, and a uid in it is the storage's precondition 409.
	// Without it such a PUT is the 404 it is for ConfigMaps, Pods and
	// custom resources. Subresources never create, nor does a resource
	// with Create, which has no objects.
	CreateOnUpdate bool
	// Generation makes the server keep metadata.generation as
	// Kubernetes does for custom resources and most workload types: 1 on
	// create, one more on every update that changes anything outside
	// metadata and status. Clients cannot set it. Resources without it
	// (ConfigMap, Secret, Namespace) leave generation to Prepare.
	Generation bool
	// TypedListItems: list items carry kind and apiVersion, as those of a
	// custom resource do. Core types' list items do not.
	TypedListItems bool

	// New returns an empty object of the resource's type.
	New func() Object
	// DecodeProto decodes an object's protobuf encoding (without
	// envelope); nil for a type without a protobuf form.
	DecodeProto func(raw []byte) (Object, error)
	// CheckTypes, when set, checks the apiVersion and kind a create's or
	// update's body carries ("" where it has none) before the checks
	// every resource has (the apiVersion and kind must be the
	// endpoint's, with apiextensions-apiserver's texts): a built-in
	// kind's decoding refuses a kind it cannot convert to the
	// endpoint's with a 400 of its own ("<Kind> in version ... cannot be
	// handled as a ..."). It returns nil to leave the body to those.
	CheckTypes func(apiVersion, kind string) error

	// Schema is the OpenAPI schema of the resource's objects, published in
	// /openapi/v2 and /openapi/v3 for kubectl explain, client-side
	// validation and kubectl apply's merge rules. The apiVersion, kind and
	// metadata properties every object has are added when absent. It also
	// types server-side apply: an applied field it does not declare is
	// refused. nil derives it from the Go type of New's objects (json
	// tags, and the doc and apisem tags package openapi's doc describes); for a
	// type that encodes itself (json.Marshaler, as Unstructured) nil
	// publishes an object of any fields.
	Schema *openapi.Schema
	// SchemaName names the schema's definition. "" means
	// io.k8s.api.core.<version>.<Kind> for the core group, else the
	// group's reversed domain name, the version and the kind
	// (dev.apisem.example.v1.Widget), as Kubernetes names a custom
	// resource's. The list type's is the same with ListKind.
	SchemaName string
	// Definitions are the named schemas Schema refers to, besides those
	// the server contributes (openapi.ObjectMetaSchema, openapi.TimeSchema, ...).
	// Resources may share definitions; a name must mean one schema.
	Definitions map[string]*openapi.Schema

	// Scale, when set, serves <name>/scale: the autoscaling/v1 Scale view
	// of the objects' replicas (see ScaleSubresource).
	Scale *ScaleSubresource

	// Create, when set, makes the resource one that keeps no objects and
	// answers a create by acting on other resources, as kube-apiserver's
	// bindings (a Binding binds the Pod it names to a node): a POST to
	// its collection is read as any create's (media types, write
	// options, field validation, decoding; a namespace in the body must
	// be the URL's; uid, creationTimestamp, deletionTimestamp and
	// deletionGracePeriodSeconds are dropped, as a cluster's create
	// handler drops them), then given to Create instead of the write pipeline
	// and, if Create returns no error, answered with code 201 and the
	// object Create returns (a review: SubjectAccessReview), or, when it
	// returns none, a Status of success, as kube-apiserver answers a
	// Binding. Its Verbs must be just
	// create: its store stays empty, and discovery gives it no
	// storageVersionHash. The server does not put the object to
	// admission: Create does, with Server.AdmitMutating and
	// AdmitValidating, as kube-apiserver admits a Binding.
	Create func(ctx context.Context, req CreateRequest) (Object, error)

	// Verbs are the verbs the resource serves, of create, delete,
	// deletecollection, get, list, patch, update and watch; nil means all
	// of them. A request for another verb gets the router's 405, as
	// kube-apiserver answers for a verb a built-in resource lacks (there
	// is no deletecollection of namespaces), and discovery lists these.
	Verbs []string

	// StorageVersionHash is the resource's storageVersionHash in
	// discovery (/api/v1, /apis/<group>/<version>), which a cluster
	// changes when it starts storing the objects in another version (the
	// storage version migrator watches it). "" means
	// StorageVersionHash(Group, Version, Kind); a resource that is one of
	// several versions of the same objects gives the hash of the version
	// a cluster stores them in, as every version of a custom resource
	// gives its definition's storage version's.
	StorageVersionHash string

	// Custom marks a custom resource, served as apiextensions-apiserver
	// serves one: its requests skip the checks kube-apiserver's router
	// (go-restful) makes of a built-in resource's Accept header, and of
	// a patch's Content-Type, which answer with texts of their own
	// (`406: Not Acceptable ...`, `415: Unsupported Media Type`).
	Custom bool

	// DeprecationWarning, when set, is sent in a Warning header of every
	// response to a request for the resource, errors included, as
	// Kubernetes warns of a deprecated version.
	DeprecationWarning string

	// Columns describe the resource's Table, as kubectl prints it.
	Columns []table.Column
	// NullTableRows writes the rows of an empty list's Table as null,
	// as Kubernetes' default Table converter does, where the resource has
	// Columns: with them a Table's rows are [] when there are none, as
	// Kubernetes' printers write them (without Columns they are null).
	NullTableRows bool

	// PatchSchema declares the strategic merge patch strategies of the
	// type's fields (package patch); nil means the type has none, and a
	// strategic merge patch answers 415, as for a custom resource.
	PatchSchema *patch.Schema

	// Fields are the field-selector fields beyond metadata.name and
	// metadata.namespace.
	Fields map[string]func(Object) string
	// UnknownField returns the message of the 400 that answers a field
	// selector on a field the resource lacks (not metadata.name,
	// metadata.namespace or one of Fields). nil means kube-apiserver's
	// texts: `field label not supported: <label>` for a custom resource
	// and for a resource with Fields (as for Pods, whose kind has a
	// field label conversion of its own), else the default conversion's
	// `"<label>" is not a known field selector: only "metadata.name",
	// "metadata.namespace"` (as for ConfigMaps).
	UnknownField func(label string) string

	// StorageResource, when set, is the group and resource whose storage
	// holds this resource's objects, as another version of them:
	// kube-apiserver keeps events.k8s.io/v1 Events with core/v1 Events,
	// one object written through either is read, listed and watched
	// through both with one resourceVersion. The zero value is Group and
	// Plural, which the versions of one resource share without it (a
	// custom resource's, autoscaling/v1 and v2 HorizontalPodAutoscalers).
	// Each such resource's Read converts an object written through
	// another to its own form.
	StorageResource status.GroupResource
	// EtcdPrefix, when set, is where a storage that keys objects by path
	// (package etcdstore/serverstore) keeps the resource's objects below
	// its own prefix: one or two segments, as kube-apiserver's storage
	// factory names them for its built-in kinds ("deployments" for apps
	// Deployments, "services/specs" for Services), so that kube-apiserver
	// and apisem on one etcd see the same objects. "" means
	// "<group>/<resource>" of StorageResource, or of Group and Plural
	// ("<resource>" in the core group), where kube-apiserver keeps a
	// custom resource's objects. Versions of one StorageResource share
	// the first one's.
	EtcdPrefix string
	// InvalidKind, when its Kind is set, is the group and kind a 422
	// Invalid names instead of Group and Kind, as kube-apiserver names
	// the group of its internal type (core for events.k8s.io Events).
	InvalidKind status.GroupKind

	// Finalizers reports whether an object is held by finalizers kept
	// outside metadata.finalizers (a Namespace's spec.finalizers); nil
	// when the type has none.
	Finalizers func(Object) bool

	// Delete, when set, replaces the store's deletion of one object, for
	// resources whose deletion is more than the store's (a Namespace's
	// is two-phase: it turns Terminating and a controller empties it).
	// It returns the object as it now is and whether it is gone; the
	// result is only read. DELETE and deletecollection use it.
	Delete func(ctx context.Context, st store.Backend[Object], namespace, name string, opts store.DeleteOptions) (obj Object, deleted bool, err error)
	// ReturnDeletedObject answers a DELETE that deleted the object with
	// the object as it was last (its deletionTimestamp when graceful),
	// as kube-apiserver's registry of Pods does, not with a Status.
	ReturnDeletedObject bool

	// Coerce, when set, finishes the decoding of every new object of a
	// write: a request body (create, update), the result of a patch or
	// an apply, an object given to Server.Create, and what
	// Options.Admission.Mutate made of it. A custom resource's schema
	// prunes unknown fields and sets defaults here, as Kubernetes'
	// decoding does, before the write's one encoding (see the package
	// doc's "Write path"). strict are the problems strict decoding found
	// (duplicate fields, unknown metadata fields; none when
	// fieldValidation is Ignore); Coerce returns the problems to report
	// instead, as warnings or in Strict mode's 400, each an error whose
	// text is like `unknown field "spec.foo"`.
	Coerce func(obj Object, strict []error) []error

	// Read, when set, finishes every object read from storage, as
	// Kubernetes' storage decoding does: a custom resource's current
	// schema prunes and defaults it here, so that an object stored under
	// an older schema reads as the current one makes it, in every answer
	// (get, list, watch, Tables, field selectors) and as the old object
	// of a write (patches, apply, the scale subresource, managedFields).
	// obj is shared: Read returns it unchanged when there is nothing to
	// do, else a new object. It must leave metadata as it is but for
	// labels and annotations, which a custom resource's conversion webhook
	// may change as Kubernetes lets it, as may the conversion between
	// versions of a StorageResource (autoscaling/v1's annotations):
	// answers of metadata alone, Tables and PartialObjectMetadata, and
	// selectors see the stored ones. It must
	// be cheap when nothing changes; each stored version's encodings are
	// computed once. An error, such as a custom resource's conversion
	// webhook failing, fails the read as Kubernetes fails the read of an
	// object its storage cannot decode: a get with a 500 InternalError
	// (`Internal error occurred: StorageError: corrupt object, ...`), a
	// list with a 500 StorageReadError (`failed to read one or more
	// <resource> from the storage: ...`); Table cells and field
	// selectors, which cannot fail, see the stored object as it is. The
	// failure is not cached.
	Read func(obj Object) (Object, error)

	// ToStorage, when set, is the last step of a create or update before
	// the storage takes the object (after validation, admission and
	// managedFields): it returns obj as the storage keeps it, as
	// Kubernetes' storage encoding converts a custom resource to its
	// definition's storage version and prunes it by that version's
	// schema. It returns obj itself when that changes nothing, else a new
	// object, which Read turns back into the resource's; it must keep
	// metadata as it is but for labels and annotations. An error refuses
	// the write as it is (a status error, best).
	ToStorage func(ctx context.Context, obj Object) (Object, error)

	// StoredAs, when set, returns the apiVersion and kind of the version
	// a stored object of the resource is in, where that is not always
	// the resource's own: ToStorage converts the objects (a custom
	// resource's definition's storage version; autoscaling/v2 for an
	// autoscaling/v1 HorizontalPodAutoscaler), or they share a
	// StorageResource with another version that wrote them. A storage
	// that labels its values with their version, as kube-apiserver
	// labels each value in etcd with its storage version, asks it
	// (package serverstore), so that the value reads as what it holds,
	// through this resource or another reader of the same etcd. nil
	// means Group, Version and Kind.
	StoredAs func(obj Object) meta.TypeMeta

	// ConvertTo, when set, converts obj, an object of the resource, to
	// apiVersion, another served version of its kind in the same
	// storage, for the metadata.managedFields entries of that version:
	// a write through this version then keeps them, taking from them
	// what it changes, as Kubernetes' field manager converts objects
	// between the versions of a kind (autoscaling/v1 and v2
	// HorizontalPodAutoscalers). ok false means it cannot, as
	// Kubernetes' converter cannot cross groups (core and events.k8s.io
	// Events): the write drops that version's entries, as it does
	// without ConvertTo.
	ConvertTo func(obj Object, apiVersion string) (out Object, ok bool, err error)

	// Admit, when set, is the resource's own admission check, asked
	// about every write of its objects ahead of Options.Admission, with
	// the same attributes: a create, update, patch, apply or write of the
	// status or scale subresource after defaulting and the status step
	// (obj and old as Admission.Mutate gets them), and a deletion (obj
	// nil, old the object deleted, as Admission.Validate gets them). An
	// error, best a status error, refuses the write. It must not change
	// obj: it is the place of checks that refuse in admission's first
	// phase, before validation, as Kubernetes' NamespaceLifecycle does. A
	// custom resource whose definition is being deleted refuses creates
	// here.
	Admit AdmitFunc

	// Default fills in defaults, as Kubernetes' scheme defaulting does
	// when it decodes a request: before managedFields are recorded, so
	// the writer owns what was defaulted for it (a Secret's type).
	Default func(obj Object)
	// Prepare sets the fields a client may not set, as a Kubernetes
	// strategy's PrepareForCreate and PrepareForUpdate do: old is nil on
	// create, the stored object on update. It runs after managedFields
	// are recorded, so what it sets is nobody's (a Namespace's
	// spec.finalizers). On create it may give the object its uid, which
	// the store then keeps (Kubernetes gives it before its strategy runs,
	// which may read it); else the store gives one.
	Prepare func(obj, old Object)
	// Validate checks obj (old as for Prepare), after Prepare.
	Validate func(obj, old Object) []status.FieldError
	// DistinctErrors reports each validation error of a write once, by
	// its text, the first time it occurs, as kube-apiserver does for its
	// built-in kinds, whose declarative validation step keeps only the
	// distinct errors: a bad label, which the metadata rules of a create
	// and of an update both check (validation.ValidateUpdate), or two
	// labels with the same bad value, give one cause. Without it every
	// error is a cause, as a custom resource's are on a cluster.
	DistinctErrors bool
	// Warnings, when set, returns the warnings of a valid create or
	// update of obj (old as for Prepare), as a Kubernetes strategy's
	// WarningsOnCreate and WarningsOnUpdate: the client gets them in
	// Warning headers.
	Warnings func(obj, old Object) []string
}

// CreateRequest is what Resource.Create is asked.
type CreateRequest struct {
	// Object is the decoded body, its namespace the URL's.
	Object Object
	// Namespace is the URL's namespace: "" for a namespaced resource's
	// empty namespace (namespaces//bindings), which Create refuses as
	// kube-apiserver's storage does (400 `Namespace parameter required.`).
	Namespace string
	// DryRun: dryRun=All, which must change nothing.
	DryRun bool
	// Server is the server, whose other resources Create acts on.
	Server *Server
	// Authorizer and Authenticator are the server's
	// (Options.Security), nil when it has none: what a
	// SubjectAccessReview and a TokenReview ask.
	Authorizer    auth.Authorizer
	Authenticator auth.Authenticator
}

// GroupVersion returns "group/version", or the version alone for the core
// group: the apiVersion of the resource's objects.
func (r *Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// read is o as Read finishes it: o itself without Read. A failure is a
// *readError.
func (r *Resource) read(o Object) (Object, error) {
	if r.Read == nil {
		return o, nil
	}
	out, err := r.Read(o)
	if err != nil {
		return nil, &readError{obj: o, err: err}
	}
	return out, nil
}

// readOrSelf is o as Read finishes it, or o itself when Read fails: for
// the values of Table cells and field selectors, which have no error.
func (r *Resource) readOrSelf(o Object) Object {
	if out, err := r.read(o); err == nil {
		return out
	}
	return o
}

// Protobuf reports whether the resource has a protobuf form.
func (r *Resource) Protobuf() bool { return r.DecodeProto != nil }

// allVerbs are the verbs every served resource supports, sorted as
// discovery lists them.
var allVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
