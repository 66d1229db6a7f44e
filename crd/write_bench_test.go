package crd

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkCustomWrite measures the writes of a custom resource, in
// process: a create (POST), a merge patch and a server-side apply of the
// object, and a merge patch of its status. Each write decodes, prunes,
// defaults and validates the object with its schema and encodes it once.
func BenchmarkCustomWrite(b *testing.B) {
	s, c, url := newServer(b)
	do(b, "POST", url+crdsURL, widgetCRD(b), 201)
	waitFor(b, s, "established", func() bool {
		d, err := c.WaitEstablished(b.Context(), "widgets.example.com")
		return err == nil && d.IsEstablished()
	})
	do(b, "POST", url+widgetsURL, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"}}`, 201)
	serve := func(b *testing.B, code int, method, path, ctype, body string) {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", ctype)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != code {
			b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
		}
	}
	created := 0 // across the runs of "create", which -count repeats
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			created++
			serve(b, 201, "POST", widgetsURL, "application/json", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"c-`+
				strconv.Itoa(created)+`","labels":{"app":"a1"}},"spec":{"color":"red","name":"abc","tags":["a","b"],"labels":{"a":"b"}}}`)
		}
	})
	b.Run("merge-patch", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			serve(b, 200, "PATCH", widgetsURL+"/w", "application/merge-patch+json", `{"spec":{"replicas":`+strconv.Itoa(i%10)+`}}`)
		}
	})
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			serve(b, 200, "PATCH", widgetsURL+"/w?fieldManager=a&force=true", "application/apply-patch+yaml",
				"apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {color: red, replicas: "+strconv.Itoa(i%10)+"}\n")
		}
	})
	b.Run("status", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			serve(b, 200, "PATCH", widgetsURL+"/w/status", "application/merge-patch+json", `{"status":{"replicas":`+strconv.Itoa(i%10)+`}}`)
		}
	})
}
