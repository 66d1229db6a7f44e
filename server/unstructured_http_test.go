package server

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/table"
)

// gizmoResource is a resource defined at run time, as a CRD would define
// it: gizmos.demo.io/v1, with a printer column and a selectable field
// read by JSONPath.
func gizmoResource(t testing.TB) *Resource {
	t.Helper()
	color, err := JSONPathColumn(table.Column{Name: "Color", Type: "string", Description: "The gizmo's color."}, ".spec.color")
	if err != nil {
		t.Fatal(err)
	}
	size, err := JSONPathColumn(table.Column{Name: "Size", Type: "integer"}, ".spec.size")
	if err != nil {
		t.Fatal(err)
	}
	age, err := JSONPathColumn(table.Column{Name: "Age", Type: "date"}, ".metadata.creationTimestamp")
	if err != nil {
		t.Fatal(err)
	}
	colorField, err := JSONPathField(".spec.color")
	if err != nil {
		t.Fatal(err)
	}
	return UnstructuredResource(Resource{
		Group: "demo.io", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
		Plural: "gizmos", Singular: "gizmo", Namespaced: true,
		Columns: []table.Column{color, size, age},
		Fields:  map[string]func(Object) string{"spec.color": colorField},
	})
}

// testNow is the clock of the tests' servers.
var testNow = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// newGizmoServer serves gizmos on a loopback listener, with a fixed clock
// and seeded uids; Cleanup shuts it down.
func newGizmoServer(t testing.TB) (*Server, string) {
	t.Helper()
	return startTestServer(t, gizmoResource(t))
}

// startTestServer serves resources on a loopback listener, with a fixed
// clock and seeded uids; Cleanup shuts it down.
func startTestServer(t testing.TB, resources ...*Resource) (*Server, string) {
	t.Helper()
	s, err := New(Options{
		Resources: resources,
		Now:       func() time.Time { return testNow },
		Rand:      rand.NewChaCha8([32]byte{1}),
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		hs.Close()
	})
	return s, hs.URL
}

type reply struct {
	code   int
	header http.Header
	body   string
}

