package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
)

type Widget struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            WidgetSpec `json:"spec"`
	Status          WidgetSpec `json:"status"`
}

type WidgetSpec struct {
	Size int `json:"size,omitempty"`
}

func (w *Widget) Types() *meta.TypeMeta { return &w.TypeMeta }

func (w *Widget) DeepCopyObject() server.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

var (
	widgets = &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
		Plural: "widgets", Singular: "widget", Namespaced: true, StatusSubresource: true,
		New: func() server.Object { return &Widget{} },
	}
	globes = &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Globe", ListKind: "GlobeList",
		Plural: "globes", Singular: "globe",
		New: func() server.Object { return &Widget{} },
	}
)

// newServer starts a server that records into a Recorder.
func newServer(t testing.TB, opts server.Options) (*server.Server, *metrics.Recorder) {
	rec := &metrics.Recorder{}
	opts.Resources = []*server.Resource{widgets, globes}
	opts.Hooks.Metrics = rec
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rec.Source = s
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	return s, rec
}

func do(s http.Handler, method, path, contentType, body string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	s.ServeHTTP(w, r)
	return w
}

// sample is one parsed sample line.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parse parses Prometheus' text format (version 0.0.4) strictly enough to
// catch a malformed line: every sample belongs to the family of the last
// TYPE line, label values are quoted with the format's escapes, and values
// are floats.
func parse(t *testing.T, text string) []sample {
	t.Helper()
	var out []sample
	family, typ := "", ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			f := strings.Fields(rest)
			if len(f) != 2 || !slices.Contains([]string{"counter", "gauge", "histogram", "summary", "untyped"}, f[1]) {
				t.Fatalf("line %d: bad TYPE %q", n, line)
			}
			family, typ = f[0], f[1]
			continue
		}
		if strings.HasPrefix(line, "# HELP ") || line == "" {
			continue
		}
		s := sample{labels: map[string]string{}}
		i := strings.IndexAny(line, "{ ")
		if i <= 0 {
			t.Fatalf("line %d: no name: %q", n, line)
		}
		s.name, line = line[:i], line[i:]
		if line[0] == '{' {
			line = line[1:]
			for line[0] != '}' {
				eq := strings.Index(line, `="`)
				if eq <= 0 {
					t.Fatalf("line %d: bad label in %q", n, line)
				}
				name := line[:eq]
				line = line[eq+2:]
				var v strings.Builder
				for {
					if line == "" {
						t.Fatalf("line %d: unterminated value", n)
					}
					c := line[0]
					line = line[1:]
					if c == '"' {
						break
					}
					if c == '\\' {
						switch line[0] {
						case '\\', '"':
							v.WriteByte(line[0])
						case 'n':
							v.WriteByte('\n')
						default:
							t.Fatalf("line %d: bad escape", n)
						}
						line = line[1:]
						continue
					}
					v.WriteByte(c)
				}
				if _, dup := s.labels[name]; dup {
					t.Fatalf("line %d: label %s twice", n, name)
				}
				s.labels[name] = v.String()
				line = strings.TrimPrefix(line, ",")
			}
			line = line[1:]
		}
		v, err := strconv.ParseFloat(strings.TrimPrefix(line, " "), 64)
		if err != nil || line[0] != ' ' {
			t.Fatalf("line %d: bad value %q", n, line)
		}
		s.value = v
		base := s.name
		if typ == "histogram" || typ == "summary" {
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				base = strings.TrimSuffix(base, suf)
			}
		}
		if base != family {
			t.Fatalf("line %d: sample %s outside its family %s", n, s.name, family)
		}
		out = append(out, s)
	}
	return out
}

