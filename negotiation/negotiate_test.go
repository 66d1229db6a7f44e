package negotiation

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
)

// Accept headers real clients send.
const (
	// kubectl get, server-side printing (k8s.io/kubectl/pkg/cmd/get).
	kubectlAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	// client-go with ContentType JSON.
	clientGoJSONAccept = "application/json, */*"
	// client-go with ContentType protobuf.
	clientGoProtobufAccept = "application/vnd.kubernetes.protobuf,application/json"
	// controller-runtime's / client-go's metadata client, list and watch.
	metadataListAccept  = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	metadataWatchAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	firefoxAccept       = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	chromeAccept        = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
	curlAccept          = "*/*"

	notAcceptableAll    = "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"
	notAcceptableStream = "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
)

var (
	objectEP   = Endpoint{}
	listEP     = Endpoint{Response: List}
	watchEP    = Endpoint{Response: Watch}
	jsonListEP = Endpoint{Response: List, MediaTypes: JSON | YAML} // e.g. a custom resource
)

var clientHeaders = []struct {
	name   string
	accept string
	ep     Endpoint
	want   Result
	err    string // the 406 message, if negotiation fails
}{
	{name: "kubectl get list", accept: kubectlAccept, ep: listEP, want: Result{MediaType: JSON, Target: TargetTable}},
	{name: "kubectl get object", accept: kubectlAccept, ep: objectEP, want: Result{MediaType: JSON, Target: TargetTable}},
	{name: "kubectl get -w", accept: kubectlAccept, ep: watchEP, want: Result{MediaType: JSON, Target: TargetTable, Stream: true}},
	{name: "kubectl get, endpoint without tables", accept: kubectlAccept, ep: Endpoint{Response: List, NoTable: true}, want: Result{MediaType: JSON}},
	{name: "client-go JSON", accept: clientGoJSONAccept, ep: listEP, want: Result{MediaType: JSON}},
	{name: "client-go JSON watch", accept: clientGoJSONAccept, ep: watchEP, want: Result{MediaType: JSON, Stream: true}},
	{name: "client-go protobuf", accept: clientGoProtobufAccept, ep: listEP, want: Result{MediaType: Protobuf}},
	{name: "client-go protobuf watch", accept: clientGoProtobufAccept, ep: watchEP, want: Result{MediaType: Protobuf, Stream: true}},
	{name: "client-go protobuf, type without protobuf", accept: clientGoProtobufAccept, ep: jsonListEP, want: Result{MediaType: JSON}},
	{name: "metadata list", accept: metadataListAccept, ep: listEP, want: Result{MediaType: Protobuf, Target: TargetPartialObjectMetadataList}},
	{name: "metadata list, type without protobuf", accept: metadataListAccept, ep: jsonListEP, want: Result{MediaType: JSON, Target: TargetPartialObjectMetadataList}},
	{name: "metadata watch", accept: metadataWatchAccept, ep: watchEP, want: Result{MediaType: Protobuf, Target: TargetPartialObjectMetadata, Stream: true}},
	{name: "metadata get", accept: strings.ReplaceAll(metadataListAccept, "List", ""), ep: objectEP, want: Result{MediaType: Protobuf, Target: TargetPartialObjectMetadata}},
	// A list conversion does not fit a single object: the client's
	// fallback is used (Kubernetes would answer 406).
	{name: "metadata list header on a get", accept: metadataListAccept, ep: objectEP, want: Result{MediaType: JSON}},
	{name: "metadata list, no conversions", accept: metadataListAccept, ep: Endpoint{Response: List, NoPartialMetadata: true}, want: Result{MediaType: JSON}},
	{name: "firefox", accept: firefoxAccept, ep: listEP, want: Result{MediaType: JSON}},
	{name: "chrome", accept: chromeAccept, ep: objectEP, want: Result{MediaType: JSON}},
	{name: "curl", accept: curlAccept, ep: listEP, want: Result{MediaType: JSON}},
	{name: "no Accept", accept: "", ep: listEP, want: Result{MediaType: JSON}},
	{name: "no Accept, watch", accept: "", ep: watchEP, want: Result{MediaType: JSON, Stream: true}},
	{name: "no Accept, protobuf only", accept: "", ep: Endpoint{MediaTypes: Protobuf}, want: Result{MediaType: Protobuf}},
	{name: "empty elements only", accept: " , ", ep: listEP, want: Result{MediaType: JSON}},

	{name: "yaml", accept: "application/yaml", ep: listEP, want: Result{MediaType: YAML}},
	{name: "yaml table", accept: "application/yaml;as=Table;g=meta.k8s.io;v=v1beta1", ep: listEP, want: Result{MediaType: YAML, Target: TargetTableV1beta1}},
	{name: "yaml metadata", accept: "application/yaml;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1", ep: listEP, want: Result{MediaType: YAML, Target: TargetPartialObjectMetadataListV1beta1}},
	{name: "application/*", accept: "application/*", ep: listEP, want: Result{MediaType: JSON}},
	{name: "application/* on protobuf only", accept: "application/*", ep: Endpoint{MediaTypes: Protobuf}, want: Result{MediaType: Protobuf}},
	{name: "case-insensitive type", accept: "Application/YAML", ep: listEP, want: Result{MediaType: YAML}},
	{name: "q order", accept: "application/json;q=0.5, application/yaml", ep: listEP, want: Result{MediaType: YAML}},
	{name: "q order 2", accept: "application/yaml;q=0.5, application/json;q=0.9", ep: listEP, want: Result{MediaType: JSON}},
	{name: "header order breaks ties", accept: "application/yaml, application/json", ep: listEP, want: Result{MediaType: YAML}},
	{name: "specific beats wildcard at equal q", accept: "*/*, application/yaml", ep: listEP, want: Result{MediaType: YAML}},
	{name: "q=0 excludes", accept: "application/json;q=0, */*", ep: listEP, want: Result{MediaType: YAML}},
	{name: "q=0 wildcard loses to specific", accept: "*/*;q=0, application/yaml", ep: listEP, want: Result{MediaType: YAML}},
	{name: "q=0 excludes in a type range", accept: "application/*, application/json;q=0, application/yaml;q=0", ep: listEP, want: Result{MediaType: Protobuf}},
	{name: "pretty parameter", accept: "application/json;pretty=1", ep: listEP, want: Result{MediaType: JSON, Pretty: true}},
	{name: "pretty parameter on yaml", accept: "application/yaml;pretty=1", ep: listEP, want: Result{MediaType: YAML}},
	{name: "pretty parameter on watch", accept: "application/json;pretty=1", ep: watchEP, want: Result{MediaType: JSON, Stream: true}},
	{name: "stream=watch", accept: "application/json;stream=watch", ep: watchEP, want: Result{MediaType: JSON, Stream: true}},
	{name: "protobuf stream=watch", accept: "application/vnd.kubernetes.protobuf;stream=watch", ep: watchEP, want: Result{MediaType: Protobuf, Stream: true}},
	{name: "stream=watch on a list", accept: "application/json;stream=watch", ep: listEP, want: Result{MediaType: JSON}},
	{name: "yaml falls through on watch", accept: "application/yaml, application/json", ep: watchEP, want: Result{MediaType: JSON, Stream: true}},
	{name: "partial conversion skipped", accept: "application/json;as=Table, application/yaml", ep: listEP, want: Result{MediaType: YAML}},
	{name: "wrong group skipped", accept: "application/json;as=Table;g=apps;v=v1, application/yaml", ep: listEP, want: Result{MediaType: YAML}},
	{name: "server version skipped", accept: "application/json;sv=v1, application/yaml", ep: listEP, want: Result{MediaType: YAML}},
	{name: "quoted parameter", accept: `application/json;as="Table";g=meta.k8s.io;v=v1`, ep: listEP, want: Result{MediaType: JSON, Target: TargetTable}},
	{name: "malformed entries skipped", accept: "json, ;, application/yaml", ep: listEP, want: Result{MediaType: YAML}},

	{name: "text/html", accept: "text/html", ep: listEP, err: notAcceptableAll},
	{name: "only q=0", accept: "application/json;q=0", ep: listEP, err: notAcceptableAll},
	{name: "wildcard q=0", accept: "*/*;q=0", ep: listEP, err: notAcceptableAll},
	{name: "malformed only", accept: "json", ep: listEP, err: notAcceptableAll},
	{name: "protobuf table", accept: "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1", ep: listEP, err: notAcceptableAll},
	{name: "table without tables", accept: "application/json;as=Table;g=meta.k8s.io;v=v1", ep: Endpoint{NoTable: true}, err: notAcceptableAll},
	// kube-apiserver 1.37 names its serializers' media types whatever the
	// type serves: a custom resource's 406 lists protobuf too.
	{name: "protobuf on a JSON type", accept: "application/vnd.kubernetes.protobuf", ep: Endpoint{MediaTypes: JSON}, err: notAcceptableAll},
	{name: "protobuf on a JSON and YAML type", accept: "application/vnd.kubernetes.protobuf", ep: jsonListEP, err: notAcceptableAll},
	{name: "yaml watch", accept: "application/yaml", ep: watchEP, err: notAcceptableStream},
	// A watch is negotiated as a list first: the stream forms are named
	// only when that finds a media type without one (kube-apiserver 1.37
	// answers so for ConfigMaps and custom resources).
	{name: "yaml stream", accept: "application/yaml;stream=watch", ep: watchEP, err: notAcceptableAll},
	{name: "bad stream", accept: "application/json;stream=foo", ep: watchEP, err: notAcceptableAll},
	{name: "yaml watch", accept: "application/yaml", ep: watchEP, err: notAcceptableStream},
	{name: "html watch", accept: "text/html", ep: watchEP, err: notAcceptableAll},
	{name: "watch on a JSON type", accept: "application/vnd.kubernetes.protobuf", ep: Endpoint{Response: Watch, MediaTypes: JSON | YAML}, err: notAcceptableAll},
	{name: "watch on a YAML-only type", accept: "", ep: Endpoint{Response: Watch, MediaTypes: YAML}, err: notAcceptableStream},
}

