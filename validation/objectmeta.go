package validation

import (
	"time"

	"github.com/apisem/apisem/meta"

	"github.com/apisem/apisem/status"
)

// metadata is the path prefix of every error, as in Kubernetes' API
// handlers.
const metadata = "metadata"

// ValidateCreate validates the metadata of an object about to be created,
// after the server generated its name (so Name is set when GenerateName
// is). nameFn is the resource's name rule; namespaced says whether the
// resource lives in namespaces. Errors come in Kubernetes' order
// (ValidateObjectMetaAccessor in k8s.io/apimachinery/pkg/api/validation):
//
//   - metadata.generateName: nameFn(generateName, true) when set;
//   - metadata.name: `Required value: name or generateName is required`, or
//     nameFn(name, false);
//   - metadata.namespace: `Required value` for a namespaced resource (else
//     NameIsDNSLabel), `Forbidden: not allowed on this type` for a
//     cluster-scoped one;
//   - metadata.generation: `must be greater than or equal to 0`;
//   - Labels, Annotations, OwnerReferences, Finalizers, ManagedFields.
//
// Kubernetes' create path also clears deletionTimestamp and
// deletionGracePeriodSeconds without error; that, and setting uid,
// creationTimestamp and generation, is the caller's job.
func ValidateCreate(m *meta.ObjectMeta, namespaced bool, nameFn NameFunc) []status.FieldError {
	var errs []status.FieldError
	if m.GenerateName != "" {
		for _, msg := range nameFn(m.GenerateName, true) {
			errs = append(errs, status.InvalidValue(metadata+".generateName", m.GenerateName, msg))
		}
	}
	if m.Name == "" {
		errs = append(errs, status.Required(metadata+".name", "name or generateName is required"))
	} else {
		for _, msg := range nameFn(m.Name, false) {
			errs = append(errs, status.InvalidValue(metadata+".name", m.Name, msg))
		}
	}
	return append(errs, common(m, namespaced)...)
}

// common is the part of ValidateCreate Kubernetes also runs on update.
func common(m *meta.ObjectMeta, namespaced bool) []status.FieldError {
	var errs []status.FieldError
	switch {
	case namespaced && m.Namespace == "":
		errs = append(errs, status.Required(metadata+".namespace", ""))
	case namespaced:
		for _, msg := range NameIsDNSLabel(m.Namespace, false) {
			errs = append(errs, status.InvalidValue(metadata+".namespace", m.Namespace, msg))
		}
	case m.Namespace != "":
		errs = append(errs, status.Forbidden(metadata+".namespace", "not allowed on this type"))
	}
	errs = append(errs, nonNegative(metadata+".generation", m.Generation)...)
	errs = append(errs, Labels(metadata+".labels", m.Labels)...)
	errs = append(errs, Annotations(metadata+".annotations", m.Annotations)...)
	errs = append(errs, OwnerReferences(metadata+".ownerReferences", m.OwnerReferences)...)
	errs = append(errs, Finalizers(metadata+".finalizers", m.Finalizers)...)
	return append(errs, ManagedFields(metadata+".managedFields", m.ManagedFields)...)
}

func nonNegative(path string, v int64) []status.FieldError {
	if v < 0 {
		return []status.FieldError{status.InvalidValue(path, v, "must be greater than or equal to 0")}
	}
	return nil
}

// PrepareForUpdate applies the corrections Kubernetes makes to an update's
// metadata before validating it (BeforeUpdate in
// k8s.io/apiserver/pkg/registry/rest/update.go), so that clients may omit
// the system fields:
//
//   - generation is the stored one (a client cannot set it; see
//     NextGeneration for the server's own increment);
//   - an empty uid becomes the stored uid;
//   - creationTimestamp is the stored one, when that is set;
//   - deletionTimestamp is the stored one, when that is set (an update can
//     neither remove nor move it);
//   - deletionGracePeriodSeconds, when omitted, is the stored one.
//
// What remains different afterwards is a client's attempt to change an
// immutable field, which ValidateUpdate reports. The caller copies the
// corrected fields back into its object.
func PrepareForUpdate(newMeta, oldMeta *meta.ObjectMeta) {
	newMeta.Generation = oldMeta.Generation
	if newMeta.UID == "" {
		newMeta.UID = oldMeta.UID
	}
	if !oldMeta.CreationTimestamp.IsZero() {
		newMeta.CreationTimestamp = oldMeta.CreationTimestamp
	}
	if oldMeta.DeletionTimestamp != nil && !oldMeta.DeletionTimestamp.IsZero() {
		t := *oldMeta.DeletionTimestamp
		newMeta.DeletionTimestamp = &t
	}
	if oldMeta.DeletionGracePeriodSeconds != nil && newMeta.DeletionGracePeriodSeconds == nil {
		s := *oldMeta.DeletionGracePeriodSeconds
		newMeta.DeletionGracePeriodSeconds = &s
	}
}

