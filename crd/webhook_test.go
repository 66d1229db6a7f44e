package crd

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mrand "math/rand/v2"

	"github.com/google/go-cmp/cmp"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// serviceCert returns a self-signed certificate for name and its PEM, a
// webhook service's certificate and caBundle.
func serviceCert(t testing.TB, name string) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// renamingWebhook converts Renames between v1, whose spec has old, and
// v2, whose spec has new, as a real webhook converts a renamed field; it
// answers in the review's version and counts the objects it converted.
type renamingWebhook struct {
	mu      sync.Mutex
	reviews []string // apiVersion and desiredAPIVersion of each
	// already counts the objects sent in the version asked for.
	already int
}

func (h *renamingWebhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rev struct {
		APIVersion string `json:"apiVersion"`
		Request    struct {
			UID               string           `json:"uid"`
			DesiredAPIVersion string           `json:"desiredAPIVersion"`
			Objects           []map[string]any `json:"objects"`
		} `json:"request"`
	}
	if err := json.NewDecoder(r.Body).Decode(&rev); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	h.mu.Lock()
	h.reviews = append(h.reviews, rev.APIVersion+" "+rev.Request.DesiredAPIVersion)
	for _, o := range rev.Request.Objects {
		if o["apiVersion"] == rev.Request.DesiredAPIVersion {
			h.already++
		}
	}
	h.mu.Unlock()
	from, to := "old", "new"
	if strings.HasSuffix(rev.Request.DesiredAPIVersion, "/v1") {
		from, to = to, from
	}
	for _, o := range rev.Request.Objects {
		o["apiVersion"] = rev.Request.DesiredAPIVersion
		if spec, ok := o["spec"].(map[string]any); ok {
			if v, ok := spec[from]; ok {
				spec[to] = v
				delete(spec, from)
			}
		}
	}
	uid := rev.Request.UID
	if rev.APIVersion == "apiextensions.k8s.io/v1beta1" {
		uid = "" // v1beta1 answers are not checked for it
	}
	json.NewEncoder(w).Encode(map[string]any{"apiVersion": rev.APIVersion, "kind": "ConversionReview",
		"response": map[string]any{"uid": uid, "result": map[string]any{"status": "Success"}, "convertedObjects": rev.Request.Objects}})
}

