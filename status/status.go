package status

import (
	"errors"

	"github.com/apisem/apisem/meta"
)

// Reason is a Kubernetes StatusReason: a machine-readable word saying why an
// operation failed. A Reason is also an error value so that
// errors.Is(err, ReasonNotFound) reports whether err is a *Error with that
// reason.
type Reason string

// The reasons Kubernetes defines (metav1.StatusReason values).
const (
	ReasonUnknown               Reason = ""
	ReasonUnauthorized          Reason = "Unauthorized"
	ReasonForbidden             Reason = "Forbidden"
	ReasonNotFound              Reason = "NotFound"
	ReasonAlreadyExists         Reason = "AlreadyExists"
	ReasonConflict              Reason = "Conflict"
	ReasonGone                  Reason = "Gone"
	ReasonInvalid               Reason = "Invalid"
	ReasonServerTimeout         Reason = "ServerTimeout"
	ReasonStorageReadError      Reason = "StorageReadError"
	ReasonTimeout               Reason = "Timeout"
	ReasonTooManyRequests       Reason = "TooManyRequests"
	ReasonBadRequest            Reason = "BadRequest"
	ReasonMethodNotAllowed      Reason = "MethodNotAllowed"
	ReasonNotAcceptable         Reason = "NotAcceptable"
	ReasonRequestEntityTooLarge Reason = "RequestEntityTooLarge"
	ReasonUnsupportedMediaType  Reason = "UnsupportedMediaType"
	ReasonInternalError         Reason = "InternalError"
	ReasonExpired               Reason = "Expired"
	ReasonServiceUnavailable    Reason = "ServiceUnavailable"
)

// Error makes a Reason usable as an errors.Is target. It returns the reason
// itself, so a Reason prints the same with %v and %s.
func (r Reason) Error() string { return string(r) }

// CauseType is the machine-readable kind of one StatusCause.
type CauseType string

// The cause types Kubernetes defines (metav1.CauseType values).
const (
	CauseTypeFieldValueNotFound       CauseType = "FieldValueNotFound"
	CauseTypeFieldValueRequired       CauseType = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      CauseType = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        CauseType = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   CauseType = "FieldValueNotSupported"
	CauseTypeFieldValueForbidden      CauseType = "FieldValueForbidden"
	CauseTypeFieldValueTooLong        CauseType = "FieldValueTooLong"
	CauseTypeFieldValueTooMany        CauseType = "FieldValueTooMany"
	CauseTypeInternal                 CauseType = "InternalError"
	CauseTypeFieldValueTypeInvalid    CauseType = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     CauseType = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  CauseType = "ResourceVersionTooLarge"
)

// Values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// Status is metav1.Status with Kubernetes' JSON field names, order and
// omission rules. The zero value renders as {"metadata":{}}; the
// constructors fill in Kind, APIVersion and Status.
type Status struct {
	Kind       string        `json:"kind,omitempty"`
	APIVersion string        `json:"apiVersion,omitempty"`
	Metadata   meta.ListMeta `json:"metadata"`
	// Status is StatusSuccess or StatusFailure.
	Status  string   `json:"status,omitempty"`
	Message string   `json:"message,omitempty"`
	Reason  Reason   `json:"reason,omitempty"`
	Details *Details `json:"details,omitempty"`
	// Code is the HTTP status code; 0 means unset.
	Code int32 `json:"code,omitempty"`
}

// Details is metav1.StatusDetails. Kind is usually the plural resource name,
// as Kubernetes writes it.
type Details struct {
	Name              string  `json:"name,omitempty"`
	Group             string  `json:"group,omitempty"`
	Kind              string  `json:"kind,omitempty"`
	UID               string  `json:"uid,omitempty"`
	Causes            []Cause `json:"causes,omitempty"`
	RetryAfterSeconds int32   `json:"retryAfterSeconds,omitempty"`
}