// ValidateUpdate validates the metadata of an update (after
// PrepareForUpdate) against the stored metadata. It is what Kubernetes'
// generic registry runs for every resource (validateCommonFields in
// k8s.io/apiserver/pkg/registry/rest/update.go): the create rules with
// NameIsPathSegment, then, in this order
// (ValidateObjectMetaAccessorUpdate in k8s.io/apimachinery/pkg/api/validation):
//
//   - NoNewFinalizers, when the stored object is being deleted;
//   - metadata.resourceVersion: `Invalid value: "": must be specified for an
//     update` when empty (a server that fills in the stored resourceVersion
//     for unconditional updates never sees it; ResourceVersionRequired is
//     the error of a server that does not);
//   - metadata.generation: not negative, `must not be decremented`;
//   - `Invalid value: <new value>: field is immutable` for name, namespace,
//     uid, creationTimestamp, deletionTimestamp and
//     deletionGracePeriodSeconds, values rendered as in JSON (timestamps in
//     RFC 3339, absent ones as null);
//   - Labels, Annotations, OwnerReferences, ManagedFields (finalizer names
//     are not re-checked on update).
//
// Labels, annotations, owner references and managed fields are thus
// checked twice, and a bad one gives two equal causes, as Kubernetes'
// generic checks give them (a custom resource's 422 lists them all, and
// three times: see ValidateMetaUpdate);
// status.NewInvalid prints each distinct error once in the message. For
// its built-in kinds, kube-apiserver keeps only the distinct errors
// (their declarative validation step does), and so does a server whose
// resource sets server.Resource.DistinctErrors. A
// resource's own name rule (for instance NameIsDNSSubdomain) need not be
// rerun on update, since the name cannot change.
func ValidateUpdate(newMeta, oldMeta *meta.ObjectMeta, namespaced bool) []status.FieldError {
	errs := ValidateCreate(newMeta, namespaced, NameIsPathSegment)
	return append(errs, ValidateMetaUpdate(newMeta, oldMeta)...)
}

// ValidateMetaUpdate is the second part of ValidateUpdate, the rules
// of an update alone (ValidateObjectMetaAccessorUpdate), in its order.
// apiextensions-apiserver checks them once more after the generic
// checks, for custom resources and CustomResourceDefinitions alike, so
// that a bad label of an update is three equal causes there.
func ValidateMetaUpdate(newMeta, oldMeta *meta.ObjectMeta) []status.FieldError {
	var errs []status.FieldError
	if oldMeta.DeletionTimestamp != nil {
		errs = append(errs, NoNewFinalizers(metadata+".finalizers", newMeta.Finalizers, oldMeta.Finalizers)...)
	}
	if newMeta.ResourceVersion == "" {
		errs = append(errs, status.InvalidValue(metadata+".resourceVersion", "", "must be specified for an update"))
	}
	errs = append(errs, nonNegative(metadata+".generation", newMeta.Generation)...)
	if newMeta.Generation < oldMeta.Generation {
		errs = append(errs, status.InvalidValue(metadata+".generation", newMeta.Generation, "must not be decremented"))
	}
	immutable := func(field string, changed bool, value any) {
		if changed {
			errs = append(errs, status.InvalidValue(metadata+"."+field, value, FieldImmutable))
		}
	}
	immutable("name", newMeta.Name != oldMeta.Name, newMeta.Name)
	immutable("namespace", newMeta.Namespace != oldMeta.Namespace, newMeta.Namespace)
	immutable("uid", newMeta.UID != oldMeta.UID, newMeta.UID)
	immutable("creationTimestamp", !newMeta.CreationTimestamp.Equal(oldMeta.CreationTimestamp.Time),
		timeValue(newMeta.CreationTimestamp.Time))
	immutable("deletionTimestamp", !equalTimePtr(newMeta.DeletionTimestamp, oldMeta.DeletionTimestamp),
		timePtrValue(newMeta.DeletionTimestamp))
	immutable("deletionGracePeriodSeconds", !equalInt64Ptr(newMeta.DeletionGracePeriodSeconds, oldMeta.DeletionGracePeriodSeconds),
		int64PtrValue(newMeta.DeletionGracePeriodSeconds))
	errs = append(errs, Labels(metadata+".labels", newMeta.Labels)...)
	errs = append(errs, Annotations(metadata+".annotations", newMeta.Annotations)...)
	errs = append(errs, OwnerReferences(metadata+".ownerReferences", newMeta.OwnerReferences)...)
	return append(errs, ManagedFields(metadata+".managedFields", newMeta.ManagedFields)...)
}

// timeValue renders t as metav1.Time does in JSON: null when zero, else
// RFC 3339 in UTC with whole seconds (a string, which prints quoted).
func timeValue(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func timePtrValue(t *meta.Time) any {
	if t == nil {
		return nil
	}
	return timeValue(t.Time)
}

func int64PtrValue(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// equalTimePtr compares as Kubernetes' semantic equality does: both absent,
// or the same instant.
func equalTimePtr(a, b *meta.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}

func equalInt64Ptr(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
