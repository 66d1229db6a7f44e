package crd

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/server"
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
	c := Start(s, defs)
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		c.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		hs.Close()
	})
	return s, c, hs.URL
}

type reply struct {
	code   int
	header http.Header
	body   string
}

// do sends one request with a JSON body (or none) and checks the code.
func do(t testing.TB, method, url, body string, want int, hdr ...string) reply {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
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
		t.Fatalf("%s %s = %d %s; want %d", method, url, resp.StatusCode, b, want)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

// widgetCRD is testdata/widgets.yaml's definition as JSON.
func widgetCRD(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/widgets.yaml")
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

func TestSmoke(t *testing.T) {
	_, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	d, err := c.WaitEstablished(context.Background(), "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", d.Status)
	r := do(t, "POST", url+"/apis/example.com/v1/namespaces/default/widgets", `{"metadata":{"name":"w1"},"spec":{"color":"red","foo":1}}`, 201)
	t.Log(r.body, r.header["Warning"])
	r = do(t, "POST", url+"/apis/example.com/v1/namespaces/default/widgets", `{"metadata":{"name":"w2"},"spec":{"color":"pink","replicas":11,"name":"ABC"}}`, 422)
	t.Log(r.body)
	r = do(t, "GET", url+"/apis/example.com/v1/namespaces/default/widgets", "", 200, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	t.Log(r.body)
	do(t, "DELETE", url+crdsURL+"/widgets.example.com", "", 200)
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
