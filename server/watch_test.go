package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/apisem/apisem/server"
)

// A custom resource's bookmark carries kind, apiVersion and metadata only
// (Kubernetes builds it as an unstructured object), never the zero value
// of the Go type: Gizmo's spec has no omitempty and would read "spec":{}.
func TestCustomResourceBookmark(t *testing.T) {
	_, base := newServer(t, server.Options{Resources: []*server.Resource{gizmos}})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	if code := send(t, "POST", url, "application/json", `{"metadata":{"name":"g"},"spec":{"color":"red"}}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	var events []string
	for len(events) < 2 && lines.Scan() {
		events = append(events, lines.Text())
	}
	if len(events) != 2 {
		t.Fatalf("events %q: %v", events, lines.Err())
	}
	var ev struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal([]byte(events[1]), &ev); err != nil {
		t.Fatal(err)
	}
	var rv struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	json.Unmarshal(ev.Object, &rv)
	want := `{"kind":"Gizmo","apiVersion":"demo.io/v1","metadata":{"resourceVersion":"` + rv.Metadata.ResourceVersion +
		`","annotations":{"k8s.io/initial-events-end":"true"}}}`
	if ev.Type != "BOOKMARK" || string(ev.Object) != want || rv.Metadata.ResourceVersion == "" {
		t.Errorf("second event %s %s; want BOOKMARK %s", ev.Type, ev.Object, want)
	}
}
