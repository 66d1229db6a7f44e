package server_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
)

// printMetrics is another metrics system: it prints what the server
// reports.
type printMetrics struct{ mu sync.Mutex }

func (p *printMetrics) Request(m metrics.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Printf("request %s %s/%s %s scope=%q dry_run=%q code=%d\n", m.Verb, m.Group, m.Resource, m.Subresource, m.Scope, m.DryRun, m.Code)
}

func (p *printMetrics) LongRunning(m metrics.Request, delta int) {}

func (p *printMetrics) WatchEvent(group, version, resource string, size int) {}

// A user's metrics system gets each request with kube-apiserver's labels:
// the verb as a cluster reports it (LIST, APPLY), the route's scope, the
// dry_run value.
func ExampleHookOptions_metrics() {
	s, err := server.New(server.Options{Resources: []*server.Resource{gizmos}, Hooks: server.HookOptions{Metrics: &printMetrics{}}})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	do := func(method, path, contentType, body string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
	const gizmosPath = "/apis/demo.io/v1/namespaces/default/gizmos"
	do("POST", gizmosPath+"?dryRun=All", "application/json", `{"metadata":{"name":"g1"}}`)
	do("PATCH", gizmosPath+"/g1?fieldManager=me", "application/apply-patch+yaml", `{"apiVersion":"demo.io/v1","kind":"Gizmo","metadata":{"name":"g1"}}`)
	do("GET", gizmosPath, "", "")
	do("GET", "/apis/demo.io/v1/gizmos", "", "")
	do("GET", gizmosPath+"/nope", "", "")
	do("GET", "/apis/demo.io/v1/namespaces/default/doohickeys", "", "") // not served: not counted
	// Output:
	// request POST demo.io/gizmos  scope="resource" dry_run="All" code=201
	// request APPLY demo.io/gizmos  scope="resource" dry_run="" code=201
	// request LIST demo.io/gizmos  scope="namespace" dry_run="" code=200
	// request LIST demo.io/gizmos  scope="cluster" dry_run="" code=200
	// request GET demo.io/gizmos  scope="resource" dry_run="" code=404
}
