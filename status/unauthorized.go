package status

import "errors"

// NewUnauthorized returns the 401 Unauthorized a Kubernetes API server
// answers when no authenticator accepted the request. Kubernetes' filter
// passes "Unauthorized" as msg; an empty msg becomes "not authorized", as
// apimachinery's NewUnauthorized does. The Status has no details.
func NewUnauthorized(msg string) *Error {
	if msg == "" {
		msg = "not authorized"
	}
	return New(401, ReasonUnauthorized, msg, nil)
}

// IsUnauthorized reports whether err is a 401 Unauthorized.
func IsUnauthorized(err error) bool { return errors.Is(err, ReasonUnauthorized) }
