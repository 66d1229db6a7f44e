package server

import "testing"

// An unknown field in a field selector: kube-apiserver's default
// conversion's text for a kind without selectable fields of its own,
// `field label not supported` for Pods and custom resources (recorded
// with GET, ?watch=1 and across namespaces alike).
func TestRecordedUnknownFieldSelector(t *testing.T) {
	s := newTestServer(t, Options{Resources: referenceResources()})
	const (
		unknown     = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"\"spec.foo\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"","reason":"BadRequest","code":400}` + "\n"
		unsupported = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"field label not supported: spec.foo","reason":"BadRequest","code":400}` + "\n"
	)
	for _, tt := range []recorded{
		{method: "GET", path: "/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo=bar", code: 400, want: unknown},
		{method: "GET", path: "/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo=bar&watch=1", code: 400, want: unknown},
		{method: "GET", path: "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name=a,spec.foo=bar", code: 400, want: unknown},
		{method: "GET", path: "/api/v1/namespaces/default/configmaps?fieldSelector=spec.foo!=bar", code: 400, want: unknown},
		{method: "GET", path: "/apis/apps/v1/namespaces/default/deployments?fieldSelector=spec.foo=bar", code: 400, want: unknown},
		{method: "GET", path: "/api/v1/namespaces/default/pods?fieldSelector=spec.foo=bar", code: 400, want: unsupported},
		{method: "GET", path: "/api/v1/pods?fieldSelector=spec.foo=bar", code: 400, want: unsupported},
		{method: "GET", path: "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName=x,spec.foo=bar", code: 400, want: unsupported},
		{method: "GET", path: "/apis/example.apisem.dev/v1/namespaces/default/widgets?fieldSelector=spec.foo=bar", code: 400, want: unsupported},
		{method: "GET", path: "/apis/example.apisem.dev/v1/widgets?fieldSelector=spec.foo=bar", code: 400, want: unsupported},
		{method: "GET", path: "/apis/example.apisem.dev/v1/namespaces/default/widgets?fieldSelector=spec.foo=bar&watch=1", code: 400, want: unsupported},
		{method: "GET", path: "/apis/example.apisem.dev/v1/namespaces/default/widgets?fieldSelector=metadata.name=x,spec.foo=bar", code: 400, want: unsupported},
	} {
		tt.check(t, s)
	}
}
