package api

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
)

// checkFast decodes b with ConfigMap's fast decoder and, when it takes b,
// checks the result against sigs.k8s.io/json's strict decoder, which must
// find nothing strict to report; it reports whether the fast one took b.
func checkFast(t *testing.T, b []byte) bool {
	t.Helper()
	var fast ConfigMap
	if !fast.UnmarshalJSONFast(b) {
		if diff := cmp.Diff(ConfigMap{}, fast); diff != "" {
			t.Fatalf("%q: declined, but changed the ConfigMap (-want +got):\n%s", b, diff)
		}
		return false
	}
	var want ConfigMap
	strict, err := kjson.UnmarshalStrict(b, &want)
	if err != nil || len(strict) > 0 {
		t.Fatalf("%q: taken, but the strict decoder reports %v, %v", b, err, strict)
	}
	if diff := cmp.Diff(want, fast); diff != "" {
		t.Fatalf("%q: the fast decoder's ConfigMap differs (-strict +fast):\n%s", b, diff)
	}
	return true
}

var fastCases = []struct {
	body  string
	taken bool
}{
	{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-000001","labels":{"app":"a1"}},"data":{"k":"` + strings.Repeat("x", 256) + `"}}`, true},
	{` { "metadata" : { "name" : "a" , "generateName":"g-","namespace":"n","uid":"u","resourceVersion":"1","annotations":{"a":"","b":"é"}} , "immutable" : false , "data":{}}` + "\n", true},
	{"{\"metadata\":{},\"immutable\":true,\"data\":{\"\":\"x\",\"é\":\"\u2028 raw, \uFFFD\"}}", true},
	{`{}`, true},
	{`{"metadata":{"name":"a\"b"}}`, false}, // an escape
	{`{"metadata":{"name":"a"},"metadata":{"name":"b"}}`, false}, // duplicate
	{`{"metadata":{"name":"a","name":"b"}}`, false},
	{`{"data":{"k":"a","k":"b"}}`, false},
	{`{"metadata":{"labels":{},"labels":{}}}`, false},
	{`{"kind":"ConfigMap","kind":"ConfigMap"}`, false},
	{`{"immutable":true,"immutable":true}`, false},
	{`{"Metadata":{}}`, false}, // case
	{`{"metadata":{"Name":"a"}}`, false},
	{`{"binaryData":{"b":"AQ=="}}`, false}, // not taken
	{`{"metadata":{"generation":1}}`, false},
	{`{"metadata":{"finalizers":["f"]}}`, false},
	{`{"metadata":null}`, false},
	{`{"data":null}`, false},
	{`{"immutable":null}`, false},
	{`{"data":{"k":1}}`, false}, // not a string
	{`{"metadata":{"name":1}}`, false},
	{"{\"data\":{\"k\":\"\xff\"}}", false}, // invalid UTF-8
	{"{\"data\":{\"k\":\"\x01\"}}", false},
	{`{"data":{"k":"v"}} x`, false},
	{`{"data":{"k":"v"},}`, false},
	{`{"data":{"k" "v"}}`, false},
	{`{"data":{"k":"v"}`, false},
	{`{"immutable":tru}`, false},
	{`[]`, false},
	{``, false},
	{`{"spec":{}}`, false}, // unknown
}

// ConfigMap's fast decoder takes the plain bodies of common creates and
// decodes them as the strict decoder does; it declines everything else:
// escapes, duplicates, nulls, unknown members, members it leaves to the
// strict decoder, and what is not JSON.
func TestConfigMapFastJSON(t *testing.T) {
	for _, tc := range fastCases {
		if got := checkFast(t, []byte(tc.body)); got != tc.taken {
			t.Errorf("%q: taken %v; want %v", tc.body, got, tc.taken)
		}
	}
	// A ConfigMap that is not the zero value is declined: the strict
	// decoder would merge into it.
	c := ConfigMap{ObjectMeta: meta.ObjectMeta{Finalizers: []string{"f"}}}
	if c.UnmarshalJSONFast([]byte(`{"data":{}}`)) || c.Data != nil {
		t.Error("UnmarshalJSONFast decoded into a ConfigMap that is not the zero value")
	}
	// Decode takes the fast path; a body it declines decodes as before.
	for _, body := range []string{fastCases[0].body, `{"metadata":{"name":"a\"b","name":"c"},"data":{"k":"v"}}`} {
		var got, want ConfigMap
		gw, gerr := negotiation.Decode([]byte(body), negotiation.JSON, &got, negotiation.DecodeOptions{Kind: "ConfigMap", Version: "v1", FieldValidation: negotiation.FieldValidationWarn})
		strict, werr := kjson.UnmarshalStrict([]byte(body), &want)
		if gerr != nil || werr != nil || len(gw) != len(strict) || !cmp.Equal(got, want) {
			t.Errorf("Decode(%s) = %+v, %v, %v; want %+v, %v", body, got, gw, gerr, want, strict)
		}
	}
}

// FuzzConfigMapFastJSON checks on arbitrary bodies that what ConfigMap's
// fast decoder takes, the strict decoder decodes to the same ConfigMap
// with nothing to report.
func FuzzConfigMapFastJSON(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkFast(t, b)
	})
}
