package status

import (
	"strconv"
	"strings"
)

// GroupResource names a resource within an API group, e.g. {"apps",
// "deployments"}. It prints as "deployments.apps", or just the resource for
// the core group, which is how Kubernetes names resources in messages.
type GroupResource struct {
	Group    string
	Resource string
}

func (gr GroupResource) String() string {
	if gr.Group == "" {
		return gr.Resource
	}
	return gr.Resource + "." + gr.Group
}

// GroupKind names a kind within an API group. It prints as "Kind.group", or
// just the kind for the core group.
type GroupKind struct {
	Group string
	Kind  string
}

func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// OptimisticLockMessage is the text Kubernetes puts after the object name
// in the 409 for an update with a stale resourceVersion.
const OptimisticLockMessage = "the object has been modified; please apply your changes to the latest version and try again"

// New returns a failure with the given HTTP code, reason, message and
// details (nil for none): the general constructor, for a status no other
// constructor here writes, such as Kubernetes' plain 500 from storage,
// which has no reason. Kind, APIVersion and Status are filled in.
func New(code int32, reason Reason, msg string, d *Details) *Error {
	return &Error{Status: Status{
		Kind: "Status", APIVersion: "v1", Status: StatusFailure,
		Message: msg, Reason: reason, Details: d, Code: code,
	}}
}

// NewBadRequest returns a 400 BadRequest with msg as the message.
func NewBadRequest(msg string) *Error {
	return New(400, ReasonBadRequest, msg, nil)
}

// NewInvalid returns the 422 Invalid for a failed validation of the object
// named name of kind gk, with one cause per field error. The message is
// `<Kind.group> "<name>" is invalid: <errors>`, where several errors are
// deduplicated and printed as "[e1, e2]".
func NewInvalid(gk GroupKind, name string, errs ...FieldError) *Error {
	causes := make([]Cause, 0, len(errs))
	seen := make(map[string]bool, len(errs))
	texts := make([]string, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, Cause{Type: e.Type, Message: e.Body(), Field: e.Field})
		if t := e.Error(); !seen[t] {
			seen[t] = true
			texts = append(texts, t)
		}
	}
	agg := ""
	switch len(texts) {
	case 0:
	case 1:
		agg = texts[0]
	default:
		agg = "[" + strings.Join(texts, ", ") + "]"
	}
	msg := gk.String() + " " + strconv.Quote(name) + " is invalid"
	if agg != "" {
		msg += ": " + agg
	}
	return New(422, ReasonInvalid, msg, &Details{
		Name: name, Group: gk.Group, Kind: gk.Kind, Causes: causes,
	})
}

