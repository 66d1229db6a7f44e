package server

import (
	"encoding/base64"
	"net/http/httptest"
	"strings"
	"testing"
)

// A continue token that does not decode is named before anything else
// is said of the list: kube-apiserver 1.37.1 decodes it before it refuses
// a resourceVersion beside it, and before a deletecollection deletes
// anything. Its answers to GET (and DELETE)
// /api/v1/namespaces/demo/configmaps?continue=<token>&resourceVersion=5,
// with the token "abc", "!!!!", a token whose start is "../x\x00", and
// its own JSON form with "rv":"x":
func TestRecordedContinueFirst(t *testing.T) {
	s := newTestServer(t, Options{})
	r := httptest.NewRequest("POST", "/apis/test.apisem.dev/v1/namespaces/default/gadgets", strings.NewReader(`{"metadata":{"name":"g1"}}`))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	if s.ServeHTTP(w, r); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	bad := func(detail string) string {
		return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid continue token: continue key is not valid: ` +
			detail + `","reason":"BadRequest","code":400}` + "\n"
	}
	// This package's layout: version 1, no flags, revision 5, start "../x\x00".
	dotdot := base64.RawURLEncoding.EncodeToString([]byte("\x01\x00\x05../x\x00"))
	kubeRV := base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v1","rv":"x","start":"a"}`))
	const gadgets = "/apis/test.apisem.dev/v1/namespaces/default/gadgets"
	for _, tt := range []recorded{
		{method: "GET", path: gadgets + "?continue=abc&resourceVersion=5", code: 400,
			want: bad(`invalid character 'i' looking for beginning of value`)},
		{method: "GET", path: gadgets + "?continue=!!!!&resourceVersion=5", code: 400,
			want: bad(`illegal base64 data at input byte 0`)},
		{method: "GET", path: gadgets + "?continue=" + dotdot + "&resourceVersion=5", code: 400, want: bad(`../x\u0000`)},
		{method: "GET", path: gadgets + "?continue=" + dotdot + "&resourceVersion=0", code: 400, want: bad(`../x\u0000`)},
		{method: "GET", path: gadgets + "?continue=abc&resourceVersion=abc", code: 400,
			want: bad(`invalid character 'i' looking for beginning of value`)},
		{method: "GET", path: gadgets + "?continue=" + kubeRV, code: 400,
			want: bad(`json: cannot unmarshal string into Go struct field continueToken.rv of type int64`)},
		{method: "DELETE", path: gadgets + "?continue=abc&resourceVersion=5", code: 400,
			want: bad(`invalid character 'i' looking for beginning of value`)},
		{method: "DELETE", path: gadgets + "?continue=abc", code: 400,
			want: bad(`invalid character 'i' looking for beginning of value`)},
	} {
		tt.check(t, s)
	}
	if w := get(s, gadgets+"/g1"); w.Code != 200 {
		t.Errorf("after the refused deletecollections, GET g1 = %d %s", w.Code, w.Body)
	}
}
