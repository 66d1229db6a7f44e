package otel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/etcdstore/serverstore"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/tracing/otel"
)

type Gizmo struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
}

func (g *Gizmo) Types() *meta.TypeMeta { return &g.TypeMeta }

func (g *Gizmo) DeepCopyObject() server.Object {
	c := *g
	g.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

var gizmos = &server.Resource{
	Group: "demo.io", Version: "v1", Kind: "Gizmo", ListKind: "GizmoList",
	Plural: "gizmos", Singular: "gizmo", Namespaced: true,
	New: func() server.Object { return &Gizmo{} },
}

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
	sampled     = "00-" + callerTrace + "-" + callerSpan + "-01"
	gizmoPath   = "/apis/demo.io/v1/namespaces/ns/gizmos"
)

func ptr[T any](v T) *T { return &v }

// provider returns a provider with cfg's sampler that records in memory.
func provider(t testing.TB, cfg *otel.Configuration) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(cfg.Sampler()), sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { tp.Shutdown(context.Background()) })
	return tp, rec
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	m := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value.Emit()
	}
	return m
}

func TestParseConfig(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		endpoint string
		rate     int32
		err      string
	}{
		{"YAML", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: collector:4317\nsamplingRatePerMillion: 100\n", "collector:4317", 100, ""},
		{"JSON", `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"TracingConfiguration","samplingRatePerMillion":1000000}`, "", 1000000, ""},
		{"beta", "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: TracingConfiguration\n", "", 0, ""},
		{"a unix socket", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: unix:///run/otel.sock\n", "unix:///run/otel.sock", 0, ""},
		{"another kind", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n", "", 0, `kind "AdmissionConfiguration"`},
		{"another group", "apiVersion: v1\nkind: TracingConfiguration\n", "", 0, `apiVersion "v1"`},
		{"negative rate", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: -10\n", "", 0,
			"samplingRatePerMillion: Invalid value: -10: sampling rate must be positive"},
		{"rate over a million", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 1000001\n", "", 0,
			"sampling rate per million must be less than or equal to one million"},
		{"an HTTP endpoint", "apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: http://collector:4318\n", "", 0,
			"unsupported scheme: http.  Options are none, dns, unix, or unix-abstract."},
		{"not YAML", "{", "", 0, "unable to decode tracing configuration data"},
	} {
		c, err := otel.ParseConfig([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: ParseConfig = %v; want an error with %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: ParseConfig: %v", tt.name, err)
			continue
		}
		var ep string
		var rate int32
		if c.Endpoint != nil {
			ep = *c.Endpoint
		}
		if c.SamplingRatePerMillion != nil {
			rate = *c.SamplingRatePerMillion
		}
		if ep != tt.endpoint || rate != tt.rate {
			t.Errorf("%s: ParseConfig = endpoint %q rate %d; want %q %d", tt.name, ep, rate, tt.endpoint, tt.rate)
		}
	}
}

func TestReadConfigFileAndProvider(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tracing.yaml")
	os.WriteFile(path, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:1\nsamplingRatePerMillion: 1000000\n"), 0o600)
	c, err := otel.ReadConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	tp, err := otel.NewProvider(context.Background(), c, otel.ProviderOptions{Exporter: exp, InstanceID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	_, s := otel.NewTracer(tp).Start(context.Background(), "x", 0)
	s.End(nil)
	if err := tp.ForceFlush(context.Background()); err != nil { // the exporter forgets at Shutdown
		t.Fatal(err)
	}
	defer tp.Shutdown(context.Background())
	got := exp.GetSpans()
	if len(got) != 1 || got[0].Name != "x" {
		t.Fatalf("exported %v; want the span x", got)
	}
	res := map[attribute.Key]string{}
	for _, kv := range got[0].Resource.Attributes() {
		res[kv.Key] = kv.Value.Emit()
	}
	if res["service.name"] != "apiserver" || res["service.instance.id"] != "a" {
		t.Errorf("resource %v; want service.name apiserver, service.instance.id a", res)
	}
	// Without an exporter given, the OTLP one is made; it connects
	// lazily, so an unreachable endpoint does not fail.
	tp2, err := otel.NewProvider(context.Background(), c, otel.ProviderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	tp2.Shutdown(ctx)
}

// A request's span, from the server with the memory store: the caller's
// sampled traceparent makes it sampled although the server samples none
// of its own, and its trace; a caller the server does not trust gets a
// trace of the server's, linked to its own.
func TestRequestSpan(t *testing.T) {
	users := auth.AuthenticatorFunc(func(r *http.Request) (auth.User, bool, error) {
		if r.Header.Get("X-Test-User") == "admin" {
			return auth.User{Name: "admin", Groups: []string{auth.SystemPrivilegedGroup}}, true, nil
		}
		return auth.User{Name: "system:anonymous"}, true, nil
	})
	for _, tt := range []struct {
		name   string
		rate   *int32
		hdr    []string
		spans  int
		child  bool // of the caller's span
		linked bool // to the caller's span
	}{
		{"a sampled caller's trace", nil, []string{"Traceparent", sampled, "Tracestate", "congo=t61rcWkgMzE", "X-Test-User", "admin"}, 1, true, false},
		{"an unsampled caller's trace", nil, []string{"Traceparent", "00-" + callerTrace + "-" + callerSpan + "-00", "X-Test-User", "admin"}, 0, false, false},
		{"no caller's trace, none sampled", nil, nil, 0, false, false},
		{"no caller's trace, all sampled", ptr[int32](1000000), nil, 1, false, false},
		{"an untrusted caller's trace", ptr[int32](1000000), []string{"Traceparent", sampled}, 1, false, true},
		{"an untrusted caller cannot make the server sample", nil, []string{"Traceparent", sampled}, 0, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tp, rec := provider(t, &otel.Configuration{SamplingRatePerMillion: tt.rate})
			_, base := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos},
				Security: server.SecurityOptions{Authenticator: users},
				Hooks:    server.HookOptions{Tracer: otel.NewTracer(tp)}})
			r := servertest.Do(t, "GET", base+gizmoPath+"/g?pretty=1", "", append([]string{"User-Agent", "otel-test"}, tt.hdr...)...)
			if r.Code != 404 {
				t.Fatalf("GET = %d", r.Code)
			}
			spans := rec.Ended()
			if len(spans) != tt.spans {
				t.Fatalf("%d spans; want %d", len(spans), tt.spans)
			}
			if len(spans) == 0 {
				return
			}
			s := spans[0]
			if s.Name() != "GET /apis/demo.io/v1/namespaces/{:namespace}/gizmos/{:name}" || s.SpanKind() != trace.SpanKindServer {
				t.Errorf("span %q kind %v; want Kubernetes' name, kind server", s.Name(), s.SpanKind())
			}
			if got := s.SpanContext().TraceID().String() == callerTrace && s.Parent().SpanID().String() == callerSpan; got != tt.child {
				t.Errorf("trace %s parent %s: a child of the caller's span %v; want %v", s.SpanContext().TraceID(), s.Parent().SpanID(), got, tt.child)
			}
			if got := s.SpanContext().TraceState().String(); tt.child && got != "congo=t61rcWkgMzE" {
				t.Errorf("tracestate %q; want the caller's", got)
			}
			linked := len(s.Links()) == 1 && s.Links()[0].SpanContext.TraceID().String() == callerTrace
			if linked != tt.linked {
				t.Errorf("links %v; want linked to the caller's %v", s.Links(), tt.linked)
			}
			a := attrs(s)
			for k, want := range map[attribute.Key]string{"http.request.method": "GET", "http.target": gizmoPath + "/g?pretty=1",
				"url.path": gizmoPath + "/g", "user_agent.original": "otel-test", "http.response.status_code": "404"} {
				if a[k] != want {
					t.Errorf("attribute %s = %q; want %q", k, a[k], want)
				}
			}
		})
	}
}

// startEtcd runs an etcd in the test, on loopback, as etcdstore's tests do.
func startEtcd(t *testing.T, dial ...grpc.DialOption) *clientv3.Client {
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	u, _ := url.Parse("http://127.0.0.1:0")
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*u}, []url.URL{*u}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*u}, []url.URL{*u}
	cfg.InitialCluster = cfg.Name + "=" + u.String()
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		t.Fatal("etcd did not start")
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{"http://" + e.Clients[0].Addr().String()},
		DialTimeout: 5 * time.Second, Logger: zap.NewNop(), DialOptions: dial})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// One request through the server and etcd: its trace, the caller's,
