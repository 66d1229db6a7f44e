//go:build ignore

// Command record-reviews records what a kube-apiserver answers to the
// review APIs as the user it gives anonymous requests (bound to
// cluster-admin by the reference's RBAC): SelfSubjectAccessReviews,
// SubjectAccessReviews and LocalSubjectAccessReviews, valid and not,
// a SelfSubjectRulesReview without a namespace, TokenReviews that fail
// and a SelfSubjectReview. From builtin/, with the reference of
// ../shared/reference running:
//
//	API=https://127.0.0.1:6443 go run record-reviews.go
//
// It writes testdata/reference/reviews.json, which TestRecordedReviews
// replays in order.
package main

import (
	"log"

	"github.com/apisem/apisem/internal/recorder"
)

type step = recorder.Step

var post = recorder.Post

const (
	ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	sar  = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	lsar = "/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"
	ssr  = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
)

func review(kind, spec string) string {
	return "apiVersion: authorization.k8s.io/v1\nkind: " + kind + "\nspec:\n" + spec
}

var steps = []step{
	post("can create pods", ssar, review("SelfSubjectAccessReview", "  resourceAttributes:\n    verb: create\n    resource: pods\n    namespace: default\n")),
	post("can get /healthz", ssar, review("SelfSubjectAccessReview", "  nonResourceAttributes:\n    verb: get\n    path: /healthz\n")),
	post("self review of nothing", ssar, review("SelfSubjectAccessReview", "  {}\n")),
	post("self review of both", ssar, review("SelfSubjectAccessReview",
		"  resourceAttributes:\n    verb: get\n    resource: pods\n  nonResourceAttributes:\n    verb: get\n    path: /healthz\n")),
	post("self review named", ssar, "apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nmetadata:\n  name: x\n  labels:\n    a: b\nspec:\n  resourceAttributes:\n    verb: list\n    group: apps\n    resource: deployments\n"),
	post("subject review of the anonymous group", sar, review("SubjectAccessReview",
		"  groups: [system:unauthenticated]\n  user: system:anonymous\n  resourceAttributes:\n    verb: delete\n    resource: secrets\n    namespace: kube-system\n")),
	post("subject review of no one", sar, review("SubjectAccessReview", "  resourceAttributes:\n    verb: get\n    resource: pods\n")),
	post("subject review of nothing", sar, review("SubjectAccessReview", "  user: system:anonymous\n  groups: [system:unauthenticated]\n")),
	post("local review", lsar, review("LocalSubjectAccessReview",
		"  user: system:anonymous\n  groups: [system:unauthenticated]\n  resourceAttributes:\n    verb: get\n    resource: configmaps\n    namespace: default\n")),
	post("local review of another namespace", lsar, review("LocalSubjectAccessReview",
		"  user: system:anonymous\n  groups: [system:unauthenticated]\n  resourceAttributes:\n    verb: get\n    resource: configmaps\n    namespace: other\n")),
	post("local review without namespace", lsar, review("LocalSubjectAccessReview",
		"  user: system:anonymous\n  groups: [system:unauthenticated]\n  resourceAttributes:\n    verb: get\n    resource: configmaps\n")),
	post("local review of a non-resource", lsar, review("LocalSubjectAccessReview",
		"  user: system:anonymous\n  groups: [system:unauthenticated]\n  nonResourceAttributes:\n    verb: get\n    path: /healthz\n")),
	post("rules review without namespace", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", review("SelfSubjectRulesReview", "  {}\n")),
	post("token review without a token", "/apis/authentication.k8s.io/v1/tokenreviews", "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec: {}\n"),
	post("token review of an invalid token", "/apis/authentication.k8s.io/v1/tokenreviews", "apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: nope\n"),
	post("self subject review", ssr, "apiVersion: authentication.k8s.io/v1\nkind: SelfSubjectReview\n"),
}

func main() {
	for i := range steps {
		recorder.Do(&steps[i])
	}
	recorder.Write("testdata/reference/reviews.json", steps)
	log.Printf("recorded %d steps", len(steps))
}
