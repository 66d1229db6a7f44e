package status

// NewApplyConflict returns the 409 Conflict of a server-side apply that
// would change fields other managers own: the message lists the conflicts
// and causes has one FieldManagerConflict per field. Unlike NewConflict,
// its details name no object (Kubernetes' NewApplyConflict in
// k8s.io/apimachinery/pkg/api/errors).
func NewApplyConflict(causes []Cause, msg string) *Error {
	return New(409, ReasonConflict, msg, &Details{Causes: causes})
}
