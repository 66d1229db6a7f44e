package connlimit_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/apisem/apisem/server/connlimit"
)

// A server capped at one connection, with a reserve for health checks:
// while one client holds the connection, another is answered its health
// checks, and a plain 429 for anything else.
func ExampleLimits_Wrap() {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	hs := &http.Server{Handler: mux}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	l = connlimit.Limits{Max: 1, Reserve: 2}.Wrap(l, hs)
	go hs.Serve(l)
	defer hs.Close()

	get := func(who string, c *http.Client, path string) {
		resp, err := c.Get("http://" + l.Addr().String() + path)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Printf("%s GET %s: %d %s\n", who, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	first := &http.Client{Transport: &http.Transport{}} // keeps its connection open
	second := &http.Client{Transport: &http.Transport{}}
	get("first", first, "/")
	get("second", second, "/")
	get("second", second, "/healthz")
	// Output:
	// first GET /: 200 hello
	// second GET /: 429 Too many requests, please try again later.
	// second GET /healthz: 200 ok
}
