package validation

import "github.com/apisem/apisem/status"

// Size limits a Kubernetes API server imposes on what it stores.
const (
	// MaxObjectBytes is etcd's default --max-request-bytes, 1.5 MiB: the
	// largest write etcd accepts. etcd measures the whole request (key,
	// value and framing), so an object somewhat under this size can already
	// be refused; callers check the encoded object as they store it.
	MaxObjectBytes = 1536 << 10
)

// objectTooLargeMessage is etcd's error text for an oversized request
// (ErrGRPCRequestTooLarge in go.etcd.io/etcd/api/v3rpc/rpctypes).
const objectTooLargeMessage = "etcdserver: request is too large"

// ObjectTooLarge returns the error a Kubernetes API server answers when
// etcd refuses an object as too large. kube-apiserver passes etcd's error
// through as a foreign error, so the client sees code 500 with no reason and
// etcd's text as the message (responsewriters.ErrorToAPIStatus in
// k8s.io/apiserver; the mapping to a 4xx is an open Kubernetes issue,
// kubernetes/kubernetes#112152):
//
//	{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
//	 "message":"etcdserver: request is too large","code":500}
//
// status.ReasonForError classifies it as ReasonInternalError; client-go's
// apierrors.IsInternalError reports false for it (the reason is empty), so
// Kubernetes clients recognise it by its message.
func ObjectTooLarge() *status.Error {
	return status.New(500, status.ReasonUnknown, objectTooLargeMessage, nil)
}

// CheckObjectSize returns ObjectTooLarge when an encoded object of size
// bytes exceeds limit, or nil. A limit of 0 or less means MaxObjectBytes.
func CheckObjectSize(size, limit int) error {
	if limit <= 0 {
		limit = MaxObjectBytes
	}
	if size > limit {
		return ObjectTooLarge()
	}
	return nil
}

// ResourceVersionRequired returns the 422 Kubernetes' generic registry
// answers to an update without metadata.resourceVersion for a resource that
// does not allow unconditional updates. Kubernetes names the resource, not
// the kind, in it: `configmaps "x" is invalid: metadata.resourceVersion:
// Invalid value: 0: must be specified for an update` (Store.Update in
// k8s.io/apiserver/pkg/registry/generic/registry/store.go).
func ResourceVersionRequired(gr status.GroupResource, name string) *status.Error {
	return status.NewInvalid(status.GroupKind{Group: gr.Group, Kind: gr.Resource}, name,
		status.InvalidValue(metadata+".resourceVersion", uint64(0), "must be specified for an update"))
}
