package builtin

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apisem/apisem/server/servertest"
)

// A body of another kind than the endpoint's is decoded as
// kube-apiserver v1.37.1 decodes it (the messages are its answers,
// recorded from ../shared/reference): a kind its scheme does not hold in
// the body's version (the endpoint's where the body names none) is "no
// kind ... is registered", one that does not convert to the endpoint's
// an "unknown conversion", both before strict field checks; a body of
// the endpoint's kind in another version keeps the server's text.
func TestWrongKindBody(t *testing.T) {
	cs, url := newClient(t, Options{})
	const (
		ns   = "/api/v1/namespaces/default/"
		apps = "/apis/apps/v1/namespaces/default/"
	)
	for _, tc := range []struct{ path, body, msg string }{
		// Another version of the subresource's kind converts: the name
		// is checked after.
		{ns + "pods/p5/eviction", `{"kind":"Eviction","apiVersion":"policy/v1beta1","metadata":{"name":"nosuch"}}`,
			`name in URL does not match name in Eviction object`},
		{ns + "bindings", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p5"},"target":{"name":"n1"}}`,
			`Pod in version \"v1\" cannot be handled as a Binding: converting (v1.Pod) to (core.Binding): unknown conversion`},
		{ns + "pods/p5/binding", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p5"},"target":{"name":"n1"}}`,
			`Pod in version \"v1\" cannot be handled as a Binding: converting (v1.Pod) to (core.Binding): unknown conversion`},
		{ns + "pods/p5/eviction", `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p5"}}`,
			`Pod in version \"v1\" cannot be handled as a Eviction: converting (v1.Pod) to (policy.Eviction): unknown conversion`},
		{apps + "deployments", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"d"}}`,
			`ConfigMap in version \"v1\" cannot be handled as a Deployment: converting (v1.ConfigMap) to (apps.Deployment): unknown conversion`},
		{apps + "deployments?fieldValidation=Strict", `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"d"},"foo":1}`,
			`ConfigMap in version \"v1\" cannot be handled as a Deployment: converting (v1.ConfigMap) to (apps.Deployment): unknown conversion`},
		{ns + "configmaps", `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d"}}`,
			`Deployment in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Deployment) to (core.ConfigMap): unknown conversion`},
		{ns + "configmaps", `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"d"}}`,
			`Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion`},
		{ns + "configmaps", `{"kind":"Pod","apiVersion":"v2","metadata":{"name":"d"}}`,
			`Pod in version \"v2\" cannot be handled as a ConfigMap: no kind \"Pod\" is registered for version \"v2\" in scheme \"pkg/runtime/scheme.go:111\"`},
		{ns + "configmaps", `{"kind":"Foo","apiVersion":"v1","metadata":{"name":"d"}}`,
			`Foo in version \"v1\" cannot be handled as a ConfigMap: no kind \"Foo\" is registered for version \"v1\" in scheme \"pkg/runtime/scheme.go:111\"`},
		{apps + "deployments", `{"kind":"Deployment","apiVersion":"apps/v9","metadata":{"name":"d"}}`,
			`Deployment in version \"v9\" cannot be handled as a Deployment: no kind \"Deployment\" is registered for version \"apps/v9\" in scheme \"pkg/runtime/scheme.go:111\"`},
		{apps + "deployments", `{"apiVersion":"v1","metadata":{"name":"d"}}`,
			`Deployment in version \"v1\" cannot be handled as a Deployment: no kind \"Deployment\" is registered for version \"v1\" in scheme \"pkg/runtime/scheme.go:111\"`},
		{apps + "deployments", `{"kind":"ConfigMap","metadata":{"name":"d"}}`,
			`ConfigMap in version \"v1\" cannot be handled as a Deployment: no kind \"ConfigMap\" is registered for version \"apps/v1\" in scheme \"pkg/runtime/scheme.go:111\"`},
		{apps + "deployments", `{"kind":"Deployment","apiVersion":"apps/v1beta1","metadata":{"name":"d"}}`,
			`the API version in the data (apps/v1beta1) does not match the expected API version (apps/v1)`},
		{apps + "deployments", `{"kind":"Deployment","apiVersion":"extensions/v1beta1","metadata":{"name":"d"}}`,
			`the API version in the data (extensions/v1beta1) does not match the expected API version (apps/v1)`},
		{"/apis/events.k8s.io/v1/namespaces/default/events", `{"kind":"Event","apiVersion":"v1","metadata":{"name":"d"}}`,
			`the API version in the data (v1) does not match the expected API version (events.k8s.io/v1)`},
	} {
		want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + tc.msg + `","reason":"BadRequest","code":400}`
		r := servertest.Do(t, "POST", url+tc.path, tc.body, "Content-Type", "application/json")
		if body := strings.TrimSpace(r.Body); r.Code != 400 || body != want {
			t.Errorf("POST %s %s:\n got %d %s\nwant 400 %s", tc.path, tc.body, r.Code, body, want)
		}
	}

	// policy/v1beta1 Evictions are converted and evict (the reference's
	// answer: the 201 Success).
	if _, err := cs.CoreV1().Pods("default").Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p5"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r := servertest.Do(t, "POST", url+ns+"pods/p5/eviction", `{"kind":"Eviction","apiVersion":"policy/v1beta1","metadata":{"name":"p5"}}`, "Content-Type", "application/json")
	if want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`; r.Code != 201 || strings.TrimSpace(r.Body) != want {
		t.Errorf("a policy/v1beta1 eviction: %d %s; want 201 %s", r.Code, r.Body, want)
	}
	if _, err := cs.CoreV1().Pods("default").Get(context.Background(), "p5", metav1.GetOptions{}); err == nil {
		t.Error("p5 was not evicted")
	}
}
