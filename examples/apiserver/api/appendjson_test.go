package api

import (
	"encoding/json"
	"testing"

	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/meta"
)

// checkAppendJSON fails unless c.AppendJSON writes what json.Marshal does.
func checkAppendJSON(t *testing.T, c *ConfigMap) {
	t.Helper()
	want, werr := json.Marshal(c)
	got, err := c.AppendJSON([]byte("prefix"))
	if (err != nil) != (werr != nil) || err == nil && string(got) != "prefix"+string(want) {
		t.Fatalf("AppendJSON(%+v) = %s, %v\njson.Marshal writes  %s, %v", c, got, err, want, werr)
	}
}

// ConfigMap's AppendJSON is json.Marshal's encoding, byte for byte.
func TestConfigMapAppendJSON(t *testing.T) {
	yes, no := true, false
	for _, c := range []*ConfigMap{
		{},
		{TypeMeta: meta.TypeMeta{Kind: "ConfigMap"}},
		{TypeMeta: meta.TypeMeta{APIVersion: "v1"}, Immutable: &no},
		{TypeMeta: meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, ObjectMeta: fullMeta(), Immutable: &yes,
			Data:       map[string]string{"b": "<&>\u2028\xff", "a": "", "\"q\"": "\n\t"},
			BinaryData: map[string][]byte{"z": nil, "y": {}, "x": {0, 1, 2, 250, 251, 252, 253}}},
		{Data: map[string]string{}, BinaryData: map[string][]byte{}},
	} {
		checkAppendJSON(t, c)
	}
}

// FuzzConfigMapAppendJSON checks AppendJSON against json.Marshal on the
// ConfigMaps arbitrary bodies decode into.
func FuzzConfigMapAppendJSON(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(tc.body))
	}
	f.Add([]byte(`{"binaryData":{"a":"AAE=","b":null,"c":""},"metadata":{"managedFields":[{"manager":"m","fieldsV1":{"f:data":{}}}],"creationTimestamp":"2020-01-01T00:00:00Z"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c ConfigMap
		if kjson.UnmarshalCaseSensitivePreserveInts(b, &c) != nil {
			return
		}
		checkAppendJSON(t, &c)
	})
}