func scrape(t *testing.T, s http.Handler) []sample {
	t.Helper()
	w := do(s, "GET", "/metrics", "", "")
	if w.Code != 200 || w.Header().Get("Content-Type") != metrics.ContentType {
		t.Fatalf("GET /metrics: %d %q: %s", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	return parse(t, w.Body.String())
}

// find returns the value of the sample named name whose labels include want.
func find(samples []sample, name string, want map[string]string) (float64, bool) {
	for _, s := range samples {
		if s.name != name {
			continue
		}
		ok := true
		for k, v := range want {
			if got, has := s.labels[k]; !has || got != v {
				ok = false
			}
		}
		if ok {
			return s.value, true
		}
	}
	return 0, false
}

const ns = "/apis/demo.io/v1/namespaces/default/widgets"

// Each verb gives the series kube-apiserver gives it
// (k8s.io/apiserver/pkg/endpoints/metrics: CanonicalVerb, CleanVerb,
// cleanDryRun; installer.go: the route's scope).
func TestRequestSeries(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	requests := []struct {
		method, path, ctype, body string
		code                      int
		verb, scope, sub, dryRun  string
	}{
		{"POST", ns, "application/json", `{"metadata":{"name":"a"}}`, 201, "POST", "resource", "", ""},
		{"POST", ns + "?dryRun=All", "application/json", `{"metadata":{"name":"b"}}`, 201, "POST", "resource", "", "All"},
		{"GET", ns + "/a", "", "", 200, "GET", "resource", "", ""},
		{"GET", ns + "/zzz", "", "", 404, "GET", "resource", "", ""},
		{"GET", ns, "", "", 200, "LIST", "namespace", "", ""},
		{"GET", "/apis/demo.io/v1/widgets", "", "", 200, "LIST", "cluster", "", ""},
		{"GET", ns + "?watch=true&timeoutSeconds=1", "", "", 200, "WATCH", "namespace", "", ""},
		{"GET", "/apis/demo.io/v1/watch/namespaces/default/widgets?timeoutSeconds=-1", "", "", 200, "WATCH", "namespace", "", ""},
		{"PUT", ns + "/a", "application/json", `{"metadata":{"name":"a","namespace":"default"},"spec":{"size":1}}`, 200, "PUT", "resource", "", ""},
		{"PATCH", ns + "/a", "application/merge-patch+json", `{"spec":{"size":2}}`, 200, "PATCH", "resource", "", ""},
		{"PATCH", ns + "/a?fieldManager=m&force=true", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Widget\nmetadata: {name: a}\nspec: {size: 3}\n", 200, "APPLY", "resource", "", ""},
		{"GET", ns + "/a/status", "", "", 200, "GET", "resource", "status", ""},
		{"DELETE", ns + "/a?dryRun=Bogus", "", "", 422, "DELETE", "resource", "", "invalid"},
		{"DELETE", ns + "/a", "", "", 200, "DELETE", "resource", "", ""},
		{"DELETE", ns, "", "", 200, "DELETE", "namespace", "", ""},
		{"POST", "/apis/demo.io/v1/globes", "application/json", `{"metadata":{"name":"g"}}`, 201, "POST", "resource", "", ""},
		{"GET", "/apis/demo.io/v1/globes", "", "", 200, "LIST", "cluster", "", ""},
		{"GET", "/apis/demo.io/v1/globes/g", "", "", 200, "GET", "resource", "", ""},
	}
	for _, rq := range requests {
		if w := do(s, rq.method, rq.path, rq.ctype, rq.body); w.Code != rq.code {
			t.Fatalf("%s %s = %d, want %d: %s", rq.method, rq.path, w.Code, rq.code, w.Body)
		}
	}
	samples := scrape(t, s)
	for _, rq := range requests {
		resource := strings.Split(strings.TrimPrefix(rq.path, "/apis/demo.io/v1/"), "?")[0]
		switch {
		case strings.Contains(resource, "globes"):
			resource = "globes"
		default:
			resource = "widgets"
		}
		labels := map[string]string{"verb": rq.verb, "dry_run": rq.dryRun, "group": "demo.io", "version": "v1",
			"resource": resource, "subresource": rq.sub, "scope": rq.scope, "component": "apiserver"}
		dl := maps(labels)
		labels["code"] = strconv.Itoa(rq.code)
		if _, ok := find(samples, "apiserver_request_total", labels); !ok {
			t.Errorf("%s %s: no apiserver_request_total%v", rq.method, rq.path, labels)
		}
		dl["le"] = "+Inf"
		if _, ok := find(samples, "apiserver_request_duration_seconds_bucket", dl); !ok {
			t.Errorf("%s %s: no apiserver_request_duration_seconds_bucket%v", rq.method, rq.path, dl)
		}
		if rq.method == "GET" && !strings.Contains(rq.path, "/watch/") {
			delete(dl, "dry_run")
			if _, ok := find(samples, "apiserver_response_sizes_bucket", dl); !ok {
				t.Errorf("%s %s: no apiserver_response_sizes_bucket%v", rq.method, rq.path, dl)
			}
		}
	}
	// Both widgets were created and the collection deleted; one globe.
	if v, _ := find(samples, "apiserver_request_total", map[string]string{"verb": "POST", "resource": "widgets", "dry_run": ""}); v != 1 {
		t.Errorf("POST widgets counted %v times, want 1", v)
	}
	// A dry run is timed, but not as an SLI.
	if v, _ := find(samples, "apiserver_request_duration_seconds_count", map[string]string{"verb": "POST", "resource": "widgets", "dry_run": "All"}); v != 1 {
		t.Errorf("dry-run POST widgets timed %v times, want 1", v)
	}
	if v, _ := find(samples, "apiserver_request_sli_duration_seconds_count", map[string]string{"verb": "POST", "resource": "widgets"}); v != 1 {
		t.Errorf("POST widgets SLI-timed %v times, want 1 (the dry run is not)", v)
	}
	if v, ok := find(samples, "apiserver_storage_objects", map[string]string{"resource": "globes.demo.io"}); !ok || v != 1 {
		t.Errorf("apiserver_storage_objects{resource=globes.demo.io} = %v, %v; want 1", v, ok)
	}
	if v, ok := find(samples, "apiserver_resource_objects", map[string]string{"group": "demo.io", "resource": "widgets"}); !ok || v != 0 {
		t.Errorf("apiserver_resource_objects{widgets} = %v, %v; want 0", v, ok)
	}
	if v, ok := find(samples, "apiserver_watch_events_total", map[string]string{"group": "demo.io", "version": "v1", "resource": "widgets"}); !ok || v < 1 {
		t.Errorf("apiserver_watch_events_total{widgets} = %v, %v; want the watches' events", v, ok)
	}
	if v, ok := find(samples, "apiserver_longrunning_requests", map[string]string{"verb": "WATCH", "resource": "widgets", "scope": "namespace"}); !ok || v != 0 {
		t.Errorf("apiserver_longrunning_requests{WATCH} = %v, %v; want 0 after the watches ended", v, ok)
	}
	// What a cluster does not route is not counted: the labels stay bounded.
	unrouted := []struct {
		path   string
		labels map[string]string
	}{
		{"/apis/demo.io/v1/namespaces/default/nothings", map[string]string{"resource": "nothings"}},
		{ns + "/a/bogus", map[string]string{"subresource": "bogus"}},
		{ns + "/a/status/more", map[string]string{"subresource": "status", "code": "404"}},
		{"/apis/demo.io/v1/widgets/a", map[string]string{"resource": "widgets", "scope": "resource", "verb": "GET", "code": "404"}},
		{"/apis/demo.io/v1/namespaces/default/globes", map[string]string{"resource": "globes", "code": "404"}},
	}
	before, _ := find(samples, "apiserver_request_total", unrouted[3].labels) // ns+"/zzz" above
	for _, u := range unrouted {
		do(s, "GET", u.path, "", "")
	}
	after := scrape(t, s)
	for i, u := range unrouted {
		v, ok := find(after, "apiserver_request_total", u.labels)
		if i == 3 && v != before || i != 3 && ok {
			t.Errorf("GET %s counted: apiserver_request_total%v = %v", u.path, u.labels, v)
		}
	}
}

func maps(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// The health endpoints are counted as kube-apiserver's
// (healthz.InstallPathHandler): verb GET, the path as subresource, no
// group, resource, scope or component.
func TestHealthSeries(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	do(s, "GET", "/readyz", "", "")
	do(s, "GET", "/livez/ping", "", "") // a check, not counted
	samples := scrape(t, s)
	if _, ok := find(samples, "apiserver_request_total", map[string]string{"verb": "GET", "subresource": "/readyz", "scope": "", "component": "", "group": "", "code": "200"}); !ok {
		t.Error("no apiserver_request_total for /readyz")
	}
	if _, ok := find(samples, "apiserver_request_total", map[string]string{"subresource": "/livez/ping"}); ok {
		t.Error("/livez/ping counted")
	}
}

// /metrics is a non-resource URL behind the authorizer, as in a cluster.
func TestMetricsAuthorized(t *testing.T) {
	var paths []string
	s, _ := newServer(t, server.Options{Security: server.SecurityOptions{Authorizer: auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
		if a.Path == "/metrics" {
			paths = append(paths, a.Path)
			return auth.DecisionDeny, "no", nil
		}
		return auth.DecisionAllow, "", nil
	})}})
	if w := do(s, "GET", "/metrics", "", ""); w.Code != http.StatusForbidden {
		t.Fatalf("GET /metrics denied by the authorizer = %d, want 403", w.Code)
	}
	if len(paths) != 1 {
		t.Fatalf("authorizer asked about %v", paths)
	}
}

// The series kube-prometheus's apiserver recording rules read exist, with
// the labels and le values they use. kube-prometheus takes them from
// kubernetes-mixin (github.com/kubernetes-monitoring/kubernetes-mixin):
//
//	rules/kube_apiserver-availability.libsonnet:
//	  apiserver_request_total{job, verb=~"LIST|GET|POST|PUT|PATCH|DELETE", code}
//	    by (code, verb), and by (code, resource) for the read and write verbs
//	  apiserver_request_sli_duration_seconds_bucket by (verb, scope, le):
//	    reads with scope=~"resource|" and le=~"1(\.0)?", scope="namespace"
//	    and le=~"5(\.0)?", scope="cluster" and le=~"30(\.0)?"; writes
//	    (POST|PUT|PATCH|DELETE) with le=~"1(\.0)?"
//	rules/kube_apiserver-burnrate.libsonnet:
//	  apiserver_request_sli_duration_seconds_count{job, verb, subresource!~"proxy|attach|log|exec|portforward"}
//	  apiserver_request_sli_duration_seconds_bucket{job, verb, subresource, scope, le}
//	  apiserver_request_total{job, verb, code=~"5.."}
//	rules/kube_apiserver-histogram.libsonnet:
//	  apiserver_request_sli_duration_seconds_bucket{job, verb, subresource} by (le, resource)
//
// and the apiserver dashboard's process_cpu_seconds_total,
// process_resident_memory_bytes and go_goroutines. The job (and cluster)
// labels are Prometheus' own, from its scrape configuration.
func TestKubePrometheusSeries(t *testing.T) {
	s, _ := newServer(t, server.Options{})
	do(s, "POST", ns, "application/json", `{"metadata":{"name":"a"}}`)
	do(s, "GET", ns+"/a", "", "")
	do(s, "GET", ns, "", "")
	do(s, "GET", "/apis/demo.io/v1/widgets", "", "")
	do(s, "PUT", ns+"/a", "application/json", `{"metadata":{"name":"a","namespace":"default"}}`)
	do(s, "PATCH", ns+"/a", "application/merge-patch+json", `{}`)
	do(s, "DELETE", ns+"/a", "", "")
	samples := scrape(t, s)
	want := []struct {
		name   string
		labels []string          // present, with any value
		match  map[string]string // present, with this value
	}{
		{"apiserver_request_total", []string{"code", "resource"}, map[string]string{"verb": "LIST"}},
		{"apiserver_request_total", []string{"code", "resource"}, map[string]string{"verb": "GET"}},
		{"apiserver_request_total", []string{"code", "resource"}, map[string]string{"verb": "POST"}},
		{"apiserver_request_total", []string{"code", "resource"}, map[string]string{"verb": "PUT"}},
		{"apiserver_request_total", []string{"code", "resource"}, map[string]string{"verb": "PATCH"}},
		{"apiserver_request_total", []string{"code", "resource"}, map[string]string{"verb": "DELETE"}},
		{"apiserver_request_sli_duration_seconds_bucket", []string{"resource", "subresource"}, map[string]string{"verb": "GET", "scope": "resource", "le": "1"}},
		{"apiserver_request_sli_duration_seconds_bucket", []string{"resource", "subresource"}, map[string]string{"verb": "LIST", "scope": "namespace", "le": "5"}},
		{"apiserver_request_sli_duration_seconds_bucket", []string{"resource", "subresource"}, map[string]string{"verb": "LIST", "scope": "cluster", "le": "30"}},
		{"apiserver_request_sli_duration_seconds_bucket", []string{"resource", "subresource", "scope"}, map[string]string{"verb": "POST", "le": "1"}},
		{"apiserver_request_sli_duration_seconds_bucket", []string{"resource", "subresource", "scope"}, map[string]string{"verb": "DELETE", "le": "+Inf"}},
		{"apiserver_request_sli_duration_seconds_count", []string{"subresource", "scope"}, map[string]string{"verb": "PUT"}},
		{"apiserver_request_duration_seconds_bucket", []string{"scope", "subresource", "resource"}, map[string]string{"verb": "PATCH", "le": "1"}},
		{"apiserver_current_inflight_requests", nil, map[string]string{"request_kind": "readOnly"}},
		{"process_cpu_seconds_total", nil, nil},
		{"process_resident_memory_bytes", nil, nil},
		{"process_start_time_seconds", nil, nil},
		{"go_goroutines", nil, nil},
		{"go_memstats_alloc_bytes", nil, nil},
		{"go_gc_duration_seconds", []string{"quantile"}, nil},
	}
	for _, w := range want {
		found := false
		for _, sm := range samples {
			if sm.name != w.name {
				continue
			}
			ok := true
			for _, l := range w.labels {
				if _, has := sm.labels[l]; !has {
					ok = false
				}
			}
			for l, v := range w.match {
				if sm.labels[l] != v {
					ok = false
				}
			}
			found = found || ok
		}
		if !found {
			t.Errorf("no %s%v with labels %v", w.name, w.match, w.labels)
		}
	}
	// Kubernetes' buckets, le by le.
	buckets := func(name string) string {
		var les []string
		for _, sm := range samples {
			if sm.name == name && sm.labels["verb"] == "POST" {
				les = append(les, sm.labels["le"])
			}
		}
		return strings.Join(les, " ")
	}
	for name, want := range map[string]string{
		"apiserver_request_duration_seconds_bucket":     "0.005 0.025 0.05 0.1 0.2 0.4 0.6 0.8 1 1.25 1.5 2 3 4 5 6 8 10 15 20 30 45 60 +Inf",
		"apiserver_request_sli_duration_seconds_bucket": "0.05 0.1 0.2 0.4 0.6 0.8 1 1.25 1.5 2 3 4 5 6 8 10 15 20 30 45 60 +Inf",
	} {
		if got := buckets(name); got != want {
			t.Errorf("%s buckets %s, want %s", name, got, want)
		}
	}
}

func ExampleRecorder() {
	rec := &metrics.Recorder{}
	rec.Request(metrics.Request{Verb: "LIST", Group: "demo.io", Version: "v1", Resource: "widgets",
		Scope: "namespace", Component: "apiserver", Code: 200, Duration: -1, ResponseSize: -1})
	text := string(rec.AppendText(context.Background(), nil))
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "apiserver_request_total") {
			fmt.Print(line)
		}
	}
	// Output:
	// apiserver_request_total{verb="LIST",dry_run="",group="demo.io",version="v1",resource="widgets",subresource="",scope="namespace",component="apiserver",code="200"} 1
}