const renamesYAML = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"renames.test.apisem.dev"},
"spec":{"group":"test.apisem.dev","scope":"Namespaced","names":{"kind":"Rename","listKind":"RenameList","plural":"renames","singular":"rename"},
"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":REVIEWS,"clientConfig":{"service":{"namespace":"webhooks","name":"conv","path":"/convert","port":8443},"caBundle":CA}}},
"versions":[
 {"name":"v1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"old":{"type":"string"}}}}}}},
 {"name":"v2","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"new":{"type":"string"}}}}}}}]}}`

// TestWebhookService converts through a webhook named by a service: the
// address comes from Options.ResolveService, the certificate is checked
// for <name>.<namespace>.svc. Every path converts: a create through v1 is
// stored in v2, gets, lists and watch events through v1 are converted
// back, a merge patch through v1 patches the converted object; what is
// already in the version asked for is not sent. With conversionReview
// versions [v1beta1] the review is v1beta1.
func TestWebhookService(t *testing.T) {
	for _, reviews := range []string{`["v1","v1beta1"]`, `["v1beta2","v1beta1"]`} {
		t.Run(reviews, func(t *testing.T) {
			cert, ca := serviceCert(t, "conv.webhooks.svc")
			hook := &renamingWebhook{}
			ts := httptest.NewUnstartedServer(hook)
			ts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
			ts.StartTLS()
			t.Cleanup(ts.Close)
			var mu sync.Mutex
			var resolved []string
			opts := Options{ResolveService: func(namespace, name string, port int32) (*url.URL, error) {
				mu.Lock()
				defer mu.Unlock()
				resolved = append(resolved, fmt.Sprintf("%s/%s:%d", namespace, name, port))
				return url.Parse(ts.URL)
			}}
			defs := opts.Resource()
			s, err := server.New(server.Options{Resources: []*server.Resource{defs}, Rand: mrand.NewChaCha8([32]byte{1})})
			if err != nil {
				t.Fatal(err)
			}
			base := servertest.Start(t, s)
			c := opts.Start(s, defs)
			t.Cleanup(c.Stop)
			caJSON, _ := json.Marshal(ca)
			var d CustomResourceDefinition
			if err := json.Unmarshal([]byte(strings.NewReplacer("REVIEWS", reviews, "CA", string(caJSON)).Replace(renamesYAML)), &d); err != nil {
				t.Fatal(err)
			}
			if err := c.Install(context.Background(), &d); err != nil {
				t.Fatal(err)
			}
			const v1, v2 = "/apis/test.apisem.dev/v1/namespaces/default/renames", "/apis/test.apisem.dev/v2/namespaces/default/renames"
			w := startWatch(t, base+v1+"?watch=1")
			for _, step := range []struct {
				method, path, body, ctype string
				code                      int
				want                      string
			}{
				{"POST", v1, `{"apiVersion":"test.apisem.dev/v1","kind":"Rename","metadata":{"name":"a"},"spec":{"old":"x"}}`, "", 201, `"spec":{"old":"x"}`},
				{"GET", v2 + "/a", "", "", 200, `"spec":{"new":"x"}`},
				{"GET", v1 + "/a", "", "", 200, `"spec":{"old":"x"}`},
				{"GET", v1, "", "", 200, `"apiVersion":"test.apisem.dev/v1","kind":"Rename","metadata":{`},
				{"PATCH", v1 + "/a", `{"spec":{"old":"y"}}`, "application/merge-patch+json", 200, `"spec":{"old":"y"}`},
				{"GET", v2 + "/a", "", "", 200, `"spec":{"new":"y"}`},
				{"POST", v2, `{"apiVersion":"test.apisem.dev/v2","kind":"Rename","metadata":{"name":"b"},"spec":{"new":"z"}}`, "", 201, `"spec":{"new":"z"}`},
			} {
				ct := step.ctype
				if ct == "" {
					ct = "application/json"
				}
				r := servertest.Do(t, step.method, base+step.path, step.body, "Content-Type", ct)
				if r.Code != step.code || !strings.Contains(r.Body, step.want) {
					t.Errorf("%s %s = %d %s; want %d with %s", step.method, step.path, r.Code, r.Body, step.code, step.want)
				}
			}
			for _, want := range [][2]string{{"ADDED", `"spec":{"old":"x"}`}, {"MODIFIED", `"spec":{"old":"y"}`}, {"ADDED", `"spec":{"old":"z"}`}} {
				ev := w.event()
				if !strings.Contains(ev, `"type":"`+want[0]+`"`) || !strings.Contains(ev, want[1]) || !strings.Contains(ev, `"apiVersion":"test.apisem.dev/v1"`) {
					t.Errorf("watch event %s; want %s with %s in v1", ev, want[0], want[1])
				}
			}
			hook.mu.Lock()
			defer hook.mu.Unlock()
			review := "apiextensions.k8s.io/v1"
			if !strings.Contains(reviews, `"v1"`) {
				review = "apiextensions.k8s.io/v1beta1"
			}
			for _, r := range hook.reviews {
				if !strings.HasPrefix(r, review+" ") {
					t.Errorf("review %s; want version %s", r, review)
				}
			}
			if hook.already > 0 || len(hook.reviews) == 0 {
				t.Errorf("%d reviews, %d objects sent in the version asked for", len(hook.reviews), hook.already)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(resolved) == 0 || resolved[0] != "webhooks/conv:8443" {
				t.Errorf("resolved %v", resolved)
			}
		})
	}
}

// TestParseReview: a webhook's answer is checked as the cluster's webhook
// converter checks it, with its messages, beyond the cases recorded in
// testdata/conversion-webhook.json.
func TestParseReview(t *testing.T) {
	const uid = "0b0e0c5e-0000-4000-8000-000000000001"
	v1, v1beta1 := "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"
	ok := `{"apiVersion":"%s","kind":"ConversionReview","response":{"uid":"%s","result":{"status":"Success"},"convertedObjects":[{"a":1}]}}`
	for _, tc := range []struct {
		name, review, body, want string
	}{
		{"v1", v1, fmt.Sprintf(ok, v1, uid), ""},
		{"v1beta1 does not check the uid", v1beta1, fmt.Sprintf(ok, v1beta1, "other"), ""},
		{"v1beta1 takes a missing kind and apiVersion", v1beta1, `{"response":{"result":{"status":"Success"},"convertedObjects":[{"a":1}]}}`, ""},
		{"v1 checks them", v1, `{"apiVersion":"` + v1 + `","response":{"uid":"` + uid + `","result":{"status":"Success"},"convertedObjects":[{"a":1}]}}`,
			`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1, Kind=`},
		{"v1beta1 asked, v1 answered", v1beta1, fmt.Sprintf(ok, v1, uid), `converting (v1.ConversionReview) to (v1beta1.ConversionReview): unknown conversion`},
		{"unknown version", v1, fmt.Sprintf(ok, "example.com/v1", uid), `no kind "ConversionReview" is registered for version "example.com/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"empty", v1, "", "0-length response with status code: 200 and content type: application/json"},
		{"an array", v1, "[1]", `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`},
		{"a number", v1, "12", `couldn't get version/kind; json parse error: json: cannot unmarshal number into Go value`},
		{"a Failure without message", v1, `{"apiVersion":"` + v1 + `","kind":"ConversionReview","response":{"uid":"` + uid + `","result":{}}}`, `response.result.status was '', not 'Success'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := parseReview([]byte(tc.body), tc.review, uid)
			switch {
			case tc.want == "" && (err != nil || len(objs) != 1):
				t.Errorf("parseReview = %s, %v", objs, err)
			case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), strings.ReplaceAll(tc.want, `\\`, `\`))):
				t.Errorf("parseReview error %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestConvertedObject: a converted object keeps the original's metadata
// but for labels and annotations, which must be valid string maps; its
// name, namespace and uid must be the original's.
func TestConvertedObject(t *testing.T) {
	orig := &server.Unstructured{}
	orig.Name, orig.Namespace, orig.UID, orig.Generation = "a", "ns", "u1", 3
	orig.Labels = map[string]string{"l": "1"}
	orig.Annotations = map[string]string{"n": "1"}
	const to = "test.apisem.dev/v2"
	head := `{"apiVersion":"` + to + `","kind":"Hook","spec":{"x":1},"metadata":{"name":"a","namespace":"ns","uid":"u1","generation":9`
	for _, tc := range []struct {
		name, raw, want string
		labels          map[string]string
		annotations     map[string]string
	}{
		{name: "labels and annotations dropped", raw: head + `}}`},
		{name: "labels changed, annotations kept", raw: head + `,"labels":{"m":"2"},"annotations":{"n":"1"}}}`,
			labels: map[string]string{"m": "2"}, annotations: map[string]string{"n": "1"}},
		{name: "uid changed", raw: `{"apiVersion":"` + to + `","kind":"Hook","metadata":{"name":"a","namespace":"ns","uid":"u2"}}`,
			want: "invalid object: must have the same UID: u1 != u2"},
		{name: "namespace changed", raw: `{"apiVersion":"` + to + `","kind":"Hook","metadata":{"name":"a","namespace":"other","uid":"u1"}}`,
			want: "invalid object: must have the same namespace: ns != other"},
		{name: "no metadata", raw: `{"apiVersion":"` + to + `","kind":"Hook"}`,
			want: "invalid object: must have the same name: a != "},
		{name: "label not a string", raw: head + `,"labels":{"m":2}}}`,
			want: "invalid metadata: metadata.labels[m] must be a string, but is int64 in converted object"},
		{name: "labels not a map", raw: head + `,"labels":["m"]}}`,
			want: "invalid metadata: invalid metadata.labels of type []interface {} in converted object"},
		{name: "annotation key invalid", raw: head + `,"annotations":{"a b":"x"}}}`,
			want: `invalid metadata: metadata.annotation: Invalid value: "a b": name part must consist of alphanumeric characters`},
		{name: "no kind", raw: `{"apiVersion":"` + to + `"}`, want: `invalid object at index 0: Object 'Kind' is missing in '{"apiVersion":"` + to + `"}'`},
		{name: "not an object", raw: `"x"`, want: "invalid object at index 0: json: cannot unmarshal string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := convertedObject(json.RawMessage(tc.raw), orig, to, "Hook")
			if tc.want != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("error %v\nwant %s", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Generation != 3 || out.Name != "a" || fmt.Sprint(out.Labels) != fmt.Sprint(tc.labels) ||
				fmt.Sprint(out.Annotations) != fmt.Sprint(tc.annotations) || fmt.Sprint(out.Content) != "map[spec:map[x:1]]" {
				t.Errorf("converted %+v %v", out.ObjectMeta, out.Content)
			}
		})
	}
}

// TestResponseError: an answer other than 2xx is the REST client's error.
func TestResponseError(t *testing.T) {
	for _, tc := range []struct {
		code        int
		ctype, body string
		want        string
	}{
		{500, "text/plain; charset=utf-8", "boom\n", `an error on the server ("boom") has prevented the request from succeeding`},
		{502, "application/octet-stream", "x", `an error on the server ("unknown") has prevented the request from succeeding`},
		{404, "text/plain", "nope", "the server could not find the requested resource"},
		{403, "text/plain", "go away", "go away"},
		{418, "text/plain", "", "the server responded with the status code 418 but did not return more information"},
		{400, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"bad review","code":400}`, "bad review"},
	} {
		if got := responseError(tc.code, tc.ctype, []byte(tc.body)).Error(); got != tc.want {
			t.Errorf("%d %s: %s; want %s", tc.code, tc.body, got, tc.want)
		}
	}
}

