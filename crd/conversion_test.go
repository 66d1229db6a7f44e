package crd

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apisem/apisem/server/servertest"
)

// recordedStep is one request of a recorded-answers file and what
// kube-apiserver answered: the code, the Warning headers, and the
// answer's apiVersion and spec (labels and generation), or a list's
// items, or a Status' reason, message and details.
type recordedStep struct {
	Mode        string          `json:"mode"`
	Name        string          `json:"name"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Body        json.RawMessage `json:"body"`
	ContentType string          `json:"contentType"`
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings"`
	APIVersion  string          `json:"apiVersion"`
	Spec        any             `json:"spec"`
	Labels      any             `json:"labels"`
	Generation  any             `json:"generation"`
	Items       []any           `json:"items"`
	Status      map[string]any  `json:"status"`
}

// answer sends s's request to url and returns the answer in s's recorded
// form: items and Status members as recorded, the rest only where the
// recording has them.
func (s recordedStep) answer(t *testing.T, url string, itemFields ...string) recordedStep {
	t.Helper()
	ct := s.ContentType
	if ct == "" {
		ct = "application/json"
	}
	var body string
	if s.Body != nil {
		body = string(s.Body)
	}
	r := servertest.Do(t, s.Method, url+s.Path, body, "Content-Type", ct)
	got := recordedStep{Mode: s.Mode, Name: s.Name, Method: s.Method, Path: s.Path, Body: s.Body, ContentType: s.ContentType,
		Code: r.Code, Warnings: r.Header.Values("Warning")}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Body), &out); err != nil {
		t.Fatalf("%s: %v: %s", s.Name, err, r.Body)
	}
	md, _ := out["metadata"].(map[string]any)
	switch {
	case out["kind"] == "Status":
		got.Status = map[string]any{}
		for _, k := range []string{"reason", "message", "details"} {
			if v, ok := out[k]; ok && v != "" {
				got.Status[k] = v
			}
		}
		if d, ok := got.Status["details"].(map[string]any); ok {
			delete(d, "uid")
		}
	case out["items"] != nil:
		for _, it := range out["items"].([]any) {
			it := it.(map[string]any)
			imd := it["metadata"].(map[string]any)
			item := map[string]any{"name": imd["name"], "apiVersion": it["apiVersion"], "spec": it["spec"]}
			for _, f := range itemFields {
				item[f] = imd[f]
			}
			got.Items = append(got.Items, item)
		}
	default:
		got.APIVersion, _ = out["apiVersion"].(string)
		got.Spec = out["spec"]
		if s.Labels != nil || s.Generation != nil {
			got.Labels, got.Generation = md["labels"], md["generation"]
		}
	}
	return got
}

