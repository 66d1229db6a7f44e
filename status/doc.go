// Package status is the error vocabulary of apisem: the Kubernetes Status
// object (metav1.Status on the wire) as a Go error.
//
// Every error a client can cause anywhere in apisem is a *Error. It carries
// the HTTP code, the Kubernetes reason and a message written exactly as a
// Kubernetes API server writes it, so that client code written for
// Kubernetes (client-go's apierrors.IsNotFound, IsConflict, IsGone,
// IsTooLargeResourceVersion, the reflector's relist on 410) behaves the same
// against an apisem server.
//
// # Matching errors
//
// A *Error matches its Reason with errors.Is, and errors.As finds the *Error
// through any number of %w wraps:
//
//	if errors.Is(err, status.ReasonNotFound) { ... }
//	var se *status.Error
//	if errors.As(err, &se) { log.Print(se.Status.Code) }
//
// The Is helpers (IsNotFound, IsConflict, IsExpired, ...) are shorthands for
// the same test. Classification is by reason only, never by HTTP code, so an
// error has exactly one meaning. ReasonForError and CodeForError classify any
// error; a foreign (non-Status) error counts as a 500 InternalError.
//
// # Rendering
//
// Status has the fields of metav1.Status in Kubernetes' order and with its
// omission rules, so encoding/json renders the same bytes a Kubernetes API
// server writes: kind "Status", apiVersion "v1", metadata always present
// (usually {}), status "Failure". FromError turns any error into the Status
// to render; package negotiation writes it in the negotiated media type.
//
// # Non-goals
//
// Package status does not write HTTP responses or choose media types (that
// is package negotiation) and has no registry of reasons: constructors are
// plain functions. It imports only package meta (for the ListMeta a Status
// carries) and is safe to use from any layer.
package status