// do sends one request; hdr holds header name/value pairs. A code other
// than want fails the test.
func do(t testing.TB, want int, base, method, path, body string, hdr ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s; want %d", method, path, resp.StatusCode, b, want)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// jsonField returns the value at a dotted path of a JSON body.
func jsonField(t testing.TB, body, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

const gizmos = "/apis/demo.io/v1/namespaces/ns/gizmos"

// TestUnstructuredGolden: a created custom resource is written byte for
// byte as Kubernetes writes one: every member sorted, metadata's too.
func TestUnstructuredGolden(t *testing.T) {
	_, base := newGizmoServer(t)
	r := do(t, 201, base, "POST", gizmos, `{"kind":"Gizmo","apiVersion":"demo.io/v1",
		"metadata":{"name":"g1","labels":{"b":"2","a":"1"}},
		"spec":{"size":9007199254740993,"color":"red","ratio":0.25,"html":"<&>"},
		"data":{"z":1,"Z":2}}`)
	uid := jsonField(t, r.body, "metadata.uid").(string)
	want := `{"apiVersion":"demo.io/v1","data":{"Z":2,"z":1},"kind":"Gizmo","metadata":{` +
		`"creationTimestamp":"2024-05-06T07:08:09Z","generation":1,"labels":{"a":"1","b":"2"},` +
		// managedFields entries are maps too, in an unstructured object.
		`"managedFields":[{"apiVersion":"demo.io/v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:Z":{},"f:z":{}},` +
		`"f:metadata":{"f:labels":{".":{},"f:a":{},"f:b":{}}},"f:spec":{".":{},"f:color":{},"f:html":{},"f:ratio":{},"f:size":{}}},` +
		`"manager":"Go-http-client","operation":"Update","time":"2024-05-06T07:08:09Z"}],"name":"g1",` +
		`"namespace":"ns","resourceVersion":"2","uid":"` + uid + `"},` +
		`"spec":{"color":"red","html":"\u003c\u0026\u003e","ratio":0.25,"size":9007199254740993}}`
	want += "\n" // Kubernetes' JSON encoder ends each document with a newline
	if r.body != want {
		t.Errorf("POST body\n got %s\nwant %s", r.body, want)
	}
	if got := do(t, 200, base, "GET", gizmos+"/g1", "").body; got != want {
		t.Errorf("GET body\n got %s\nwant %s", got, want)
	}
	list := do(t, 200, base, "GET", gizmos, "").body
	// A list's members are sorted too, and its metadata always has
	// continue, as Kubernetes writes an UnstructuredList.
	wantList := `{"apiVersion":"demo.io/v1","items":[` + strings.TrimSuffix(want, "\n") +
		`],"kind":"GizmoList","metadata":{"continue":"","resourceVersion":"2"}}` + "\n"
	if list != wantList {
		t.Errorf("list\n got %s\nwant %s", list, wantList)
	}
	empty := do(t, 200, base, "GET", "/apis/demo.io/v1/namespaces/other/gizmos?limit=1", "").body
	if want := `{"apiVersion":"demo.io/v1","items":[],"kind":"GizmoList","metadata":{"continue":"","resourceVersion":"2"}}` + "\n"; empty != want {
		t.Errorf("empty list\n got %s\nwant %s", empty, want)
	}
}

// TestUnstructuredVerbs runs every verb over HTTP on a resource that has
// no Go type.
func TestUnstructuredVerbs(t *testing.T) {
	_, base := newGizmoServer(t)
	r := do(t, 201, base, "POST", gizmos, `{"metadata":{"name":"g1"},"spec":{"color":"red","size":1}}`)
	rv1 := jsonField(t, r.body, "metadata.resourceVersion").(string)

	// Watch from the create on; the events below arrive in order.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+gizmos+"?watch=true&resourceVersion="+rv1, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := bufio.NewScanner(resp.Body)
	nextEvent := func() (typ, body string) {
		t.Helper()
		if !events.Scan() {
			t.Fatalf("watch ended: %v", events.Err())
		}
		var e struct {
			Type   string
			Object json.RawMessage
		}
		if err := json.Unmarshal(events.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		return e.Type, string(e.Object)
	}

	// Update: a whole new body; the spec change bumps the generation.
	r = do(t, 200, base, "PUT", gizmos+"/g1", `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"g1","resourceVersion":"`+rv1+`"},"spec":{"color":"blue","size":2},"extra":[1,2]}`)
	if g := jsonField(t, r.body, "metadata.generation"); g != 2.0 {
		t.Errorf("generation after update = %v; want 2", g)
	}
	typ, obj := nextEvent()
	if typ != "MODIFIED" || !strings.HasPrefix(obj, `{"apiVersion":"demo.io/v1","extra":[1,2],"kind":"Gizmo","metadata":{`) {
		t.Errorf("event %s %s", typ, obj)
	}

	// Merge patch and JSON patch; strategic merge is refused as for a CRD.
	r = do(t, 200, base, "PATCH", gizmos+"/g1", `{"spec":{"color":"green","size":null},"status":{"ok":true}}`,
		"Content-Type", "application/merge-patch+json")
	if got := jsonField(t, r.body, "spec"); !jsonEqual(got, map[string]any{"color": "green"}) {
		t.Errorf("merge-patched spec = %v", got)
	}
	r = do(t, 200, base, "PATCH", gizmos+"/g1", `[{"op":"add","path":"/spec/tags","value":["a"]},{"op":"remove","path":"/extra"}]`,
		"Content-Type", "application/json-patch+json")
	if got := jsonField(t, r.body, "spec.tags"); !jsonEqual(got, []any{"a"}) || strings.Contains(r.body, "extra") {
		t.Errorf("JSON-patched: %s", r.body)
	}
	do(t, 415, base, "PATCH", gizmos+"/g1", `{"spec":{"color":"red"}}`, "Content-Type", "application/strategic-merge-patch+json")
	for range 2 {
		if typ, _ := nextEvent(); typ != "MODIFIED" {
			t.Errorf("event %s; want MODIFIED", typ)
		}
	}

	// Delete.
	do(t, 200, base, "DELETE", gizmos+"/g1", "")
	if typ, obj := nextEvent(); typ != "DELETED" || jsonField(t, obj, "metadata.name") != "g1" {
		t.Errorf("event %s %s", typ, obj)
	}
	do(t, 404, base, "GET", gizmos+"/g1", "")
}

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// TestUnstructuredFieldValidation: with no schema, nothing outside
// metadata is unknown, even in Strict mode; duplicates and unknown
// metadata fields are still reported.
func TestUnstructuredFieldValidation(t *testing.T) {
	_, base := newGizmoServer(t)
	do(t, 201, base, "POST", gizmos+"?fieldValidation=Strict", `{"metadata":{"name":"g1"},"spec":{"anything":{"goes":[1]}},"more":1}`)
	r := do(t, 400, base, "POST", gizmos+"?fieldValidation=Strict", `{"metadata":{"name":"g2","colour":"red"},"spec":{"a":1,"a":2}}`)
	want := `Gizmo in version \"v1\" cannot be handled as a Gizmo: strict decoding error: duplicate field \"spec.a\", unknown field \"metadata.colour\"`
	if !strings.Contains(r.body, want) {
		t.Errorf("strict body %s\nwant message %s", r.body, want)
	}
	r = do(t, 201, base, "POST", gizmos+"?fieldValidation=Warn", `{"metadata":{"name":"g3","colour":"red"},"spec":{"a":1,"a":2}}`)
	if w := r.header.Values("Warning"); len(w) != 2 || !strings.Contains(w[0], `duplicate field \"spec.a\"`) || !strings.Contains(w[1], `unknown field \"metadata.colour\"`) {
		t.Errorf("warnings %q", w)
	}
	if got := jsonField(t, r.body, "spec.a"); got != 2.0 {
		t.Errorf("spec.a = %v; want the last duplicate, 2", got)
	}
	// Kind and apiVersion are checked as for any type.
	do(t, 400, base, "POST", gizmos, `{"kind":"Widget","metadata":{"name":"g4"}}`)
	do(t, 400, base, "POST", gizmos, `{"apiVersion":"demo.io/v2","metadata":{"name":"g4"}}`)
	do(t, 400, base, "POST", gizmos, `{"kind":7,"metadata":{"name":"g4"}}`)
	// YAML bodies are decoded as JSON ones.
	r = do(t, 201, base, "POST", gizmos, "metadata:\n  name: g5\nspec:\n  size: 3\n", "Content-Type", "application/yaml")
	if got := jsonField(t, r.body, "spec.size"); got != 3.0 {
		t.Errorf("YAML spec.size = %v", got)
	}
}

// TestUnstructuredProtobuf: a type without a protobuf form is JSON and
// YAML only, as a custom resource: 406 for protobuf responses, 415 for
// protobuf bodies; its metadata is still served as protobuf.
func TestUnstructuredProtobuf(t *testing.T) {
	_, base := newGizmoServer(t)
	do(t, 201, base, "POST", gizmos, `{"metadata":{"name":"g1"}}`)
	const pb = "application/vnd.kubernetes.protobuf"
	r := do(t, 406, base, "GET", gizmos+"/g1", "", "Accept", pb)
	if !strings.Contains(r.body, "only the following media types are accepted: application/json, application/yaml") {
		t.Errorf("406 body %s", r.body)
	}
	do(t, 406, base, "GET", gizmos, "", "Accept", pb)
	// A client preferring protobuf but taking JSON gets JSON.
	r = do(t, 200, base, "GET", gizmos+"/g1", "", "Accept", pb+", application/json")
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	r = do(t, 415, base, "POST", gizmos, "k8s\x00\x0a\x00", "Content-Type", pb)
	if !strings.Contains(r.body, "UnsupportedMediaType") {
		t.Errorf("415 body %s", r.body)
	}
	r = do(t, 200, base, "GET", gizmos+"/g1", "", "Accept", pb+";as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	if ct := r.header.Get("Content-Type"); ct != pb {
		t.Errorf("PartialObjectMetadata Content-Type %q", ct)
	}
}

// TestUnstructuredTable: the Table of a custom resource: Name first, then
// the JSONPath columns, with typed cells.
func TestUnstructuredTable(t *testing.T) {
	_, base := newGizmoServer(t)
	do(t, 201, base, "POST", gizmos, `{"metadata":{"name":"g1"},"spec":{"color":"red","size":3}}`)
	do(t, 201, base, "POST", gizmos, `{"metadata":{"name":"g2"},"spec":{"color":{"r":1},"size":"big"}}`)
	do(t, 201, base, "POST", gizmos, `{"metadata":{"name":"g3"}}`)
	r := do(t, 200, base, "GET", gizmos+"?includeObject=None", "", "Accept", "application/json;as=Table;g=meta.k8s.io;v=v1")
	var table struct {
		ColumnDefinitions []struct{ Name, Type string }
		Rows              []struct{ Cells []any }
	}
	if err := json.Unmarshal([]byte(r.body), &table); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range table.ColumnDefinitions {
		names = append(names, c.Name+":"+c.Type)
	}
	if got := strings.Join(names, " "); got != "Name:string Color:string Size:integer Age:date" {
		t.Errorf("columns %s", got)
	}
	want := []string{`["g1","red",3,"0s"]`, `["g2","{\"r\":1}",null,"0s"]`, `["g3",null,null,"0s"]`}
	for i, row := range table.Rows {
		if got, _ := json.Marshal(row.Cells); i >= len(want) || string(got) != want[i] {
			t.Errorf("row %d cells %s; want %s", i, got, want[min(i, len(want)-1)])
		}
	}
	if len(table.Rows) != len(want) {
		t.Errorf("%d rows; want %d", len(table.Rows), len(want))
	}
}

// TestUnstructuredFieldSelector: a field selector on a nested field.
func TestUnstructuredFieldSelector(t *testing.T) {
	_, base := newGizmoServer(t)
	for _, g := range []string{`{"metadata":{"name":"a"},"spec":{"color":"red"}}`, `{"metadata":{"name":"b"},"spec":{"color":"blue"}}`, `{"metadata":{"name":"c"}}`} {
		do(t, 201, base, "POST", gizmos, g)
	}
	tests := []struct{ selector, want string }{
		{"spec.color=red", "a"},
		{"spec.color!=red", "b c"},
		{"spec.color=", "c"},
		{"spec.color=blue,metadata.name=b", "b"},
	}
	for _, tt := range tests {
		r := do(t, 200, base, "GET", gizmos+"?fieldSelector="+tt.selector, "")
		var l struct{ Items []Unstructured }
		if err := json.Unmarshal([]byte(r.body), &l); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range l.Items {
			got = append(got, it.Name)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("fieldSelector=%s: %q; want %s", tt.selector, got, tt.want)
		}
	}
	// A page: continue, remainingItemCount and resourceVersion, sorted.
	page := do(t, 200, base, "GET", gizmos+"?limit=1", "").body
	if !regexp.MustCompile(`\],"kind":"GizmoList","metadata":\{"continue":"[^"]+","remainingItemCount":2,"resourceVersion":"4"\}\}\n$`).MatchString(page) {
		t.Errorf("page %s", page)
	}
	// As a cluster answers for a resource with selectable fields.
	r := do(t, 400, base, "GET", gizmos+"?fieldSelector=spec.size=1", "")
	if !strings.Contains(r.body, `"message":"field label not supported: spec.size"`) {
		t.Errorf("unknown field: %s", r.body)
	}
}
