package crd

import (
	"net/http/httptest"
	"testing"
)

// BenchmarkCustomGet is a GET of one custom resource in JSON, in
// process: the routing of a custom resource's request (routeCustom) and
// the read behind it.
func BenchmarkCustomGet(b *testing.B) {
	s, c, url := newServer(b)
	do(b, "POST", url+crdsURL, widgetCRD(b), 201)
	waitFor(b, s, "established", func() bool {
		d, err := c.WaitEstablished(b.Context(), "widgets.example.com")
		return err == nil && d.IsEstablished()
	})
	do(b, "POST", url+widgetsURL, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"}}`, 201)
	r := httptest.NewRequest("GET", widgetsURL+"/w", nil)
	r.Header.Set("Accept", "application/json")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatalf("GET: %d %s", w.Code, w.Body)
		}
	}
}
