package server_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/metrics"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// eventSizes records the sizes a server reports for watch events.
type eventSizes struct {
	mu    sync.Mutex
	sizes []int
}

func (*eventSizes) Request(metrics.Request)          {}
func (*eventSizes) LongRunning(metrics.Request, int) {}
func (e *eventSizes) WatchEvent(_, _, _ string, size int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.sizes = append(e.sizes, size)
}

// Watchers of a built-in kind in JSON and in protobuf, which write frames
// made once per event and media type, each carry exactly the framing of
// Kubernetes' watch handler around the object a GET returns, and the
// apiserver_watch_events_sizes observation is the object's size, not the
// frame's, as Kubernetes measures it.
func TestWatchSharedFrames(t *testing.T) {
	spy := &eventSizes{}
	_, base := servertest.New(t, server.Options{Resources: api.Resources(), Hooks: server.HookOptions{Metrics: spy}})
	coll := base + "/api/v1/namespaces/ns/configmaps"
	const protobuf = "application/vnd.kubernetes.protobuf"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(accept string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, "GET", coll+"?watch=1", nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("watch %s: %v %v", accept, resp, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	jsons := []*http.Response{open("application/json"), open("application/json")}
	protos := []*http.Response{open(protobuf + ";stream=watch"), open(protobuf + ";stream=watch")}

	resp, err := http.Post(coll, "application/json", strings.NewReader(`{"metadata":{"name":"a"},"data":{"k":"v"}}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create: %v %v", resp, err)
	}
	resp.Body.Close()
	get := func(accept string) []byte {
		req, _ := http.NewRequest("GET", coll+"/a", nil)
		req.Header.Set("Accept", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return bytes.TrimRight(b, "\n")
	}
	objJSON, objProto := get("application/json"), get(protobuf)

	wantLine := append(append([]byte(`{"type":"ADDED","object":`), objJSON...), "}\n"...)
	for i, r := range jsons {
		line, err := bufio.NewReader(r.Body).ReadBytes('\n')
		if err != nil || !bytes.Equal(line, wantLine) {
			t.Errorf("JSON watcher %d read %q, %v; want %q", i, line, err, wantLine)
		}
	}
	wantFrame := envelope.AppendFrame(nil, envelope.AppendWatchEvent(nil, "ADDED", objProto))
	for i, r := range protos {
		frame := make([]byte, len(wantFrame))
		if _, err := io.ReadFull(r.Body, frame); err != nil || !bytes.Equal(frame, wantFrame) {
			t.Errorf("protobuf watcher %d read %x, %v; want %x", i, frame, err, wantFrame)
		}
	}
	spy.mu.Lock()
	got := slices.Sorted(slices.Values(spy.sizes))
	spy.mu.Unlock()
	want := slices.Sorted(slices.Values([]int{len(objJSON), len(objJSON), len(objProto), len(objProto)}))
	if !slices.Equal(got, want) {
		t.Errorf("watch event sizes %v; want the objects' %v", got, want)
	}
}
