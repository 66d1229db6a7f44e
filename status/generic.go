package status

// GenericInvalidMessage is the message of the 422 Kubernetes builds when it
// knows only that the request could not be processed.
const GenericInvalidMessage = "the server rejected our request due to an error in our request"

// NewGenericInvalid returns the 422 Invalid Kubernetes answers, through
// apimachinery's NewGenericServerResponse, when a JSON patch cannot be
// applied to the object: message GenericInvalidMessage and empty details.
// Kubernetes drops the reason from the response; cause (the patch library's
// error) is kept for Unwrap and logs, and is not sent.
func NewGenericInvalid(cause error) *Error {
	e := New(422, ReasonInvalid, GenericInvalidMessage, &Details{})
	e.cause = cause
	return e
}