// Cause is metav1.StatusCause. Its Type is written as "reason" on the wire.
type Cause struct {
	Type    CauseType `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	Field   string    `json:"field,omitempty"`
}

// Error is a Status carried as a Go error. Its Error method returns the
// message, as Kubernetes' StatusError does. Construct one with the New
// functions; a zero Error is a valid but uninformative 500.
type Error struct {
	Status Status
	// cause is the underlying error, if any, exposed through Unwrap.
	cause error
}

// Error returns the status message.
func (e *Error) Error() string { return e.Status.Message }

// Unwrap returns the error this status was built from, if any.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is this error's Reason, so that
// errors.Is(err, ReasonConflict) works through wrapping.
func (e *Error) Is(target error) bool {
	r, ok := target.(Reason)
	return ok && r == e.reason()
}

// reason is the classification of e: an unset reason on a 500 (or unset
// code) counts as InternalError, as ReasonForError documents.
func (e *Error) reason() Reason {
	if e.Status.Reason == ReasonUnknown && e.code() == 500 {
		return ReasonInternalError
	}
	return e.Status.Reason
}

func (e *Error) code() int32 {
	if e.Status.Code == 0 {
		return 500
	}
	return e.Status.Code
}

// Code returns the HTTP status code of e (500 when unset, as Kubernetes
// treats a Failure with code 0).
func (e *Error) Code() int { return int(e.code()) }

// RetryAfterSeconds returns details.retryAfterSeconds, or 0.
func (e *Error) RetryAfterSeconds() int {
	if e.Status.Details == nil {
		return 0
	}
	return int(e.Status.Details.RetryAfterSeconds)
}

// WithContinue returns a copy of e whose Status carries token in
// metadata.continue (the inconsistent-continue token of an expired list).
func (e *Error) WithContinue(token string) *Error {
	c := *e
	c.Status.Metadata.Continue = token
	return &c
}

// Wrap returns a copy of e whose Unwrap returns cause. Use it when a status
// is built from a lower-level error callers may want to inspect.
func (e *Error) Wrap(cause error) *Error {
	c := *e
	c.cause = cause
	return &c
}

// FromError returns the Status to render for err. A *Error anywhere in err's
// chain gives its own Status (with Kind, APIVersion, Status and Code filled
// in if they were left empty); any other error is rendered as Kubernetes
// renders a foreign error: code 500, no reason, the error text as message.
func FromError(err error) Status {
	var se *Error
	if errors.As(err, &se) {
		s := se.Status
		s.Kind, s.APIVersion = "Status", "v1"
		if s.Status == "" {
			s.Status = StatusFailure
		}
		if s.Status == StatusFailure && s.Code == 0 {
			s.Code = 500
		}
		return s
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return Status{Kind: "Status", APIVersion: "v1", Status: StatusFailure, Message: msg, Code: 500}
}

// ReasonForError returns the reason of the *Error in err's chain. A foreign
// error, or a Status 500 with no reason, is ReasonInternalError; nil is
// ReasonUnknown.
func ReasonForError(err error) Reason {
	if err == nil {
		return ReasonUnknown
	}
	var se *Error
	if errors.As(err, &se) {
		return se.reason()
	}
	return ReasonInternalError
}

// CodeForError returns the HTTP code of the *Error in err's chain, 500 for a
// foreign error and 200 for nil.
func CodeForError(err error) int {
	if err == nil {
		return 200
	}
	var se *Error
	if errors.As(err, &se) {
		return se.Code()
	}
	return 500
}

// RetryAfterSeconds returns details.retryAfterSeconds of the *Error in err's
// chain, or 0. A server sets the Retry-After header from it.
func RetryAfterSeconds(err error) int {
	var se *Error
	if errors.As(err, &se) {
		return se.RetryAfterSeconds()
	}
	return 0
}

// HasCause reports whether err is a *Error with a cause of type t.
func HasCause(err error, t CauseType) bool {
	var se *Error
	if !errors.As(err, &se) || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Type == t {
			return true
		}
	}
	return false
}

// IsNotFound reports whether err is a 404 NotFound.
func IsNotFound(err error) bool { return errors.Is(err, ReasonNotFound) }

// IsAlreadyExists reports whether err is a 409 AlreadyExists.
func IsAlreadyExists(err error) bool { return errors.Is(err, ReasonAlreadyExists) }

// IsConflict reports whether err is a 409 Conflict.
func IsConflict(err error) bool { return errors.Is(err, ReasonConflict) }

// IsForbidden reports whether err is a 403 Forbidden.
func IsForbidden(err error) bool { return errors.Is(err, ReasonForbidden) }

// IsInvalid reports whether err is a 422 Invalid.
func IsInvalid(err error) bool { return errors.Is(err, ReasonInvalid) }

// IsBadRequest reports whether err is a 400 BadRequest.
func IsBadRequest(err error) bool { return errors.Is(err, ReasonBadRequest) }

// IsExpired reports whether err is a 410 Expired (compacted history or an
// expired continue token). The deprecated reason Gone counts too.
func IsExpired(err error) bool {
	return errors.Is(err, ReasonExpired) || errors.Is(err, ReasonGone)
}

// IsTimeout reports whether err is a 504 Timeout.
func IsTimeout(err error) bool { return errors.Is(err, ReasonTimeout) }

// IsTooLargeResourceVersion reports whether err is the 504 "Too large
// resource version": reason Timeout with a ResourceVersionTooLarge cause,
// the test client-go applies.
func IsTooLargeResourceVersion(err error) bool {
	return IsTimeout(err) && HasCause(err, CauseTypeResourceVersionTooLarge)
}

// IsTooManyRequests reports whether err is a 429 TooManyRequests.
func IsTooManyRequests(err error) bool { return errors.Is(err, ReasonTooManyRequests) }

// IsNotAcceptable reports whether err is a 406 NotAcceptable.
func IsNotAcceptable(err error) bool { return errors.Is(err, ReasonNotAcceptable) }

// IsUnsupportedMediaType reports whether err is a 415 UnsupportedMediaType.
func IsUnsupportedMediaType(err error) bool { return errors.Is(err, ReasonUnsupportedMediaType) }

// IsRequestEntityTooLarge reports whether err is a 413 RequestEntityTooLarge.
func IsRequestEntityTooLarge(err error) bool {
	return errors.Is(err, ReasonRequestEntityTooLarge)
}

// IsMethodNotAllowed reports whether err is a 405 MethodNotAllowed.
func IsMethodNotAllowed(err error) bool { return errors.Is(err, ReasonMethodNotAllowed) }

// IsInternalError reports whether err is a 500 InternalError, including any
// foreign error.
func IsInternalError(err error) bool { return ReasonForError(err) == ReasonInternalError }
