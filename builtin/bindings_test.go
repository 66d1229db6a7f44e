package builtin

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apisem/apisem/server/servertest"
)

// POST /api/v1/namespaces/<ns>/bindings binds the Pod a Binding names,
// as pods/<name>/binding does, and answers as kube-apiserver v1.37.1
// answers (recorded from ../shared/reference: the bodies below are its
// answers, in the namespace default); its other paths are the router's
// 405 where it serves the path with another method, else 404.
func TestBindings(t *testing.T) {
	cs, url := newClient(t, Options{})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	for _, name := range []string{"p1", "p2", "p3", "p4"} {
		if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p4, err := pods.Get(ctx, "p4", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const (
		ns           = "/api/v1/namespaces/default/"
		created      = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`
		notAllowed   = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}`
		noRoute      = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}`
		yamlConflict = "apiVersion: v1\ncode: 409\ndetails:\n  kind: pods/binding\n  name: p1\nkind: Status\n" +
			"message: 'Operation cannot be fulfilled on pods/binding \"p1\": pod p1 is already assigned\n  to node \"n1\"'\n" +
			"metadata: {}\nreason: Conflict\nstatus: Failure\n"
	)
	badRequest := func(msg string) string {
		return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":` + mustJSON(t, msg) + `,"reason":"BadRequest","code":400}`
	}
	for _, tc := range []struct {
		method, path, body string
		hdr                []string
		code               int
		want               string
	}{
		{"POST", ns + "bindings", `{"kind":"Binding","apiVersion":"v1","metadata":{"name":"p1","annotations":{"a":"b"}},"target":{"kind":"Node","name":"n1"}}`, nil, 201, created},
		{"POST", ns + "bindings", `{"metadata":{"name":"p1"},"target":{"name":"n2"}}`, nil, 409,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods/binding \"p1\": pod p1 is already assigned to node \"n1\"","reason":"Conflict","details":{"name":"p1","kind":"pods/binding"},"code":409}`},
		{"POST", ns + "bindings", `{"metadata":{"name":"p1"},"target":{"name":"n2"}}`, []string{"Accept", "application/yaml"}, 409, yamlConflict},
		{"POST", ns + "bindings", `{"metadata":{"name":"nope"},"target":{"name":"n2"}}`, nil, 404,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"pods"},"code":404}`},
		{"POST", ns + "bindings", `{"metadata":{},"target":{"name":"n2"}}`, nil, 400, badRequest("Name parameter required.")},
		{"POST", ns + "bindings", `{"metadata":{"name":"a%b"},"target":{"name":"n2"}}`, nil, 400, badRequest(`Name parameter invalid: "a%b": may not contain '%'`)},
		{"POST", ns + "bindings", `{"metadata":{"name":".."},"target":{"name":"n2"}}`, nil, 400, badRequest(`Name parameter invalid: "..": may not be '..'`)},
		{"POST", ns + "bindings", `{"metadata":{"name":"p2"},"target":{}}`, nil, 500,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"target.name: Required value","code":500}`},
		{"POST", ns + "bindings", `{"metadata":{"name":"p2","namespace":"other"},"target":{"name":"n1"}}`, nil, 400,
			badRequest("the namespace of the provided object does not match the namespace sent on the request")},
		{"POST", ns + "bindings", `{"metadata":{"name":"p2"`, nil, 400,
			badRequest(`the object provided is unrecognized (must be of type Binding): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata":{"name":"p2")`)},
		{"POST", ns + "bindings?fieldValidation=Strict", `{"metadata":{"name":"p2"},"target":{"name":"n1"},"foo":1}`, nil, 400,
			badRequest(`Binding in version "v1" cannot be handled as a Binding: strict decoding error: unknown field "foo"`)},
		{"POST", ns + "bindings?dryRun=foo", `{"metadata":{"name":"p2"},"target":{"name":"n1"}}`, nil, 422,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"foo\"]: supported values: \"All\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"CreateOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: [\"foo\"]: supported values: \"All\"","field":"dryRun"}]},"code":422}`},
		// A dry run, of either form, binds nothing (p2 is bound below).
		{"POST", ns + "bindings?dryRun=All", `{"metadata":{"name":"p2"},"target":{"name":"n1"}}`, nil, 201, created},
		{"POST", ns + "pods/p2/binding?dryRun=All", `{"metadata":{"name":"p2"},"target":{"name":"n1"}}`, nil, 201, created},
		{"POST", ns + "pods/p2/binding", `{"metadata":{"name":"p2","namespace":"other"},"target":{"name":"n1"}}`, nil, 400,
			badRequest("the namespace of the provided object does not match the namespace sent on the request")},
		{"POST", ns + "pods/p2/binding?dryRun=x", `{"metadata":{"name":"p2"},"target":{"name":"n1"}}`, nil, 422,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"x\"]: supported values: \"All\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"CreateOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: [\"x\"]: supported values: \"All\"","field":"dryRun"}]},"code":422}`},
		{"POST", "/api/v1/namespaces//bindings", `{"metadata":{"name":"p2"},"target":{"name":"n1"}}`, nil, 400, badRequest("Namespace parameter required.")},
		// The create handler wipes the uid, so it is no precondition (a
		// resourceVersion is: below).
		{"POST", ns + "bindings", `{"metadata":{"name":"p3","uid":"123"},"target":{"name":"n2"}}`, nil, 201, created},
		{"GET", ns + "bindings", "", nil, 405, notAllowed},
		{"GET", ns + "bindings?watch=1", "", nil, 405, notAllowed},
		{"PUT", ns + "bindings", `{}`, nil, 405, notAllowed},
		{"PATCH", ns + "bindings", `{}`, nil, 405, notAllowed},
		{"DELETE", ns + "bindings", "", nil, 405, notAllowed},
		{"GET", ns + "bindings/p1", "", nil, 404, noRoute},
		{"PUT", ns + "bindings/p1", `{}`, nil, 404, noRoute},
		{"PATCH", ns + "bindings/p1", `{}`, nil, 404, noRoute},
		{"DELETE", ns + "bindings/p1", "", nil, 404, noRoute},
		{"POST", ns + "bindings/p1", `{}`, nil, 404, noRoute},
		{"GET", "/api/v1/bindings", "", nil, 404, noRoute},
		{"POST", "/api/v1/bindings", `{"metadata":{"name":"p2"},"target":{"name":"n1"}}`, nil, 404, noRoute},
		{"GET", "/api/v1/watch/namespaces/default/bindings", "", nil, 404, noRoute},
	} {
		hdr := append([]string{"Content-Type", "application/json"}, tc.hdr...)
		r := servertest.Do(t, tc.method, url+tc.path, tc.body, hdr...)
		if r.Code != tc.code || strings.TrimSpace(r.Body) != strings.TrimSpace(tc.want) {
			t.Errorf("%s %s %s:\n got %d %s\nwant %d %s", tc.method, tc.path, tc.body, r.Code, r.Body, tc.code, tc.want)
		}
	}

	// A failed precondition is the storage's 409, which names the etcd
	// key below /registry (the reference's answers, with p4's
	// resourceVersion and uid): a resourceVersion through bindings, a uid
	// through pods/binding.
	conflict := func(detail string) string {
		return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods \"p4\": StorageError: invalid object, Code: 4, Key: /registry/pods/default/p4, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ` +
			detail + `","reason":"Conflict","details":{"name":"p4","kind":"pods"},"code":409}`
	}
	for _, tc := range []struct{ path, body, want string }{
		{ns + "bindings", `{"metadata":{"name":"p4","resourceVersion":"1"},"target":{"name":"n2"}}`,
			conflict("ResourceVersion in precondition: 1, ResourceVersion in object meta: " + p4.ResourceVersion)},
		{ns + "pods/p4/binding", `{"metadata":{"name":"p4","uid":"nope"},"target":{"name":"n2"}}`,
			conflict("UID in precondition: nope, UID in object meta: " + string(p4.UID))},
	} {
		r := servertest.Do(t, "POST", url+tc.path, tc.body, "Content-Type", "application/json")
		if body := strings.TrimSpace(r.Body); r.Code != 409 || body != tc.want {
			t.Errorf("POST %s %s:\n got %d %s\nwant 409 %s", tc.path, tc.body, r.Code, body, tc.want)
		}
	}

	for name, node := range map[string]string{"p1": "n1", "p2": "", "p3": "n2", "p4": ""} {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil || p.Spec.NodeName != node {
			t.Errorf("%s: %v, on node %q; want %q", name, err, p.Spec.NodeName, node)
		}
	}
	p, err := pods.Get(ctx, "p1", metav1.GetOptions{})
	if err != nil || p.Annotations["a"] != "b" || len(p.Status.Conditions) != 1 || p.Status.Conditions[0].Type != corev1.PodScheduled {
		t.Errorf("bound pod p1: %v %v %+v", err, p.Annotations, p.Status.Conditions)
	}
	// client-go's Bind uses pods/binding; the bindings resource takes
	// the same Binding.
	if err := cs.CoreV1().RESTClient().Post().Namespace("default").Resource("bindings").
		Body(&corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p2"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n3"}}).
		Do(ctx).Error(); err != nil {
		t.Errorf("binding p2 through client-go: %v", err)
	}
	if p, err := pods.Get(ctx, "p2", metav1.GetOptions{}); err != nil || p.Spec.NodeName != "n3" {
		t.Errorf("p2 after its binding: %v %q", err, p.Spec.NodeName)
	}
}
