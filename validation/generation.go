package validation

// InitialGeneration is metadata.generation of a newly created object.
// Kubernetes' strategies set it on create whatever the client sent (for
// custom resources, PrepareForCreate in
// k8s.io/apiextensions-apiserver/pkg/registry/customresource/strategy.go).
const InitialGeneration int64 = 1

// NextGeneration returns metadata.generation after an update of an object
// stored with generation old. specChanged is the caller's comparison of the
// old and new objects outside metadata and status (outside metadata only,
// for a resource without a status subresource): generation counts changes
// of the desired state, so only those increment it. A client's own value
// is ignored (PrepareForUpdate restores the stored one first).
//
// Deleting an object that has finalizers also increments it, once, when the
// deletionTimestamp is first set (and generation is positive), so that
// controllers watching observedGeneration notice.
func NextGeneration(old int64, specChanged bool) int64 {
	if specChanged {
		return old + 1
	}
	return old
}
