package crd

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/status"
)

// newServer serves customresourcedefinitions with a running controller
// on a loopback listener; Cleanup stops both.
func newServer(t testing.TB) (*server.Server, *Controller, string) {
	t.Helper()
	defs := Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	url := servertest.Start(t, s)
	c := Start(s, defs)
	t.Cleanup(c.Stop) // runs before the server's shutdown
	return s, c, url
}

type reply struct {
	code   int
	header http.Header
	body   string
}

// do sends one request with a JSON body (or none) and checks the code.
func do(t testing.TB, method, url, body string, want int, hdr ...string) reply {
	t.Helper()
	r := servertest.Do(t, method, url, body, append([]string{"Content-Type", "application/json"}, hdr...)...)
	if r.Code != want {
		t.Fatalf("%s %s = %d %s; want %d", method, url, r.Code, r.Body, want)
	}
	return reply{r.Code, r.Header, r.Body}
}

// widgetCRD is testdata/definitions/widgets.yaml's definition as JSON.
func widgetCRD(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/definitions/widgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(b), "\n---")
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(j)
}

const crdsURL = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// waitFor waits until cond holds, looking again after every write to
// the server's store.
func waitFor(t testing.TB, s *server.Server, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a guard, not a sync
	defer cancel()
	for {
		rev := s.Revision()
		if cond() {
			return
		}
		select {
		case <-s.Store().Changed(rev):
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

const widgetsURL = "/apis/example.com/v1/namespaces/default/widgets"

// TestLifecycle installs a definition over HTTP and uses its resource as
// a client would, then deletes the definition.
func TestLifecycle(t *testing.T) {
	s, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	d, err := c.WaitEstablished(context.Background(), "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if got := jsonOf(t, d.Status.Conditions[0]); !strings.Contains(got, `"type":"NamesAccepted","status":"True"`) {
		t.Errorf("NamesAccepted = %s", got)
	}
	if got := d.Status.StoredVersions; !slices.Equal(got, []string{"v1"}) {
		t.Errorf("storedVersions = %q", got)
	}

	// Discovery lists the resource with its names and the status
	// subresource.
	r := do(t, "GET", url+"/apis/example.com/v1", "", 200)
	for _, want := range []string{`"name":"widgets"`, `"shortNames":["wd"]`, `"name":"widgets/status"`, `"kind":"Widget"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("discovery lacks %s: %s", want, r.body)
		}
	}

	// Watch from now, to see the writes below.
	watch := startWatch(t, url+widgetsURL+"?watch=1&resourceVersion="+s.Revision().String())

	// Unknown fields are pruned and reported; defaults are set.
	r = do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w1"},"spec":{"color":"red","foo":1},"status":{"ready":true}}`, 201)
	if got := r.header.Values("Warning"); !slices.Equal(got, []string{`299 - "unknown field \"spec.foo\""`}) {
		t.Errorf("warnings = %q", got)
	}
	if !strings.Contains(r.body, `"spec":{"color":"red","replicas":1}`) || strings.Contains(r.body, `"status"`) {
		t.Errorf("created %s; want spec pruned and defaulted, status dropped", r.body)
	}
	if ev := watch.event(); !strings.Contains(ev, `"type":"ADDED"`) || !strings.Contains(ev, `"name":"w1"`) {
		t.Errorf("watch event %s", ev)
	}
	r = do(t, "POST", url+widgetsURL+"?fieldValidation=Strict", `{"metadata":{"name":"w2"},"spec":{"color":"red","foo":1,"bar":2}}`, 400)
	if want := `Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: unknown field \"spec.bar\", unknown field \"spec.foo\"`; !strings.Contains(r.body, want) {
		t.Errorf("strict: %s; want %s", r.body, want)
	}

	// Invalid objects: a 422 with the schema's messages.
	r = do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w2"},"spec":{"color":"pink","replicas":11}}`, 422)
	if want := `"message":"Widget.example.com \"w2\" is invalid: [spec.color: Unsupported value: \"pink\": supported values: \"red\", \"green\", \"blue\", spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10]"`; !strings.Contains(r.body, want) {
		t.Errorf("422: %s\nwant %s", r.body, want)
	}
	r = do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w2"}}`, 422)
	if want := `{"reason":"FieldValueRequired","message":"Required value","field":"spec"}`; !strings.Contains(r.body, want) {
		t.Errorf("422: %s\nwant %s", r.body, want)
	}
	do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w2"},"spec":{"color":"blue","replicas":3,"port":"http"}}`, 201)

	// The status subresource: only status changes, generation stays.
	r = do(t, "GET", url+widgetsURL+"/w1", "", 200)
	var w map[string]any
	if err := json.Unmarshal([]byte(r.body), &w); err != nil {
		t.Fatal(err)
	}
	w["status"] = map[string]any{"ready": true}
	w["spec"].(map[string]any)["color"] = "green"
	r = do(t, "PUT", url+widgetsURL+"/w1/status", jsonOf(t, w), 200)
	if !strings.Contains(r.body, `"color":"red"`) || !strings.Contains(r.body, `"status":{"ready":true}`) || !strings.Contains(r.body, `"generation":1`) {
		t.Errorf("status update: %s", r.body)
	}

	// Printer columns in the Table, priority columns included.
	r = do(t, "GET", url+widgetsURL, "", 200, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	for _, want := range []string{`"cells":["w1","red",1,true]`, `"cells":["w2","blue",3,null]`,
		`{"name":"Ready","type":"boolean","format":"","description":"Custom resource definition column (in JSONPath format): .status.ready","priority":1}`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("Table lacks %s: %s", want, r.body)
		}
	}
	// The selectable field.
	r = do(t, "GET", url+widgetsURL+"?fieldSelector=spec.color%3Dblue", "", 200)
	if !strings.Contains(r.body, `"name":"w2"`) || strings.Contains(r.body, `"name":"w1"`) {
		t.Errorf("field selector: %s", r.body)
	}
	// OpenAPI publishes the schema.
	r = do(t, "GET", url+"/openapi/v3/apis/example.com/v1", "", 200)
	if !strings.Contains(r.body, `"com.example.v1.Widget"`) || !strings.Contains(r.body, `"enum":["red","green","blue"]`) {
		t.Errorf("openapi: %.400s", r.body)
	}

	// A second definition whose kind is taken is not accepted.
	gadgets := strings.NewReplacer(`"widgets.example.com"`, `"gadgets.example.com"`, `"plural":"widgets"`, `"plural":"gadgets"`,
		`"singular":"widget"`, `"singular":"gadget"`, `"listKind":"WidgetList"`, `"listKind":"GadgetList"`, `"shortNames":["wd"]`, `"shortNames":["gd"]`).Replace(widgetCRD(t))
	do(t, "POST", url+crdsURL, gadgets, 201)
	_, err = c.WaitEstablished(context.Background(), "gadgets.example.com")
	if err == nil || !strings.Contains(err.Error(), `"Widget" is already in use`) {
		t.Errorf("WaitEstablished(gadgets) = %v; want the kind conflict", err)
	}
	r = do(t, "GET", url+crdsURL+"/gadgets.example.com", "", 200)
	if want := `{"type":"NamesAccepted","status":"False","lastTransitionTime":`; !strings.Contains(r.body, want) || !strings.Contains(r.body, `"reason":"KindConflict","message":"\"Widget\" is already in use"`) {
		t.Errorf("gadgets: %s", r.body)
	}
	do(t, "GET", url+"/apis/example.com/v1/namespaces/default/gadgets", "", 404)

	// Deleting the definition deletes its objects, then the API.
	r = do(t, "DELETE", url+crdsURL+"/widgets.example.com", "", 200)
	if !strings.Contains(r.body, `"finalizers":["customresourcecleanup.apiextensions.k8s.io"]`) || !strings.Contains(r.body, `"reason":"InstanceDeletionPending"`) {
		t.Errorf("delete: %s", r.body)
	}
	waitFor(t, s, "the definition to go", func() bool {
		_, err := s.StoreOf(c.defs).Get(context.Background(), "", "widgets.example.com", rv.Read{Semantics: rv.MostRecent})
		return status.IsNotFound(err)
	})
	do(t, "GET", url+widgetsURL, "", 404)
	// The watch sees w2 created, w1's status and the deletion of both;
	// its stream ends when the resource stops being served, after every
	// event written before (RemoveResource drains the watches).
	var types []string
	for {
		line, ok := watch.next()
		if !ok {
			break
		}
		var ev struct{ Type string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		types = append(types, ev.Type)
	}
	if want := []string{"ADDED", "MODIFIED", "DELETED", "DELETED"}; !slices.Equal(types, want) {
		t.Errorf("watch events %q; want %q", types, want)
	}
	// The names are free now: gadgets is accepted and served.
	waitFor(t, s, "gadgets to be established", func() bool {
		o, err := s.StoreOf(c.defs).Get(context.Background(), "", "gadgets.example.com", rv.Read{Semantics: rv.MostRecent})
		return err == nil && o.(*CustomResourceDefinition).IsEstablished()
	})
	do(t, "GET", url+"/apis/example.com/v1/namespaces/default/gadgets", "", 200)
}

// watchStream reads the events of a watch, one a line.
type watchStream struct {
	t  testing.TB
	sc *bufio.Scanner
}

// next returns the next event; false at the end of the stream.
func (w watchStream) next() (string, bool) {
	if !w.sc.Scan() {
		return "", false
	}
	return w.sc.Text(), true
}

// event returns the next event and fails at the end of the stream.
func (w watchStream) event() string {
	w.t.Helper()
	line, ok := w.next()
	if !ok {
		w.t.Fatalf("watch ended: %v", w.sc.Err())
	}
	return line
}

// startWatch opens a watch.
func startWatch(t testing.TB, url string) watchStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != 200 {
		t.Fatalf("watch: %d", resp.StatusCode)
	}
	return watchStream{t: t, sc: bufio.NewScanner(resp.Body)}
}

func unstructured(t testing.TB, j string) *server.Unstructured {
	t.Helper()
	u := &server.Unstructured{}
	if err := u.UnmarshalJSON([]byte(j)); err != nil {
		t.Fatal(err)
	}
	return u
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// kubectl get crd prints what apiextensions-apiserver's Table holds
// (kube-apiserver 1.37 answers these columns, and an empty list has
// "rows": null, as its converter appends rows one by one, where the
// Table of custom resources has "rows": []).
func TestDefinitionTable(t *testing.T) {
	s, c, url := newServer(t)
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	base := url + "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	empty := do(t, "GET", base, "", 200, "Accept", table).body
	if !strings.Contains(empty, `"rows":null`) {
		t.Errorf("empty Table: %s", empty)
	}
	do(t, "POST", base, widgetCRD(t), 201)
	waitFor(t, s, "established", func() bool {
		d, err := c.WaitEstablished(t.Context(), "widgets.example.com")
		return err == nil && d.IsEstablished()
	})
	var got struct {
		ColumnDefinitions []struct {
			Name, Type string
			Priority   int
		}
		Rows []struct{ Cells []any }
	}
	if err := json.Unmarshal([]byte(do(t, "GET", base, "", 200, "Accept", table).body), &got); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, d := range got.ColumnDefinitions {
		cols = append(cols, d.Name+":"+d.Type+":"+strconv.Itoa(d.Priority))
	}
	if want := "Name:string:0 Scope:string:0 Versions:string:0 Created At:date:0 Group:string:1 Kind:string:1 ShortNames:string:1 Established:boolean:1"; strings.Join(cols, " ") != want {
		t.Errorf("columns %s\nwant %s", strings.Join(cols, " "), want)
	}
	if len(got.Rows) != 1 {
		t.Fatalf("rows %+v", got.Rows)
	}
	if w := do(t, "GET", url+"/apis/example.com/v1/namespaces/none/widgets", "", 200, "Accept", table).body; !strings.Contains(w, `"rows":[]`) {
		t.Errorf("empty Table of custom resources: %s", w)
	}
	cells := got.Rows[0].Cells
	if len(cells) != 8 || cells[0] != "widgets.example.com" || cells[1] != "Namespaced" || cells[2] != "v1(storage)" || cells[4] != "example.com" ||
		cells[5] != "Widget" || cells[6] != "wd" || cells[7] != true {
		t.Errorf("cells %v", cells)
	}
}

// A group's versions are listed by Kubernetes' version priority and the
// first is preferred, whatever the order of spec.versions: kube-apiserver
// 1.37 answered GET /apis/multi.apisem.dev, after this definition was
// created, with exactly the document below, and listed the versions in
// that order in aggregated discovery too.
func TestDefinitionVersionPriority(t *testing.T) {
	s, c, url := newServer(t)
	v := func(name string, storage bool) string {
		return `{"name":"` + name + `","served":true,"storage":` + strconv.FormatBool(storage) +
			`,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`
	}
	def := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.multi.apisem.dev"},` +
		`"spec":{"group":"multi.apisem.dev","scope":"Namespaced","names":{"plural":"things","singular":"thing","kind":"Thing","listKind":"ThingList"},` +
		`"versions":[` + v("v1alpha1", false) + `,` + v("v1beta1", true) + `,` + v("foo", false) + `,` + v("v1", false) + `,` +
		v("v1beta2", false) + `,` + v("v10alpha3", false) + `]}}`
	do(t, "POST", url+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", def, 201)
	waitFor(t, s, "established", func() bool {
		d, err := c.WaitEstablished(t.Context(), "things.multi.apisem.dev")
		return err == nil && d.IsEstablished()
	})
	const want = `{"kind":"APIGroup","apiVersion":"v1","name":"multi.apisem.dev","versions":[{"groupVersion":"multi.apisem.dev/v1","version":"v1"},` +
		`{"groupVersion":"multi.apisem.dev/v1beta2","version":"v1beta2"},{"groupVersion":"multi.apisem.dev/v1beta1","version":"v1beta1"},` +
		`{"groupVersion":"multi.apisem.dev/v10alpha3","version":"v10alpha3"},{"groupVersion":"multi.apisem.dev/v1alpha1","version":"v1alpha1"},` +
		`{"groupVersion":"multi.apisem.dev/foo","version":"foo"}],"preferredVersion":{"groupVersion":"multi.apisem.dev/v1","version":"v1"}}`
	if got := strings.TrimSpace(do(t, "GET", url+"/apis/multi.apisem.dev", "", 200).body); got != want {
		t.Errorf("GET /apis/multi.apisem.dev =\n%s\nwant\n%s", got, want)
	}
}
