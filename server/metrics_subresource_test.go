package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
)

// Requests to every kind of subresource a resource serves are counted
// with the resource's labels, as kube-apiserver counts a Pod's log, a
// proxy's path or a Namespace's finalize; a subresource it does not
// serve is not counted at all (its 404 is the router's).
func TestMetricsOfSubresources(t *testing.T) {
	res := *gizmos
	res.UpdateSubresources = []string{"finalize"}
	answer := func(w http.ResponseWriter, _ *http.Request, _ server.SubresourceRequest) error {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	res.Subresources = []server.Subresource{
		{Name: "describe", Verbs: []string{"get"}, Serve: answer},
		{Name: "proxy", Verbs: []string{"get"}, Path: true, Serve: answer},
	}
	spy := &observed{}
	s, err := server.New(server.Options{Resources: []*server.Resource{&res},
		Hooks: server.HookOptions{Metrics: spy}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ts := httptest.NewServer(s)
	defer ts.Close()
	const base = "/apis/demo.io/v1/namespaces/default/gizmos/g/"
	for _, tt := range []struct {
		method, path string
		want         string // the subresource label; "-" for not counted
	}{
		{"GET", base + "describe", "describe"},
		{"GET", base + "proxy/a/b", "proxy"},
		{"PUT", base + "finalize", "finalize"},
		{"GET", base + "nope", "-"},
		{"GET", base + "describe/more", "-"},
	} {
		spy.reset()
		req, _ := http.NewRequest(tt.method, ts.URL+tt.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := spy.subresources()
		switch {
		case tt.want == "-" && len(got) != 0:
			t.Errorf("%s %s: counted as %q; want not counted", tt.method, tt.path, got)
		case tt.want != "-" && !slices.Equal(got, []string{"gizmos/" + tt.want}):
			t.Errorf("%s %s: counted as %q; want gizmos/%s", tt.method, tt.path, got, tt.want)
		}
	}
}

// observed records the resource and subresource of each request.
type observed struct {
	mu   sync.Mutex
	reqs []metrics.Request
}

func (o *observed) Request(m metrics.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reqs = append(o.reqs, m)
}

func (o *observed) reset() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.reqs = nil
}

func (o *observed) subresources() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, m := range o.reqs {
		out = append(out, m.Resource+"/"+m.Subresource)
	}
	return out
}

func (*observed) LongRunning(metrics.Request, int)       {}
func (*observed) WatchEvent(string, string, string, int) {}
