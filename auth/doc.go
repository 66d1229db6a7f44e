// Package auth decides who sends a request and what they may do, the way
// a Kubernetes API server does: authenticators that turn a request into a
// User, authorizers that turn a User and the request's Attributes into a
// decision, and the 401 and 403 Statuses Kubernetes answers. Package
// server runs them before every handler (server.Options.Security.Authenticator
// and Authorizer) and puts the user in the request's context (UserFrom).
//
// # Authentication
//
// Each Authenticator knows one kind of credential and composes with the
// others:
//
//   - RequestHeader: the user a front proxy (the Kubernetes aggregator)
//     asserts in X-Remote-User, X-Remote-Group and X-Remote-Extra-*
//     headers, believed only from a client certificate signed by the
//     request-header CA with an allowed common name; the headers are
//     removed from every request, believed or not.
//   - ClientCert: a TLS client certificate signed by the client CA; the
//     common name is the user, the organizations the groups.
//   - BearerToken: an "Authorization: Bearer" token, reviewed by a
//     TokenReviewer (the host cluster's TokenReview API), answers cached
//     briefly.
//   - WithAnonymous: system:anonymous for requests without credentials,
//     only where it is composed in.
//
// Authenticators tries several in order and WithAuthenticatedGroup adds
// system:authenticated; Chain composes them all as kube-apiserver does.
//
// # Authorization
//
// An Authorizer answers allow, deny or no opinion for Attributes (user,
// verb, API group, version, resource, subresource, namespace, name, or
// the path of a non-resource request). Authorizers asks several in order;
// AllowPaths (--authorization-always-allow-paths) lets probes reach the
// health endpoints; AllowGroups lets system:masters through; Delegating
// asks an AccessReviewer (the host cluster's SubjectAccessReview API),
// answers cached briefly. An authorizer error refuses the request:
// nothing is allowed because the host cluster failed to answer.
// AlwaysAllow is for tests.
//
// # The host cluster
//
// TokenReviewer and AccessReviewer are the only ways this package talks
// to a Kubernetes cluster, each one method. Module
// github.com/apisem/apisem/auth/kubedelegate implements them with
// client-go, and reads the request-header CA and names from the cluster's
// kube-system/extension-apiserver-authentication ConfigMap, so that this
// module does not depend on client-go; ParseExtensionAuthentication, here,
// parses that ConfigMap's data.
//
// # TLS
//
// Client certificates and the front proxy need TLS: package
// github.com/apisem/apisem/auth/certs loads or generates serving
// certificates and builds the server's tls.Config, which requests client
// certificates without verifying them in the handshake, so that an
// unknown certificate is a 401 rather than a broken connection.
//
// RequestHeader and ClientCert verify a connection's certificate once, at
// its first request, and reuse the answer for the connection's later
// requests while it holds; of the other certificates the client sent,
// only the first MaxIntermediates are tried as intermediates. A client
// thus cannot make every request pay for a long decoy chain. Each keeps
// its answers in a ConnVerifier, its own unless given one: a server whose
// front proxy and clients share a CA gives both the same ConnVerifier,
// and each connection is verified once for both. The answers are kept
// per ConnVerifier, never process-wide, and go with the connection.
//
// # Non-goals
//
// No impersonation (Impersonate-User headers), no audit log, no OIDC or
// static token files, no certificate revocation and no reloading of CA
// files while running. Users and attributes handed to handlers are
// shared: treat them as read-only.
package auth
