package server_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/server"
)

// Resources come and go while the server runs, as a
// CustomResourceDefinition's do: paths, discovery and watches follow.
func TestAddAndRemoveResource(t *testing.T) {
	s, base := newServer(t, server.Options{})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	disco := func() string {
		var l struct {
			Resources []struct {
				Name string `json:"name"`
			} `json:"resources"`
		}
		// A group not served is Go's plain-text 404, as on a cluster.
		if code := send(t, "GET", base+"/apis/demo.io/v1", "", "", nil); code != 200 {
			return ""
		}
		send(t, "GET", base+"/apis/demo.io/v1", "", "", &l)
		var names []string
		for _, r := range l.Resources {
			names = append(names, r.Name)
		}
		return strings.Join(names, ",")
	}
	if code := send(t, "GET", url, "", "", nil); code != 404 {
		t.Fatalf("list before AddResource: %d; want 404", code)
	}
	if err := s.AddResource(gizmos); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(gizmos); err == nil {
		t.Error("AddResource of a served resource succeeded")
	}
	if got := disco(); got != "gizmos" {
		t.Errorf("discovery after AddResource: %q; want gizmos", got)
	}
	if rs := s.Resources(); !slices.Contains(rs, gizmos) {
		t.Errorf("Resources() after AddResource lacks gizmos")
	}
	if code := send(t, "POST", url, "application/json", `{"metadata":{"name":"g"}}`, nil); code != 201 {
		t.Fatalf("create: %d", code)
	}

	// A watch of the resource ends when it goes.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+"?watch=1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ended <- err
	}()
	if err := s.RemoveResource(gizmos); err != nil {
		t.Fatal(err)
	}
	if err := <-ended; err != nil {
		t.Errorf("watch ended with %v; want its normal end", err)
	}
	if slices.Contains(s.Resources(), gizmos) {
		t.Errorf("Resources() after RemoveResource has gizmos")
	}
	if err := s.RemoveResource(gizmos); err == nil {
		t.Error("RemoveResource of a resource not served succeeded")
	}
	if code := send(t, "GET", url+"/g", "", "", nil); code != 404 {
		t.Errorf("get after RemoveResource: %d; want 404", code)
	}
	if got := disco(); got != "" {
		t.Errorf("discovery after RemoveResource: %q; want no group version", got)
	}
	// Served again, the stored objects are there again.
	if err := s.AddResource(gizmos); err != nil {
		t.Fatal(err)
	}
	if code := send(t, "GET", url+"/g", "", "", nil); code != 200 {
		t.Errorf("get after a second AddResource: %d; want 200", code)
	}
}

// Requests racing AddResource and RemoveResource see one registry or the
// other, never a torn one (run with -race).
func TestResourcesChangeUnderLoad(t *testing.T) {
	s, base := newServer(t, server.Options{})
	url := base + "/apis/demo.io/v1/namespaces/ns/gizmos"
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := http.Get(url)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 && resp.StatusCode != 404 {
					t.Errorf("list during changes: %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	for range 50 {
		if err := s.AddResource(gizmos); err != nil {
			t.Fatal(err)
		}
		if err := s.RemoveResource(gizmos); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

func TestAddResourceAfterShutdown(t *testing.T) {
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.AddResource(gizmos); err == nil {
		t.Error("AddResource after Shutdown succeeded")
	}
}