// holds the handler's span, the storage's and etcd's, each the child of
// the one before.
func TestRequestThroughEtcd(t *testing.T) {
	// What etcd is sent: the traceparent of each call, by method.
	var mu sync.Mutex
	sent := map[string]string{}
	see := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		md, _ := metadata.FromOutgoingContext(ctx)
		if tp := md.Get("traceparent"); len(tp) == 1 {
			mu.Lock()
			sent[method] = tp[0]
			mu.Unlock()
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	c := startEtcd(t, grpc.WithChainUnaryInterceptor(see))
	tp, rec := provider(t, &otel.Configuration{})
	tr := otel.NewTracer(tp)
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{gizmos},
		Storage: serverstore.Storage(serverstore.Options{Client: c, JSON: true, Tracer: tr}),
		Hooks:   server.HookOptions{Tracer: tr}})
	r := servertest.Do(t, "POST", base+gizmoPath, `{"metadata":{"name":"g"}}`, "Content-Type", "application/json", "Traceparent", sampled)
	if r.Code != 201 {
		t.Fatalf("POST = %d %s", r.Code, r.Body)
	}
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		if s.SpanContext().TraceID().String() == callerTrace {
			byName[s.Name()] = s
		}
	}
	chain := []struct{ name, parentID string }{
		{"POST /apis/demo.io/v1/namespaces/{:namespace}/gizmos", callerSpan},
		{"Create etcd3", ""},
		{"etcdserverpb.KV/Txn", ""},
	}
	for i, c := range chain {
		s, ok := byName[c.name]
		if !ok {
			t.Fatalf("no span %q in the caller's trace; have %v", c.name, keys(byName))
		}
		want := c.parentID
		if i > 0 {
			want = byName[chain[i-1].name].SpanContext().SpanID().String()
		}
		if got := s.Parent().SpanID().String(); got != want {
			t.Errorf("span %q's parent is %s; want %s", c.name, got, want)
		}
	}
	txn := attrs(byName["etcdserverpb.KV/Txn"])
	if txn["rpc.method"] != "etcdserverpb.KV/Txn" || txn["rpc.response.status_code"] != "OK" || txn["key"] != "/registry/demo.io/gizmos/ns/g" {
		t.Errorf("the Txn's attributes %v", txn)
	}
	if k := byName["etcdserverpb.KV/Txn"].SpanKind(); k != trace.SpanKindClient {
		t.Errorf("the Txn's kind %v; want client", k)
	}
	// etcd is sent the Txn's span as its caller, for its own spans.
	txnSpan := byName["etcdserverpb.KV/Txn"].SpanContext()
	mu.Lock()
	got := sent["/etcdserverpb.KV/Txn"]
	mu.Unlock()
	if want := "00-" + callerTrace + "-" + txnSpan.SpanID().String() + "-01"; got != want {
		t.Errorf("etcd was sent traceparent %q with the Txn; want %q", got, want)
	}
	create := attrs(byName["Create etcd3"])
	if create["group"] != "demo.io" || create["resource"] != "gizmos" || create["type"] != "Gizmo" {
		t.Errorf("Create etcd3's attributes %v", create)
	}
}