// TestStorageVersionPruning replays requests to a definition whose two
// versions name different members, and checks the answers against
// kube-apiserver 1.37's to the same requests
// (testdata/storage-version-pruning.json): a member written through v1
// that the storage version v2 lacks is dropped (v1's required member
// too, so that the next write through v1 must give it again), the
// request version's defaults are pruned with it, and a read defaults by
// the storage version's schema and prunes by its own version's.
func TestStorageVersionPruning(t *testing.T) {
	var rec struct {
		Definition *CustomResourceDefinition `json:"definition"`
		Steps      []recordedStep            `json:"steps"`
	}
	b, err := os.ReadFile("testdata/storage-version-pruning.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	_, c, url := newServer(t)
	if err := c.Install(context.Background(), rec.Definition); err != nil {
		t.Fatal(err)
	}
	for _, s := range rec.Steps {
		// In order: each request sees the writes before it.
		if diff := cmp.Diff(s, s.answer(t, url)); diff != "" {
			t.Errorf("%s: answer differs from kube-apiserver's (-cluster +here):\n%s", s.Name, diff)
		}
	}
}

// conversionWebhook answers ConversionReviews as the webhook of
// testdata/conversion-webhook.json did, by the path's mode: ok converts
// (sets apiVersion); the others fail in one way each (see that file).
// The first review of mode fail is sent to reviews.
func conversionWebhook(t testing.TB, reviews chan<- []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode := strings.TrimPrefix(r.URL.Path, "/")
		if mode == "fail" {
			b, _ := io.ReadAll(r.Body)
			select {
			case reviews <- b:
			default:
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		if r.URL.Query().Get("timeout") != "30s" {
			t.Errorf("%s: called without ?timeout=30s: %s", mode, r.URL)
		}
		switch mode {
		case "status500":
			http.Error(w, "boom", 500)
			return
		case "garbage":
			w.Write([]byte("not json"))
			return
		}
		var rev struct {
			APIVersion string `json:"apiVersion"`
			Request    struct {
				UID               string           `json:"uid"`
				DesiredAPIVersion string           `json:"desiredAPIVersion"`
				Objects           []map[string]any `json:"objects"`
			} `json:"request"`
		}
		if err := json.NewDecoder(r.Body).Decode(&rev); err != nil {
			t.Errorf("%s: %v", mode, err)
		}
		objs := []any{}
		for _, m := range rev.Request.Objects {
			m["apiVersion"] = rev.Request.DesiredAPIVersion
			md := m["metadata"].(map[string]any)
			switch mode {
			case "name":
				md["name"] = "other"
			case "metaother":
				md["generation"] = 99
				md["labels"] = map[string]any{"added": "by-webhook"}
			case "badlabel":
				md["labels"] = map[string]any{"bad key!": "x"}
			case "kind":
				m["kind"] = "Other"
			case "apiversion":
				m["apiVersion"] = "test.apisem.dev/v9"
			}
			objs = append(objs, m)
		}
		resp := map[string]any{"uid": rev.Request.UID, "result": map[string]any{"status": "Success"}, "convertedObjects": objs}
		switch mode {
		case "fail":
			resp["result"] = map[string]any{"status": "Failure", "message": "cannot convert this"}
		case "failnomsg":
			resp["result"] = map[string]any{"status": "Failure"}
		case "uid":
			resp["uid"] = "wrong"
		case "count":
			resp["convertedObjects"] = []any{}
		}
		out := map[string]any{"apiVersion": rev.APIVersion, "kind": "ConversionReview", "response": resp}
		switch mode {
		case "reviewkind":
			out["kind"] = "Other"
		case "noresponse":
			delete(out, "response")
		case "beta":
			out["apiVersion"] = "apiextensions.k8s.io/v1beta1"
		case "nokind":
			delete(out, "kind")
			delete(out, "apiVersion")
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(out)
	})
}

// hookDefinition is the definition of testdata/conversion-webhook.json's
// mode: versions v1 and v2 (storage), converted by the webhook at url.
func hookDefinition(t testing.TB, mode, url string, caBundle []byte) *CustomResourceDefinition {
	g := mode + ".hook.apisem.dev"
	schema := `{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"x":{"type":"string"}}}}}}`
	webhook, _ := json.Marshal(map[string]any{"conversionReviewVersions": []string{"v1"},
		"clientConfig": map[string]any{"url": url, "caBundle": caBundle}})
	var d CustomResourceDefinition
	err := json.Unmarshal([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"hooks.`+g+`"},
		"spec":{"group":"`+g+`","scope":"Namespaced","names":{"kind":"Hook","listKind":"HookList","plural":"hooks","singular":"hook"},
		"conversion":{"strategy":"Webhook","webhook":`+string(webhook)+`},
		"versions":[{"name":"v1","served":true,"storage":false,"schema":`+schema+`},{"name":"v2","served":true,"storage":true,"schema":`+schema+`}]}}`), &d)
	if err != nil {
		t.Fatal(err)
	}
	return &d
}

// TestConversionWebhook replays requests to definitions converted by a
// webhook that converts, or fails in one way or another, and checks the
// answers against kube-apiserver 1.37's to the same requests
// (testdata/conversion-webhook.json): a write through a version other
// than the storage version is converted before it is stored (its failure
// a 500 without reason, `conversion webhook for <group>/v1, Kind=Hook
// failed: ...`), a read converted back (its failure the 500 of an object
// the storage cannot decode). The webhook is a real HTTPS server on
// loopback, verified by its certificate as caBundle; the first request
// of each mode is the one the cluster sent (the ConversionReview).
func TestConversionWebhook(t *testing.T) {
	var rec struct {
		Steps  []recordedStep
		Review any
	}
	b, err := os.ReadFile("testdata/conversion-webhook.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	reviews := make(chan []byte, 1)
	hook := httptest.NewTLSServer(conversionWebhook(t, reviews))
	t.Cleanup(hook.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	// A port where nothing listens, for mode down.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "https://" + l.Addr().String() + "/down"
	l.Close()
	urls := strings.NewReplacer("https://127.0.0.1:18443", hook.URL, "127.0.0.1:18444", l.Addr().String())
	revision := regexp.MustCompile(`revision=[0-9]+`)
	uid := regexp.MustCompile(`expected response\.uid=\\?"[0-9a-f-]{36}\\?"`)
	norm := func(s recordedStep) string {
		var j strings.Builder
		enc := json.NewEncoder(&j)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", " ")
		enc.Encode(s)
		out := revision.ReplaceAllString(urls.Replace(j.String()), "revision=N")
		return uid.ReplaceAllString(out, `expected response.uid=\"<uid>\"`)
	}
	_, c, url := newServer(t)
	installed := map[string]bool{}
	for _, s := range rec.Steps {
		t.Run(s.Mode+"/"+s.Name, func(t *testing.T) {
			if !installed[s.Mode] {
				installed[s.Mode] = true
				u := hook.URL + "/" + s.Mode
				if s.Mode == "down" {
					u = downURL
				}
				if err := c.Install(context.Background(), hookDefinition(t, s.Mode, u, ca)); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(norm(s), norm(s.answer(t, url, "labels", "generation"))); diff != "" {
				t.Errorf("answer differs from kube-apiserver's (-cluster +here):\n%s", diff)
			}
		})
	}
	var review any
	select {
	case b := <-reviews:
		if err := json.Unmarshal(b, &review); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("the webhook was not called")
	}
	// The object of a create has no uid nor creationTimestamp yet here:
	// the store gives them (see the package doc).
	md := rec.Review.(map[string]any)["request"].(map[string]any)["objects"].([]any)[0].(map[string]any)["metadata"].(map[string]any)
	delete(md, "uid")
	delete(md, "creationTimestamp")
	if diff := cmp.Diff(shape(rec.Review), shape(review)); diff != "" {
		t.Errorf("the review differs from the cluster's (-cluster +here):\n%s", diff)
	}
}

// shape is v with its strings other than kinds and apiVersions replaced by
// "string": the form of a review, whatever its uids, times and names.
func shape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			if s, ok := e.(string); ok && (k == "kind" || k == "apiVersion" || k == "desiredAPIVersion" || k == "fieldsType") {
				out[k] = strings.Split(s, ".")[0] // the kind, or the first label of the group
				continue
			}
			out[k] = shape(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = shape(e)
		}
		return out
	case string:
		return "string"
	}
	return v
}

// BenchmarkConvert measures the read of a stored object through another
// version than the storage version (server.Resource.Read), once per
// stored version and version read: with the None strategy where the
// schemas agree (nothing to do: the stored object itself), where they
// differ (a copy, pruned), and through a conversion webhook on loopback
// HTTPS (a review's round trip); and the write's conversion to the
// storage version with the None strategy.
func BenchmarkConvert(b *testing.B) {
	var rec struct {
		Definition *CustomResourceDefinition `json:"definition"`
	}
	raw, err := os.ReadFile("testdata/storage-version-pruning.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		b.Fatal(err)
	}
	differ := rec.Definition
	same := differ.DeepCopy()
	same.Spec.Versions[0].Schema = same.Spec.Versions[1].Schema
	hook := httptest.NewUnstartedServer(&renamingWebhook{})
	cert, ca := serviceCert(b, "conv.webhooks.svc")
	hook.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	hook.StartTLS()
	b.Cleanup(hook.Close)
	webhooked := differ.DeepCopy()
	cfg, _ := json.Marshal(map[string]any{"conversionReviewVersions": []string{"v1"},
		"clientConfig": map[string]any{"service": map[string]any{"namespace": "webhooks", "name": "conv"}, "caBundle": ca}})
	webhooked.Spec.Conversion = &CustomResourceConversion{Strategy: "Webhook", Webhook: cfg}
	resolve := func(string, string, int32) (*url.URL, error) { return url.Parse(hook.URL) }
	stored := unstructured(b, `{"metadata":{"name":"a","namespace":"default","uid":"u1"},"spec":{"shared":"s","defV2":"two","onlyV2":"y"}}`)
	for _, bc := range []struct {
		name string
		def  *CustomResourceDefinition
	}{{"none/same schemas", same}, {"none/other schema", differ}, {"webhook", webhooked}} {
		b.Run("read/"+bc.name, func(b *testing.B) {
			read := newStorage(bc.def, resolve).read("v1")
			b.ReportAllocs()
			for b.Loop() {
				if _, err := read(stored); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("write/none/other schema", func(b *testing.B) {
		to := newStorage(differ, nil).toStorage("v1")
		written := unstructured(b, `{"metadata":{"name":"a","namespace":"default"},"spec":{"shared":"s","onlyV1":"x","needV1":"n","defV1":"one"}}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := to(context.Background(), written); err != nil {
				b.Fatal(err)
			}
		}
	})
}
