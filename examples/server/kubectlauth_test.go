package main

import (
	"strings"
	"testing"
)

// TestKubectlAuth: kubectl's auth commands, which ask the review APIs
// (authorization.k8s.io SelfSubjectAccessReview, authentication.k8s.io
// SelfSubjectReview). The server has no authenticator or authorizer, so
// everything is allowed, as for the reference's cluster-admin, and the
// user is the zero one.
func TestKubectlAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kubectl")
	}
	p := mustStart(t, "-seed=false", "-addr", "127.0.0.1:0")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"auth", "can-i", "create", "pods"}, "yes\n"},
		{[]string{"auth", "can-i", "list", "secrets", "-n", "kube-system"}, "yes\n"},
		{[]string{"auth", "can-i", "get", "/healthz"}, "yes\n"},
		{[]string{"auth", "can-i", "--list", "--no-headers"}, "*.* [] [] [*]\n[*] [] [*]\n"},
		{[]string{"auth", "whoami", "-o", "jsonpath={.kind} {.status.userInfo}"}, "SelfSubjectReview {}"},
		{[]string{"api-resources", "--api-group=authorization.k8s.io", "--no-headers"},
			"localsubjectaccessreviews authorization.k8s.io/v1 true LocalSubjectAccessReview\n" +
				"selfsubjectaccessreviews authorization.k8s.io/v1 false SelfSubjectAccessReview\n" +
				"selfsubjectrulesreviews authorization.k8s.io/v1 false SelfSubjectRulesReview\n" +
				"subjectaccessreviews authorization.k8s.io/v1 false SubjectAccessReview\n"},
		{[]string{"api-resources", "--api-group=authentication.k8s.io", "--no-headers"},
			"selfsubjectreviews authentication.k8s.io/v1 false SelfSubjectReview\n" +
				"tokenreviews authentication.k8s.io/v1 false TokenReview\n"},
	} {
		got := p.kubectl(t, "", c.args...)
		if strings.HasPrefix(c.want, "*.*") || c.args[0] == "api-resources" { // a table
			var rows strings.Builder // without kubectl's column widths
			for _, line := range strings.SplitAfter(got, "\n") {
				if line != "" {
					rows.WriteString(strings.Join(strings.Fields(line), " ") + "\n")
				}
			}
			got = rows.String()
		}
		if got != c.want {
			t.Errorf("kubectl %s:\n%q\nwant\n%q", strings.Join(c.args, " "), got, c.want)
		}
	}
}
