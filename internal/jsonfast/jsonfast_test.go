package jsonfast

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/meta"
)

// checkMeta decodes b as metadata and, when the Decoder takes it, checks
// the result against sigs.k8s.io/json's strict decoder; it reports
// whether the Decoder took b.
func checkMeta(t *testing.T, b []byte) bool {
	t.Helper()
	d := New(b)
	var got meta.ObjectMeta
	if !d.ObjectMeta(&got) || !d.End() {
		return false
	}
	var want meta.ObjectMeta
	strict, err := kjson.UnmarshalStrict(b, &want)
	if err != nil || len(strict) > 0 {
		t.Fatalf("%q: taken, but the strict decoder reports %v, %v", b, err, strict)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: decoded otherwise (-strict +fast):\n%s", b, diff)
	}
	return true
}

var metaCases = []struct {
	body  string
	taken bool
}{
	{`{"name":"a","generateName":"g","namespace":"n","uid":"u","resourceVersion":"1","labels":{"a":"b"},"annotations":{}}`, true},
	{" {\t}\r\n", true},
	{`{"name":"a","name":"a"}`, false},
	{`{"labels":{"a":"b","a":"b"}}`, false},
	{`{"labels":null}`, false},
	{`{"generation":1}`, false},
	{`{"selfLink":"x"}`, false},
	{`{"name":"\u0041"}`, false},
	{`{"name":"a"`, false},
	{`{"labels":{"a":{}}}`, false},
}

// The Decoder takes metadata of the common members as the strict decoder
// decodes it, and declines the rest.
func TestObjectMeta(t *testing.T) {
	for _, tc := range metaCases {
		if got := checkMeta(t, []byte(tc.body)); got != tc.taken {
			t.Errorf("%q: taken %v; want %v", tc.body, got, tc.taken)
		}
	}
	deep := `{"labels":` // nested past maxDepth: declined, no panic
	for range maxDepth + 2 {
		deep += `{"a":`
	}
	if checkMeta(t, []byte(deep)) {
		t.Error("took a body nested past maxDepth")
	}
}

// FuzzObjectMeta checks on arbitrary bodies that what the Decoder takes
// as metadata, the strict decoder decodes to the same ObjectMeta with
// nothing to report.
func FuzzObjectMeta(f *testing.F) {
	for _, tc := range metaCases {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkMeta(t, b)
	})
}
