package crd

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// encodeCounter is a JSON value that counts its encodings. It stands in
// an object's spec.config, which its schema preserves as it is, so that
// pruning, defaulting and validation leave it in place.
type encodeCounter struct{ n *atomic.Int64 }

func (c encodeCounter) MarshalJSON() ([]byte, error) {
	c.n.Add(1)
	return []byte(`"counted"`), nil
}

// A custom resource's write encodes the new object once, as the server's
// pipeline does for any type (server's TestWriteEncodesTheObjectOnce):
// its schema prunes and defaults what the body decodes to, and nothing
// encodes the object again after that encoding, which the status split,
// managedFields, generation, the no-op check, the response and the
// watchers share. Resource.Admit runs just after that encoding; the test
// puts a counter into the object there, and any later encoding of the
// object writes the counter.
func TestCustomResourceWriteEncodesOnce(t *testing.T) {
	var d CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(gadgetsYAML), &d); err != nil {
		t.Fatal(err)
	}
	d.Status.AcceptedNames = d.Spec.Names
	// spec.config holds the counter.
	props := d.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties
	spec := props["spec"]
	spec.Properties["config"] = schema.JSONSchemaProps{XPreserveUnknownFields: ptrTo(true)}
	props["spec"] = spec
	var encodings atomic.Int64
	admit := func(_ context.Context, _ server.Attributes, obj, _ server.Object) error {
		if u, ok := obj.(*server.Unstructured); ok {
			if s, ok := u.Content["spec"].(map[string]any); ok {
				s["config"] = encodeCounter{&encodings}
			}
		}
		return nil
	}
	rs, err := customResources(&d, admit, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{Resources: rs, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	url := servertest.Start(t, s) + gadgetsPath
	const apply = "application/apply-patch+yaml"
	for _, tt := range []struct {
		name, method, path, ctype, body string
		code                            int
	}{
		{"create", "POST", "", "", `{"metadata":{"name":"g"},"spec":{"size":1,"unknown":1}}`, 201},
		{"dry-run create", "POST", "?dryRun=All", "", `{"metadata":{"name":"d"},"spec":{"size":1}}`, 201},
		{"update", "PUT", "/g", "", `{"metadata":{"name":"g"},"spec":{"size":2,"unknown":1}}`, 200},
		{"update of the same", "PUT", "/g", "", `{"metadata":{"name":"g"},"spec":{"size":2}}`, 200},
		{"merge patch", "PATCH", "/g", "application/merge-patch+json", `{"spec":{"size":3,"unknown":1}}`, 200},
		{"JSON patch", "PATCH", "/g", "application/json-patch+json", `[{"op":"replace","path":"/spec/size","value":4}]`, 200},
		{"apply", "PATCH", "/g?fieldManager=a&force=true", apply,
			"apiVersion: test.apisem.dev/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {size: 5}\n", 200},
		{"apply create", "PATCH", "/h?fieldManager=a", apply,
			"apiVersion: test.apisem.dev/v1\nkind: Gadget\nmetadata: {name: h}\nspec: {size: 1}\n", 201},
		{"status update", "PUT", "/g/status", "", `{"metadata":{"name":"g"},"spec":{"size":9},"status":{"replicas":1}}`, 200},
		{"status merge patch", "PATCH", "/g/status", "application/merge-patch+json", `{"status":{"replicas":2,"unknown":1}}`, 200},
		{"status apply", "PATCH", "/g/status?fieldManager=s&force=true", apply,
			"apiVersion: test.apisem.dev/v1\nkind: Gadget\nmetadata: {name: g}\nstatus: {replicas: 3}\n", 200},
		{"dry-run merge patch", "PATCH", "/g?dryRun=All", "application/merge-patch+json", `{"spec":{"size":6}}`, 200},
	} {
		ctype := tt.ctype
		if ctype == "" {
			ctype = "application/json"
		}
		body := tt.body
		if tt.method == "PUT" {
			// An update names the version it replaces.
			cur := unstructured(t, do(t, "GET", url+"/g", "", 200).body)
			body = strings.Replace(body, `"name":"g"`, `"name":"g","resourceVersion":"`+cur.ResourceVersion+`"`, 1)
		}
		encodings.Store(0)
		r := servertest.Do(t, tt.method, url+tt.path, body, "Content-Type", ctype)
		if r.Code != tt.code {
			t.Fatalf("%s: %d %s", tt.name, r.Code, r.Body)
		}
		if n := encodings.Load(); n != 0 {
			t.Errorf("%s encoded the object %d more times after its encoding", tt.name, n)
		}
		if strings.Contains(r.Body, "counted") || strings.Contains(r.Body, "unknown") {
			t.Errorf("%s answered %s", tt.name, r.Body)
		}
	}
	// What the writes stored: pruned and defaulted, without the counter.
	got := servertest.Do(t, "GET", url+"/g", "").Body
	for _, want := range []string{`"spec":{"color":"red","nested":{"a":"x"},"replicas":1,"size":5}`, `"status":{"replicas":3}`} {
		if !strings.Contains(got, want) {
			t.Errorf("the object is %s; want %s in it", got, want)
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// The schema prunes and defaults every new object of a write, whatever
// made it, as Kubernetes decodes each: what a mutating admission hook
// adds (and a default it removes), and an object given to
// Server.Create. Without a Prepare to coerce it again, the server does
// it where the object is made.
func TestCustomResourceCoercedAfterMutation(t *testing.T) {
	var d CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(gadgetsYAML), &d); err != nil {
		t.Fatal(err)
	}
	d.Status.AcceptedNames = d.Spec.Names
	rs, err := customResources(&d, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mutate := func(_ context.Context, _ server.Attributes, obj, _ server.Object) error {
		if s, ok := obj.(*server.Unstructured).Content["spec"].(map[string]any); ok {
			s["added"] = "by a hook"
			delete(s, "color")
		}
		return nil
	}
	s, err := server.New(server.Options{Resources: rs, Rand: rand.NewChaCha8([32]byte{1}),
		Admission: server.Admission{Mutate: mutate}})
	if err != nil {
		t.Fatal(err)
	}
	url := servertest.Start(t, s) + gadgetsPath
	const want = `"spec":{"color":"red","nested":{"a":"x"},"replicas":1,"size":1}`
	for _, tt := range []struct{ name, method, path, ctype, body string }{
		{"create", "POST", "", "application/json", `{"metadata":{"name":"g"},"spec":{"size":1}}`},
		{"merge patch", "PATCH", "/g", "application/merge-patch+json", `{"spec":{"color":"blue"}}`},
		{"apply", "PATCH", "/g?fieldManager=a&force=true", "application/apply-patch+yaml",
			"apiVersion: test.apisem.dev/v1\nkind: Gadget\nmetadata: {name: g}\nspec: {color: green}\n"},
	} {
		r := servertest.Do(t, tt.method, url+tt.path, tt.body, "Content-Type", tt.ctype)
		if r.Code >= 300 {
			t.Fatalf("%s: %d %s", tt.name, r.Code, r.Body)
		}
		// As stored: reads would coerce it again (Resource.Read).
		o, err := s.StoreOf(rs[0]).Get(context.Background(), "demo", "g", rv.Read{})
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, o.(*server.Unstructured).Content); got != `{`+want+`}` {
			t.Errorf("%s stored %s; want {%s}", tt.name, got, want)
		}
	}
	// Server.Create, with the hook and without.
	plain, err := server.New(server.Options{Resources: rs, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Shutdown(context.Background()) })
	for _, s := range []*server.Server{s, plain} {
		u := unstructured(t, `{"metadata":{"name":"c","namespace":"demo"},"spec":{"size":1,"unknown":1}}`)
		out, err := s.Create(context.Background(), rs[0], u)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonOf(t, out.(*server.Unstructured).Content); got != `{`+want+`}` {
			t.Errorf("Server.Create stored %s; want {%s}", got, want)
		}
	}
}
