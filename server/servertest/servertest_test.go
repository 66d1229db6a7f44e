package servertest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// recorder is a Server that notes its Shutdown.
type recorder struct {
	http.Handler
	shut bool
}

func (r *recorder) Shutdown(context.Context) error { r.shut = true; return nil }

// The server is shut down, and its listener closed, when the test ends.
func TestCleanup(t *testing.T) {
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Handler: s}
	var url string
	t.Run("inner", func(t *testing.T) {
		called := false
		url = servertest.StartHandler(t, rec, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			called = true
			rec.ServeHTTP(w, r)
		}))
		resp, err := http.Get(url + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || !called {
			t.Errorf("GET /healthz: %d, through the test's handler: %v", resp.StatusCode, called)
		}
	})
	if !rec.shut {
		t.Error("the server was not shut down when the test ended")
	}
	if resp, err := http.Get(url + "/healthz"); err == nil {
		resp.Body.Close()
		t.Error("the listener still answers after the test ended")
	}
	s.Shutdown(context.Background())
}

// Do returns any status code with the whole body, and sends the headers.
func TestDo(t *testing.T) {
	_, url := servertest.New(t, server.Options{})
	r := servertest.Do(t, "GET", url+"/api/v1/configmaps", "", "Accept", "application/yaml")
	if r.Code != 404 || r.Header.Get("Content-Type") != "application/yaml" || r.Body == "" {
		t.Errorf("Do = %d %q %q; want 404 in YAML with a body", r.Code, r.Header.Get("Content-Type"), r.Body)
	}
}
