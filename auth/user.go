package auth

import (
	"context"
	"slices"
)

// User is who a request comes from, as an authenticator established it.
// It has the fields of Kubernetes' user.Info and of the userInfo of a
// TokenReview or SubjectAccessReview.
type User struct {
	// Name is the user name ("alice", "system:serviceaccount:ns:sa",
	// "system:anonymous").
	Name string
	// UID identifies the user across name changes; often empty.
	UID string
	// Groups are the groups the user belongs to.
	Groups []string
	// Extra holds what else an authenticator knows (scopes, the
	// credential id of a service account token), keyed by lower-case
	// names.
	Extra map[string][]string
}

// Names and groups with a meaning in Kubernetes
// (k8s.io/apiserver/pkg/authentication/user).
const (
	// Anonymous is the name of an unauthenticated user.
	Anonymous = "system:anonymous"
	// AllUnauthenticated is the group of unauthenticated users.
	AllUnauthenticated = "system:unauthenticated"
	// AllAuthenticated is the group every authenticated user is in.
	AllAuthenticated = "system:authenticated"
	// SystemPrivilegedGroup is the group Kubernetes' default RBAC gives
	// every permission (a cluster-admin's, and the aggregator's).
	SystemPrivilegedGroup = "system:masters"
)

// InGroup reports whether u is a member of group.
func (u User) InGroup(group string) bool { return slices.Contains(u.Groups, group) }

type userKey struct{}

// WithUser returns a context carrying u: the server puts the authenticated
// user there before it runs a handler.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user of a request's context, and false when the
// request was not authenticated (the server has no authenticator).
// Handlers use it for audit records and as the managedFields manager.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}