// NewNotFound returns the 404 `<resource.group> "<name>" not found`.
func NewNotFound(gr GroupResource, name string) *Error {
	return New(404, ReasonNotFound, gr.String()+" "+strconv.Quote(name)+" not found",
		&Details{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewAlreadyExists returns the 409 `<resource.group> "<name>" already exists`.
func NewAlreadyExists(gr GroupResource, name string) *Error {
	return New(409, ReasonAlreadyExists, gr.String()+" "+strconv.Quote(name)+" already exists",
		&Details{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewAlreadyExistsTerminating returns the 409 AlreadyExists for a create
// whose name is still held by an object being deleted; Kubernetes prefixes
// the message with "object is being deleted: ".
func NewAlreadyExistsTerminating(gr GroupResource, name string) *Error {
	e := NewAlreadyExists(gr, name)
	e.Status.Message = "object is being deleted: " + e.Status.Message
	return e
}

// NewGenerateNameConflict returns the 409 AlreadyExists a create with
// generateName ends with when no unique name was found; it asks the client
// to retry after retryAfterSeconds.
func NewGenerateNameConflict(gr GroupResource, name string, retryAfterSeconds int) *Error {
	return New(409, ReasonAlreadyExists,
		gr.String()+" "+strconv.Quote(name)+" already exists, the server was not able to generate a unique name for the object",
		&Details{Name: name, Group: gr.Group, Kind: gr.Resource, RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewConflict returns the 409 `Operation cannot be fulfilled on
// <resource.group> "<name>": <detail>`. For a stale resourceVersion, detail
// is OptimisticLockMessage.
func NewConflict(gr GroupResource, name, detail string) *Error {
	return New(409, ReasonConflict,
		"Operation cannot be fulfilled on "+gr.String()+" "+strconv.Quote(name)+": "+detail,
		&Details{Name: name, Group: gr.Group, Kind: gr.Resource})
}

// NewForbidden returns the 403 Forbidden `<resource> "<name>" is forbidden:
// <err>` (for a collection, name is "" and the quoted name is dropped;
// with no resource either, just `forbidden: <err>`), as Kubernetes answers
// an authorizer's or admission's refusal. err is kept as the cause.
func NewForbidden(gr GroupResource, name string, err error) *Error {
	var msg string
	switch {
	case gr == GroupResource{}:
		msg = "forbidden: " + err.Error()
	case name == "":
		msg = gr.String() + " is forbidden: " + err.Error()
	default:
		msg = gr.String() + " " + strconv.Quote(name) + " is forbidden: " + err.Error()
	}
	e := New(403, ReasonForbidden, msg, &Details{Name: name, Group: gr.Group, Kind: gr.Resource})
	e.cause = err
	return e
}

// NewExpired returns a 410 Expired with msg as the message: the answer for a
// resourceVersion or continue token older than retained history.
func NewExpired(msg string) *Error {
	return New(410, ReasonExpired, msg, nil)
}

// NewTimeout returns the 504 Timeout `Timeout: <msg>`. Kubernetes always
// includes details, holding retryAfterSeconds when it is positive.
func NewTimeout(msg string, retryAfterSeconds int) *Error {
	return New(504, ReasonTimeout, "Timeout: "+msg,
		&Details{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewTooLargeResourceVersion returns the 504 a read of a resourceVersion the
// server has not reached yet ends with: `Timeout: Too large resource
// version: <requested>, current: <current>`, with the
// ResourceVersionTooLarge cause client-go looks for.
func NewTooLargeResourceVersion(requested, current uint64, retryAfterSeconds int) *Error {
	e := NewTimeout("Too large resource version: "+strconv.FormatUint(requested, 10)+
		", current: "+strconv.FormatUint(current, 10), retryAfterSeconds)
	e.Status.Details.Causes = []Cause{{Type: CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return e
}

// NewTooManyRequests returns a 429 TooManyRequests with msg as the message.
func NewTooManyRequests(msg string, retryAfterSeconds int) *Error {
	return New(429, ReasonTooManyRequests, msg,
		&Details{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewNotAcceptable returns a 406 NotAcceptable with msg as the message.
func NewNotAcceptable(msg string) *Error {
	return New(406, ReasonNotAcceptable, msg, nil)
}

// NewNotAcceptableMediaTypes returns the 406 of content negotiation: `only
// the following media types are accepted: <types>`.
func NewNotAcceptableMediaTypes(accepted ...string) *Error {
	return NewNotAcceptable("only the following media types are accepted: " + strings.Join(accepted, ", "))
}

// NewUnsupportedMediaType returns a 415 UnsupportedMediaType with msg as the
// message.
func NewUnsupportedMediaType(msg string) *Error {
	return New(415, ReasonUnsupportedMediaType, msg, nil)
}

// NewUnsupportedBodyMediaType returns the 415 for a request body whose
// Content-Type is not one of accepted: `the body of the request was in an
// unknown format - accepted media types include: <types>`.
func NewUnsupportedBodyMediaType(accepted ...string) *Error {
	return NewUnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: " +
		strings.Join(accepted, ", "))
}

// NewRequestEntityTooLarge returns the 413 `Request entity too large: <msg>`.
func NewRequestEntityTooLarge(msg string) *Error {
	return New(413, ReasonRequestEntityTooLarge, "Request entity too large: "+msg, nil)
}

// NewRequestBodyTooLarge returns the 413 for a body over limit bytes:
// `Request entity too large: limit is <limit>`.
func NewRequestBodyTooLarge(limit int64) *Error {
	return NewRequestEntityTooLarge("limit is " + strconv.FormatInt(limit, 10))
}

// NewMethodNotSupported returns the 405 `<action> is not supported on
// resources of kind "<resource.group>"`.
func NewMethodNotSupported(gr GroupResource, action string) *Error {
	return New(405, ReasonMethodNotAllowed,
		action+" is not supported on resources of kind "+strconv.Quote(gr.String()),
		&Details{Group: gr.Group, Kind: gr.Resource})
}

// NewInternalError returns the 500 `Internal error occurred: <err>` with err
// as its single cause; Unwrap returns err.
func NewInternalError(err error) *Error {
	msg := "<nil>"
	if err != nil {
		msg = err.Error()
	}
	e := New(500, ReasonInternalError, "Internal error occurred: "+msg,
		&Details{Causes: []Cause{{Message: msg}}})
	e.cause = err
	return e
}

// NewServiceUnavailable returns a 503 ServiceUnavailable with msg as the
// message.
func NewServiceUnavailable(msg string) *Error {
	return New(503, ReasonServiceUnavailable, msg, nil)
}

// NewSuccess returns the Status a delete answers with when it does not
// return the object: status Success with the deleted object's details and
// no code, as Kubernetes writes it.
func NewSuccess(d *Details) Status {
	return Status{Kind: "Status", APIVersion: "v1", Status: StatusSuccess, Details: d}
}