// BenchmarkRecord is the cost of recording one request.
func BenchmarkRecord(b *testing.B) {
	rec := &metrics.Recorder{}
	m := metrics.Request{Verb: "GET", Group: "demo.io", Version: "v1", Resource: "widgets",
		Scope: "resource", Component: "apiserver", Code: 200, Duration: 3e6, ResponseSize: 1234}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			rec.Request(m)
		}
	})
}

// signalling is a Recorder that says when a watch has begun.
type signalling struct {
	*metrics.Recorder
	began chan struct{}
}

func (s signalling) LongRunning(m metrics.Request, delta int) {
	s.Recorder.LongRunning(m, delta)
	if delta > 0 {
		s.began <- struct{}{}
	}
}

// A watch in progress is counted by apiserver_longrunning_requests, with
// the scope of its attributes (a watch of one name is "resource"), and a
// request the in-flight limits refuse is counted (429) but not timed; the
// in-flight gauge counts what is being served.
func TestInFlightAndLongRunning(t *testing.T) {
	rec := &metrics.Recorder{}
	sig := signalling{rec, make(chan struct{}, 1)}
	entered, release := make(chan struct{}), make(chan struct{})
	hold := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("hold") != "" {
				entered <- struct{}{}
				<-release
			}
			next.ServeHTTP(w, r)
		})
	}
	s, err := server.New(server.Options{Resources: []*server.Resource{widgets, globes},
		Limits: server.LimitOptions{MaxRequestsInFlight: 2},
		Hooks:  server.HookOptions{Metrics: sig, Filters: []func(http.Handler) http.Handler{hold}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec.Source = s
	t.Cleanup(func() { s.Shutdown(context.Background()) })

	// A watch of one name, in progress.
	ctx, cancel := context.WithCancel(context.Background())
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", ns+"?watch=1&fieldSelector=metadata.name%3Da", nil).WithContext(ctx)
		s.ServeHTTP(w, r)
	}()
	<-sig.began
	// Two lists held in flight, a third refused.
	held := make(chan struct{})
	for range 2 {
		go func() { do(s, "GET", ns+"?hold=1", "", ""); held <- struct{}{} }()
		<-entered
	}
	if w := do(s, "GET", ns, "", ""); w.Code != http.StatusTooManyRequests {
		t.Fatalf("third request = %d, want 429", w.Code)
	}
	during := parse(t, string(rec.AppendText(context.Background(), nil)))
	close(release)
	<-held
	<-held
	cancel()
	<-watchDone
	after := scrape(t, s)

	if v, ok := find(during, "apiserver_current_inflight_requests", map[string]string{"request_kind": "readOnly"}); !ok || v != 2 {
		t.Errorf("readOnly in flight = %v, %v; want 2", v, ok)
	}
	if v, ok := find(during, "apiserver_current_inflight_requests", map[string]string{"request_kind": "mutating"}); !ok || v != 0 {
		t.Errorf("mutating in flight = %v, %v; want 0", v, ok)
	}
	watching := map[string]string{"verb": "WATCH", "group": "demo.io", "version": "v1", "resource": "widgets",
		"subresource": "", "scope": "resource", "component": "apiserver"}
	if v, ok := find(during, "apiserver_longrunning_requests", watching); !ok || v != 1 {
		t.Errorf("apiserver_longrunning_requests%v = %v, %v during the watch; want 1", watching, v, ok)
	}
	if v, ok := find(after, "apiserver_longrunning_requests", watching); !ok || v != 0 {
		t.Errorf("apiserver_longrunning_requests%v = %v, %v after the watch; want 0", watching, v, ok)
	}
	refused := map[string]string{"verb": "LIST", "resource": "widgets", "scope": "namespace", "code": "429", "component": "apiserver"}
	if v, ok := find(after, "apiserver_request_total", refused); !ok || v != 1 {
		t.Errorf("apiserver_request_total%v = %v, %v; want 1", refused, v, ok)
	}
	refused["group"], refused["version"], refused["subresource"] = "demo.io", "v1", ""
	if v, ok := find(after, "apiserver_request_terminations_total", refused); !ok || v != 1 {
		t.Errorf("apiserver_request_terminations_total%v = %v, %v; want 1", refused, v, ok)
	}
	if v, ok := find(after, "apiserver_request_total", map[string]string{"verb": "LIST", "resource": "widgets", "code": "200"}); !ok || v != 2 {
		t.Errorf("held LISTs counted %v, %v; want 2", v, ok)
	}
	// The refused request is not timed: the LISTs' histogram has the two
	// held ones only.
	if v, _ := find(after, "apiserver_request_duration_seconds_count", map[string]string{"verb": "LIST", "resource": "widgets"}); v != 2 {
		t.Errorf("LIST durations observed %v; want 2", v)
	}
}

// A request past its deadline is answered 504 and counted as a
// termination, as kube-apiserver's timeout filter counts it; one that
// ends in time is not.
func TestTimeoutTermination(t *testing.T) {
	stall := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("stall") != "" {
				<-r.Context().Done() // until the deadline of ?timeout=
			}
			next.ServeHTTP(w, r)
		})
	}
	s, _ := newServer(t, server.Options{Hooks: server.HookOptions{Filters: []func(http.Handler) http.Handler{stall}}})
	if w := do(s, "GET", ns+"/a?stall=1&timeout=1ms", "", ""); w.Code != http.StatusGatewayTimeout {
		t.Fatalf("a stalled GET = %d; want 504", w.Code)
	}
	if w := do(s, "PUT", "/apis/demo.io/v1/globes/g?stall=1&timeout=1ms", "application/json", "{}"); w.Code != http.StatusGatewayTimeout {
		t.Fatalf("a stalled PUT = %d; want 504", w.Code)
	}
	do(s, "GET", ns+"/a?timeout=1m", "", "")
	got := scrape(t, s)
	for _, want := range []map[string]string{
		{"verb": "GET", "group": "demo.io", "version": "v1", "resource": "widgets", "subresource": "", "scope": "resource", "component": "apiserver", "code": "504"},
		{"verb": "PUT", "group": "demo.io", "version": "v1", "resource": "globes", "subresource": "", "scope": "resource", "component": "apiserver", "code": "504"},
	} {
		if v, ok := find(got, "apiserver_request_terminations_total", want); !ok || v != 1 {
			t.Errorf("apiserver_request_terminations_total%v = %v, %v; want 1", want, v, ok)
		}
	}
	n := 0
	for _, smp := range got {
		if smp.name == "apiserver_request_terminations_total" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d series of apiserver_request_terminations_total; want the 2 timeouts'", n)
	}
}

// BenchmarkRecordSerial is BenchmarkRecord on one goroutine: the cost
// without contention.
func BenchmarkRecordSerial(b *testing.B) {
	rec := &metrics.Recorder{}
	m := metrics.Request{Verb: "GET", Group: "demo.io", Version: "v1", Resource: "widgets",
		Scope: "resource", Component: "apiserver", Code: 200, Duration: 3e6, ResponseSize: 1234}
	b.ReportAllocs()
	for b.Loop() {
		rec.Request(m)
	}
}

// BenchmarkAppendText is the cost of a scrape of 200 request series (the
// recorded ones; the runtime's and the process's come with it).
func BenchmarkAppendText(b *testing.B) {
	rec := &metrics.Recorder{}
	for i := range 100 {
		for _, code := range []int{200, 404} {
			rec.Request(metrics.Request{Verb: "GET", Group: "demo.io", Version: "v1", Resource: fmt.Sprintf("r%d", i),
				Scope: "resource", Component: "apiserver", Code: code, Duration: 3e6, ResponseSize: 1234})
		}
	}
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = rec.AppendText(context.Background(), buf[:0])
	}
	b.ReportMetric(float64(len(buf)), "bytes")
}