// TestResolveService is the default address of a webhook's service.
func TestResolveService(t *testing.T) {
	u, err := ResolveService("webhooks", "conv", 8443)
	if err != nil || u.String() != "https://conv.webhooks.svc:8443" {
		t.Errorf("ResolveService = %v, %v", u, err)
	}
	if _, err := ResolveService("", "conv", 443); err == nil {
		t.Error("an empty namespace resolved")
	}
}

// FuzzParseReview: a webhook's answer, untrusted, never panics, and a
// success has objects only from a well-formed review.
func FuzzParseReview(f *testing.F) {
	const uid = "u"
	for _, seed := range []string{
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"u","result":{"status":"Success"},"convertedObjects":[{}]}}`,
		`{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{"result":{"status":"Failure","message":"m"}}}`,
		`not json`, `[1,2]`, `{"kind":7}`, `{"response":null}`, ``, `{"response":{"convertedObjects":[1,"x",null]}}`,
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	orig := &server.Unstructured{}
	orig.Name = "a"
	f.Fuzz(func(t *testing.T, b []byte, v1 bool) {
		review := "apiextensions.k8s.io/v1beta1"
		if v1 {
			review = "apiextensions.k8s.io/v1"
		}
		objs, err := parseReview(b, review, uid)
		if err != nil {
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		for _, o := range objs {
			convertedObject(o, orig, "g/v1", "K")
		}
	})
}

// TestConversionValidation posts definitions with good and bad
// spec.conversion and checks the answers against kube-apiserver 1.37's
// (testdata/conversion-validation.json): a webhook needs a client config
// with exactly one of an HTTPS url without user, query or fragment, or a
// service with a name, namespace, valid port and path; review versions
// that include v1 or v1beta1; a None strategy has neither. A service's
// port defaults to 443.
func TestConversionValidation(t *testing.T) {
	var rec struct {
		Definition map[string]any
		Cases      []struct {
			Name       string
			Conversion any
			Code       int
			Message    string
			Causes     []map[string]any
			Stored     any
		}
	}
	b, err := os.ReadFile("testdata/conversion-validation.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	_, _, base := newServer(t)
	for _, tc := range rec.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			rec.Definition["spec"].(map[string]any)["conversion"] = tc.Conversion
			body, _ := json.Marshal(rec.Definition)
			r := servertest.Do(t, "POST", base+crdsURL+"?dryRun=All", string(body), "Content-Type", "application/json")
			var out struct {
				Kind    string
				Message string
				Details struct{ Causes []map[string]any }
				Spec    struct{ Conversion any }
			}
			if err := json.Unmarshal([]byte(r.Body), &out); err != nil {
				t.Fatal(err)
			}
			if r.Code != tc.Code || out.Message != tc.Message {
				t.Errorf("%d %s\nwant %d %s", r.Code, out.Message, tc.Code, tc.Message)
			}
			if diff := cmp.Diff(tc.Causes, out.Details.Causes); tc.Code != 201 && diff != "" {
				t.Errorf("causes (-cluster +here):\n%s", diff)
			}
			if diff := cmp.Diff(tc.Stored, out.Spec.Conversion); tc.Code == 201 && diff != "" {
				t.Errorf("stored (-cluster +here):\n%s", diff)
			}
		})
	}
}

// TestWebhookDownThenBack: while the webhook fails, reads through the
// other version fail (500) and a watch through it ends at the event it
// cannot convert; once the webhook answers again, the same stored
// versions read and watch: a failure is not kept.
func TestWebhookDownThenBack(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	hook := &renamingWebhook{}
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		hook.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	caJSON, _ := json.Marshal(ca)
	def := strings.NewReplacer("REVIEWS", `["v1"]`, "CA", string(caJSON),
		`"service":{"namespace":"webhooks","name":"conv","path":"/convert","port":8443}`, `"url":"`+ts.URL+`/convert"`).Replace(renamesYAML)
	var d CustomResourceDefinition
	if err := json.Unmarshal([]byte(def), &d); err != nil {
		t.Fatal(err)
	}
	_, c, base := newServer(t)
	if err := c.Install(context.Background(), &d); err != nil {
		t.Fatal(err)
	}
	const v1, v2 = "/apis/test.apisem.dev/v1/namespaces/default/renames", "/apis/test.apisem.dev/v2/namespaces/default/renames"
	do(t, "POST", base+v2, `{"apiVersion":"test.apisem.dev/v2","kind":"Rename","metadata":{"name":"a"},"spec":{"new":"x"}}`, 201)
	r := do(t, "GET", base+v1+"/a", "", 500)
	if !strings.Contains(r.body, `conversion webhook for test.apisem.dev/v2, Kind=Rename failed: the server is currently unable to handle the request`) {
		t.Errorf("get while down: %s", r.body)
	}
	do(t, "GET", base+v1, "", 500)
	w := startWatch(t, base+v1+"?watch=1&resourceVersion=0")
	if ev, ok := w.next(); ok {
		t.Errorf("a watch got %s from a webhook that is down", ev)
	}
	down.Store(false)
	if r := do(t, "GET", base+v1+"/a", "", 200); !strings.Contains(r.body, `"spec":{"old":"x"}`) {
		t.Errorf("get once back: %s", r.body)
	}
	do(t, "GET", base+v1, "", 200)
	w = startWatch(t, base+v1+"?watch=1&resourceVersion=0")
	if ev := w.event(); !strings.Contains(ev, `"spec":{"old":"x"}`) {
		t.Errorf("watch once back: %s", ev)
	}
}

// TestWebhookTable: the Table of a version other than the storage
// version converts each object once, not once per column (its cells read
// the object one by one), and prints the converted values.
func TestWebhookTable(t *testing.T) {
	hook := &renamingWebhook{}
	ts := httptest.NewTLSServer(hook)
	t.Cleanup(ts.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ts.Certificate().Raw})
	caJSON, _ := json.Marshal(ca)
	def := strings.NewReplacer("REVIEWS", `["v1"]`, "CA", string(caJSON),
		`"service":{"namespace":"webhooks","name":"conv","path":"/convert","port":8443}`, `"url":"`+ts.URL+`/convert"`).Replace(renamesYAML)
	var d CustomResourceDefinition
	if err := json.Unmarshal([]byte(def), &d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Versions[0].AdditionalPrinterColumns = []CustomResourceColumnDefinition{
		{Name: "Old", Type: "string", JSONPath: ".spec.old"}, {Name: "Again", Type: "string", JSONPath: ".spec.old"}}
	_, c, base := newServer(t)
	if err := c.Install(context.Background(), &d); err != nil {
		t.Fatal(err)
	}
	const v1, v2 = "/apis/test.apisem.dev/v1/namespaces/default/renames", "/apis/test.apisem.dev/v2/namespaces/default/renames"
	for _, n := range []string{"a", "b", "c"} {
		do(t, "POST", base+v2, `{"apiVersion":"test.apisem.dev/v2","kind":"Rename","metadata":{"name":"`+n+`"},"spec":{"new":"`+n+n+`"}}`, 201)
	}
	r := do(t, "GET", base+v1, "", 200, "Accept", "application/json;as=Table;g=meta.k8s.io;v=v1")
	for _, n := range []string{"a", "b", "c"} {
		if !strings.Contains(r.body, `"cells":["`+n+`","`+n+n+`","`+n+n+`"]`) {
			t.Errorf("Table lacks the row of %s: %s", n, r.body)
		}
	}
	hook.mu.Lock()
	defer hook.mu.Unlock()
	if len(hook.reviews) != 3 {
		t.Errorf("%d reviews for a Table of 3 objects with 2 columns; want 3", len(hook.reviews))
	}
}
