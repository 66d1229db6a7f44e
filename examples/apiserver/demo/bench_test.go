package demo

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkNew is the start-up time of an empty server: New, then
// Shutdown (the goal is well under 10 ms).
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		s, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Shutdown(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet is a GET of one ConfigMap through the handler, in JSON.
func BenchmarkGet(b *testing.B) {
	s, base := newTestServer(b, Options{})
	seed(b, base, "ns1")
	req := httptest.NewRequest("GET", "/api/v1/namespaces/ns1/configmaps/cm", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkListPage is a page of 500 ConfigMaps from 2,000 in JSON, as
// kubectl's default chunk size asks; items come from the encode-once
// cache after the first request.
func BenchmarkListPage(b *testing.B) {
	for _, accept := range []string{"application/json", "application/vnd.kubernetes.protobuf",
		"application/json;as=Table;v=v1;g=meta.k8s.io"} {
		b.Run(strings.SplitN(accept, "/", 2)[1], func(b *testing.B) {
			s, base := newTestServer(b, Options{})
			must(b, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
			for i := range 2000 {
				name := "cm-" + strings.Repeat("0", 4-len(itoa(i))) + itoa(i)
				must(b, 201, base, "POST", "/api/v1/namespaces/ns1/configmaps", `{"metadata":{"name":"`+name+`"},"data":{"k":"v"}}`)
			}
			req := httptest.NewRequest("GET", "/api/v1/namespaces/ns1/configmaps?limit=500", nil)
			req.Header.Set("Accept", accept)
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				s.ServeHTTP(w, req.WithContext(context.Background()))
				if w.Code != 200 {
					b.Fatal(w.Code, w.Body.String())
				}
			}
		})
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
