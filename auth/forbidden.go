package auth

import (
	"errors"
	"strconv"
	"strings"

	"github.com/apisem/apisem/status"
)

// htmlSanitizer keeps a forbidden message from looking like HTML, as
// Kubernetes' response writers do (quotes stay).
var htmlSanitizer = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// ForbiddenMessage is what Kubernetes says a user cannot do
// (k8s.io/apiserver/pkg/endpoints/handlers/responsewriters, Forbidden):
//
//	User "u" cannot get resource "configmaps" in API group "" in the namespace "ns"
//	User "u" cannot list resource "widgets/status" in API group "example.dev" at the cluster scope
//	User "u" cannot get path "/version"
func ForbiddenMessage(a Attributes) string {
	var b strings.Builder
	b.WriteString("User " + strconv.Quote(a.User.Name) + " cannot " + a.Verb)
	if !a.ResourceRequest {
		b.WriteString(" path " + strconv.Quote(a.Path))
		return b.String()
	}
	res := a.Resource
	if a.Subresource != "" {
		res += "/" + a.Subresource
	}
	b.WriteString(" resource " + strconv.Quote(res) + " in API group " + strconv.Quote(a.Group))
	if a.Namespace != "" {
		b.WriteString(" in the namespace " + strconv.Quote(a.Namespace))
	} else {
		b.WriteString(" at the cluster scope")
	}
	return b.String()
}

// Forbidden returns the 403 Forbidden Status Kubernetes answers when the
// authorizer refuses a request:
//
//	configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the namespace "ns"
//
// with ": <reason>" after it when the authorizer gave a reason, and
// "forbidden: User ..." for a non-resource request.
func Forbidden(a Attributes, reason string) *status.Error {
	msg := htmlSanitizer.Replace(ForbiddenMessage(a))
	if reason != "" {
		msg += ": " + reason
	}
	var gr status.GroupResource
	if a.ResourceRequest {
		gr = status.GroupResource{Group: a.Group, Resource: a.Resource}
	}
	return status.NewForbidden(gr, a.Name, errors.New(msg))
}

// Unauthorized is the 401 Unauthorized Status Kubernetes answers when no
// authenticator accepts a request.
func Unauthorized() *status.Error { return status.NewUnauthorized("Unauthorized") }