func TestNegotiateClients(t *testing.T) {
	for _, tt := range clientHeaders {
		got, err := tt.ep.NegotiateAccept(tt.accept)
		if tt.err != "" {
			if !status.IsNotAcceptable(err) || err.Error() != tt.err {
				t.Errorf("%s: %+v.NegotiateAccept(%q) = %+v, %v; want 406 %q", tt.name, tt.ep, tt.accept, got, err, tt.err)
			}
			if st := status.FromError(err); st.Code != 406 || st.Reason != status.ReasonNotAcceptable {
				t.Errorf("%s: status %+v; want 406 NotAcceptable", tt.name, st)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v.NegotiateAccept(%q) = %+v, %v; want %+v", tt.name, tt.ep, tt.accept, got, err, tt.want)
		}
	}
}

func TestNegotiateMalformedReported(t *testing.T) {
	_, err := listEP.NegotiateAccept("json, text/html")
	if !status.IsNotAcceptable(err) || !errors.Is(err, ErrMalformedAccept) {
		t.Errorf("NegotiateAccept(malformed) = %v; want 406 wrapping ErrMalformedAccept", err)
	}
	_, err = listEP.NegotiateAccept("text/html")
	if errors.Is(err, ErrMalformedAccept) {
		t.Errorf("NegotiateAccept(text/html) = %v; must not report malformed entries", err)
	}
}

func TestNegotiateRequest(t *testing.T) {
	tests := []struct {
		name    string
		accept  []string
		target  string
		agent   string
		ep      Endpoint
		want    Result
		wantErr bool
	}{
		{name: "plain", target: "/api/v1/pods", want: Result{MediaType: JSON}},
		{name: "pretty query", target: "/api/v1/pods?pretty=true", want: Result{MediaType: JSON, Pretty: true}},
		{name: "pretty query 1", target: "/api/v1/pods?limit=5&pretty=1", want: Result{MediaType: JSON, Pretty: true}},
		{name: "pretty query false", target: "/api/v1/pods?pretty=false", want: Result{MediaType: JSON}},
		{name: "pretty query first value wins", target: "/api/v1/pods?pretty=false&pretty=true", want: Result{MediaType: JSON}},
		{name: "pretty query escaped", target: "/api/v1/pods?pr%65tty=%74rue", want: Result{MediaType: JSON, Pretty: true}},
		{name: "pretty query garbage", target: "/api/v1/pods?pretty=yes", want: Result{MediaType: JSON}},
		{name: "pretty query bad escape skipped", target: "/api/v1/pods?pretty=%zz&pretty=true", want: Result{MediaType: JSON, Pretty: true}},
		{name: "curl", agent: "curl/8.5.0", want: Result{MediaType: JSON, Pretty: true}},
		// The query decides when it says anything (kube-apiserver's isPrettyPrint).
		{name: "curl, pretty=false", target: "/api/v1/pods?pretty=false", agent: "curl/8.5.0", want: Result{MediaType: JSON}},
		{name: "curl, pretty=0", target: "/api/v1/pods?pretty=0", agent: "curl/8.5.0", want: Result{MediaType: JSON}},
		{name: "curl, pretty=garbage", target: "/api/v1/pods?pretty=yes", agent: "curl/8.5.0", want: Result{MediaType: JSON}},
		{name: "curl, empty pretty", target: "/api/v1/pods?pretty=", agent: "curl/8.5.0", want: Result{MediaType: JSON, Pretty: true}},
		{name: "browser, pretty=false", target: "/api/v1/pods?pretty=false", agent: "Mozilla/5.0 (X11; Linux x86_64)", accept: []string{firefoxAccept}, want: Result{MediaType: JSON}},
		{name: "Accept pretty=1 wins over pretty=false", target: "/api/v1/pods?pretty=false", accept: []string{"application/json;pretty=1"}, want: Result{MediaType: JSON, Pretty: true}},
		{name: "wget", agent: "Wget/1.21", want: Result{MediaType: JSON, Pretty: true}},
		{name: "browser", agent: "Mozilla/5.0 (X11; Linux x86_64)", accept: []string{firefoxAccept}, want: Result{MediaType: JSON, Pretty: true}},
		{name: "kubectl", agent: "kubectl/v1.34.0 (linux/amd64) kubernetes/abcdef", accept: []string{kubectlAccept}, want: Result{MediaType: JSON, Target: TargetTable}},
		{name: "curl yaml is not pretty", agent: "curl/8.5.0", accept: []string{"application/yaml"}, want: Result{MediaType: YAML}},
		{name: "curl watch is not pretty", agent: "curl/8.5.0", ep: watchEP, want: Result{MediaType: JSON, Stream: true}},
		{name: "several Accept lines", accept: []string{"text/html", "application/yaml"}, want: Result{MediaType: YAML}},
		{name: "several Accept lines, none acceptable", accept: []string{"text/html", "image/png"}, wantErr: true},
	}
	for _, tt := range tests {
		target := tt.target
		if target == "" {
			target = "/api/v1/pods"
		}
		r := httptest.NewRequest("GET", target, nil)
		for _, a := range tt.accept {
			r.Header.Add("Accept", a)
		}
		if tt.agent != "" {
			r.Header.Set("User-Agent", tt.agent)
		}
		got, err := tt.ep.Negotiate(r)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("%s: Negotiate(%s, Accept %q, UA %q) = %+v, %v; want %+v, err %v", tt.name, target, tt.accept, tt.agent, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestResultContentType(t *testing.T) {
	tests := []struct {
		res  Result
		want string
	}{
		{Result{MediaType: JSON}, "application/json"},
		{Result{MediaType: JSON, Stream: true}, "application/json"},
		{Result{MediaType: JSON, Target: TargetTable}, "application/json"},
		{Result{MediaType: YAML}, "application/yaml"},
		{Result{MediaType: Protobuf}, "application/vnd.kubernetes.protobuf"},
		{Result{MediaType: Protobuf, Stream: true}, "application/vnd.kubernetes.protobuf;stream=watch"},
		{Result{MediaType: Protobuf, Target: TargetPartialObjectMetadataList}, "application/vnd.kubernetes.protobuf"},
	}
	for _, tt := range tests {
		if got := tt.res.ContentType(); got != tt.want {
			t.Errorf("%+v.ContentType() = %q; want %q", tt.res, got, tt.want)
		}
	}
}

func TestTargetNames(t *testing.T) {
	tests := []struct {
		t          Target
		kind, gv   string
		isTable    bool
		stringForm string
	}{
		{TargetNone, "", "", false, "None"},
		{TargetTable, "Table", "meta.k8s.io/v1", true, "Table meta.k8s.io/v1"},
		{TargetTableV1beta1, "Table", "meta.k8s.io/v1beta1", true, "Table meta.k8s.io/v1beta1"},
		{TargetPartialObjectMetadata, "PartialObjectMetadata", "meta.k8s.io/v1", false, "PartialObjectMetadata meta.k8s.io/v1"},
		{TargetPartialObjectMetadataV1beta1, "PartialObjectMetadata", "meta.k8s.io/v1beta1", false, "PartialObjectMetadata meta.k8s.io/v1beta1"},
		{TargetPartialObjectMetadataList, "PartialObjectMetadataList", "meta.k8s.io/v1", false, "PartialObjectMetadataList meta.k8s.io/v1"},
		{TargetPartialObjectMetadataListV1beta1, "PartialObjectMetadataList", "meta.k8s.io/v1beta1", false, "PartialObjectMetadataList meta.k8s.io/v1beta1"},
		{Target(99), "", "meta.k8s.io/v1", false, "Target(99)"},
	}
	for _, tt := range tests {
		if tt.t.Kind() != tt.kind || tt.t.APIVersion() != tt.gv || tt.t.IsTable() != tt.isTable || tt.t.String() != tt.stringForm {
			t.Errorf("Target %d = %q %q %v %q; want %q %q %v %q", tt.t, tt.t.Kind(), tt.t.APIVersion(), tt.t.IsTable(), tt.t.String(),
				tt.kind, tt.gv, tt.isTable, tt.stringForm)
		}
	}
	if s := MediaType(3).String(); s != "MediaType(3)" {
		t.Errorf("MediaType(3).String() = %q", s)
	}
}

func BenchmarkNegotiate(b *testing.B) {
	var q20 strings.Builder
	for i := range 20 {
		if i > 0 {
			q20.WriteString(", ")
		}
		// 19 ranges the server does not serve, with falling q, then the
		// one it does: the worst case for a sorting negotiator.
		if i == 19 {
			q20.WriteString("application/json;q=0.05")
			continue
		}
		q20.WriteString("text/x-type")
		q20.WriteByte(byte('a' + i))
		q20.WriteString(";level=1;q=0.")
		q20.WriteByte(byte('9' - i%9))
	}
	benches := []struct {
		name, accept string
		ep           Endpoint
	}{
		{"kubectl", kubectlAccept, listEP},
		{"protobuf", clientGoProtobufAccept, listEP},
		{"metadata", metadataListAccept, listEP},
		{"20q", q20.String(), listEP},
	}
	for _, bb := range benches {
		if _, err := bb.ep.NegotiateAccept(bb.accept); err != nil {
			b.Fatalf("%s: %v", bb.name, err)
		}
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = bb.ep.NegotiateAccept(bb.accept)
			}
		})
	}
	b.Run("request/kubectl", func(b *testing.B) {
		r := httptest.NewRequest("GET", "/api/v1/pods?limit=500", nil)
		r.Header.Set("Accept", kubectlAccept)
		r.Header.Set("User-Agent", "kubectl/v1.34.0 (linux/amd64) kubernetes/abcdef")
		b.ReportAllocs()
		for b.Loop() {
			_, _ = listEP.Negotiate(r)
		}
	})
}

// BenchmarkParseAcceptHostile shows the cost per byte of long hostile
// headers stays flat: parsing is linear and stops after MaxAcceptEntries.
func BenchmarkParseAcceptHostile(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		for _, pat := range []struct{ name, unit string }{
			{"params", "a/b;" + strings.Repeat("x=1;", 10)},
			{"quote", `a/b;x="` + strings.Repeat(`\,`, 20)},
			{"spaces", "a/b" + strings.Repeat(" ", 40) + ";"},
		} {
			h := strings.Repeat(pat.unit, n/len(pat.unit)+1)[:n]
			b.Run(pat.name+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					_, _ = listEP.NegotiateAccept(h)
				}
			})
		}
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return "1MiB"
	}
	return "1KiB"
}

// Negotiation is on every request's path: it must not allocate for the
// headers real clients send.
func TestNegotiateAllocs(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/v1/pods?limit=500", nil)
	r.Header.Set("Accept", kubectlAccept)
	r.Header.Set("User-Agent", "kubectl/v1.34.0 (linux/amd64) kubernetes/abcdef")
	for _, h := range []string{kubectlAccept, clientGoJSONAccept, clientGoProtobufAccept, metadataListAccept, chromeAccept, ""} {
		if n := testing.AllocsPerRun(50, func() { _, _ = listEP.NegotiateAccept(h) }); n != 0 {
			t.Errorf("NegotiateAccept(%q) allocates %v times; want 0", h, n)
		}
	}
	if n := testing.AllocsPerRun(50, func() { _, _ = listEP.Negotiate(r) }); n != 0 {
		t.Errorf("Negotiate(kubectl request) allocates %v times; want 0", n)
	}
}
