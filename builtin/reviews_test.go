package builtin

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// anonymousAdmin is what the reference's authenticator and RBAC make of
// the recorder's requests: anonymous ones, whose group is bound to
// cluster-admin, so that every review of that group is allowed with
// RBAC's reason; a bearer token is refused as no token the reference
// knows.
var anonymousAdmin = server.SecurityOptions{
	Authenticator: auth.AuthenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
		if r.Header.Get("Authorization") != "" {
			return auth.User{}, false, errors.New("invalid bearer token")
		}
		return auth.User{Name: auth.Anonymous, Groups: []string{auth.AllUnauthenticated}}, true, nil
	}),
	Authorizer: auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
		if a.User.InGroup(auth.AllUnauthenticated) {
			return auth.DecisionAllow, `RBAC: allowed by ClusterRoleBinding "reference-anonymous-cluster-admin" of ClusterRole "cluster-admin" to Group "system:unauthenticated"`, nil
		}
		return auth.DecisionNoOpinion, "", nil
	}),
}

// escapedTime is a managedFields time inside a message (the metadata a
// 422 prints), which differs between the servers as any time.
var escapedTime = regexp.MustCompile(`\\"time\\":\\"[0-9TZ:-]+\\"`)

// TestRecordedReviews replays testdata/reference/reviews.json, recorded
// from kube-apiserver 1.37.1 (record-reviews.go): self, subject and local
// subject access reviews, allowed and invalid (422 with Kubernetes'
// validation messages), a SelfSubjectRulesReview without a namespace,
// TokenReviews that fail and a SelfSubjectReview.
func TestRecordedReviews(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: res, Security: anonymousAdmin})
	replayWith(t, url, "testdata/reference/reviews.json", func(s string) string {
		return escapedTime.ReplaceAllString(s, `\\"time\\":\\"-\\"`)
	})
}

// A SelfSubjectRulesReview answers the rules of kube-apiserver's
// AlwaysAllow authorizer on a server without an authorizer (which
// allows everything), and no rules, incomplete, on one with an
// auth.Authorizer (which cannot list what it allows), as kube-apiserver
// answers for a webhook authorizer; the spec is not echoed.
func TestRulesReview(t *testing.T) {
	res, err := Resources(Options{Groups: []string{"authorization.k8s.io"}})
	if err != nil {
		t.Fatal(err)
	}
	const body = `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"default"}}`
	for _, c := range []struct {
		name string
		sec  server.SecurityOptions
		want string
	}{
		{"no authorizer", server.SecurityOptions{}, `{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{},"status":{` +
			`"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false}}`},
		{"an authorizer", anonymousAdmin, `{"kind":"SelfSubjectRulesReview","apiVersion":"authorization.k8s.io/v1","metadata":{},"spec":{},"status":{` +
			`"resourceRules":[],"nonResourceRules":[],"incomplete":true}}`},
	} {
		_, url := servertest.New(t, server.Options{Resources: res, Security: c.sec})
		r := servertest.Do(t, "POST", url+"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", body, "Content-Type", "application/json", "Accept", "application/json")
		if got := strings.TrimSuffix(r.Body, "\n"); r.Code != 201 || got != c.want {
			t.Errorf("%s: %d %s\nwant 201 %s", c.name, r.Code, got, c.want)
		}
	}
}

// A TokenReview asks the server's authenticator about the token as a
// bearer token: who it is, with the user's uid, groups and extra (and
// the writer in managedFields, as any review's answer); a
// server without an authenticator answers the review as it came.
func TestTokenReview(t *testing.T) {
	res, err := Resources(Options{Groups: []string{"authentication.k8s.io"}})
	if err != nil {
		t.Fatal(err)
	}
	tokens := server.SecurityOptions{Authenticator: auth.AuthenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
		if r.Header.Get("Authorization") == "Bearer good" {
			return auth.User{Name: "alice", UID: "u1", Groups: []string{"devs", auth.AllAuthenticated}, Extra: map[string][]string{"scopes": {"a"}}}, true, nil
		}
		return auth.User{}, false, nil
	})}
	const body = `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"good"}}`
	for _, c := range []struct {
		name string
		sec  server.SecurityOptions
		want string
	}{
		{"no authenticator", server.SecurityOptions{}, `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"managedFields":[{"manager":"test","operation":"Update","apiVersion":"authentication.k8s.io/v1","time":"-","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:token":{}}}}]},"spec":{"token":"good"},"status":{"user":{}}}`},
		{"an authenticator", tokens, `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","metadata":{"managedFields":[{"manager":"test","operation":"Update","apiVersion":"authentication.k8s.io/v1","time":"-","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:token":{}}}}]},"spec":{"token":"good"},"status":{"authenticated":true,` +
			`"user":{"username":"alice","uid":"-","groups":["devs","system:authenticated"],"extra":{"scopes":["a"]}}}}`},
	} {
		_, url := servertest.New(t, server.Options{Resources: res, Security: c.sec})
		r := servertest.Do(t, "POST", url+"/apis/authentication.k8s.io/v1/tokenreviews?fieldManager=test", body, "Content-Type", "application/json", "Accept", "application/json",
			"Authorization", "Bearer good")
		if got := recorded.Normalize(strings.TrimSuffix(r.Body, "\n")); r.Code != 201 || got != c.want {
			t.Errorf("%s: %d %s\nwant 201 %s", c.name, r.Code, got, c.want)
		}
	}
}