func keys(m map[string]sdktrace.ReadOnlySpan) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// BenchmarkRequest is the cost of tracing configured on a GET of one
// object (memory store): "off" without a Tracer; "unsampled" with
// OpenTelemetry's, a request without a traceparent and no sampling (what
// most requests of a server with a tracing configuration cost); "sampled"
// with every request recorded.
func BenchmarkRequest(b *testing.B) {
	for _, bc := range []struct {
		name   string
		tracer bool
		rate   *int32
	}{{"off", false, nil}, {"unsampled", true, nil}, {"sampled", true, ptr[int32](1000000)}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := server.Options{Resources: []*server.Resource{gizmos}}
			if bc.tracer {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSampler((&otel.Configuration{SamplingRatePerMillion: bc.rate}).Sampler()))
				defer tp.Shutdown(context.Background())
				opts.Hooks.Tracer = otel.NewTracer(tp)
			}
			s, err := server.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			if _, err := s.Create(context.Background(), gizmos, &Gizmo{ObjectMeta: meta.ObjectMeta{Namespace: "ns", Name: "g"}}); err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest("GET", gizmoPath+"/g", nil)
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				w.Body.Reset()
				s.ServeHTTP(w, req)
			}
		})
	}
}

func TestFromConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tracing.yaml")
	os.WriteFile(path, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: 127.0.0.1:1\n"), 0o600)
	tr, shutdown, err := otel.FromConfigFile(context.Background(), path)
	if err != nil || tr == nil {
		t.Fatalf("FromConfigFile = %v, %v", tr, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	shutdown(ctx)
	if _, _, err := otel.FromConfigFile(context.Background(), filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "unable to read tracing configuration") {
		t.Errorf("FromConfigFile of a missing file: %v", err)
	}
}
