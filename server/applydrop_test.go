package server

import (
	"encoding/json"
	"testing"
)

// dropUnkept keeps of an applied configuration what its Go type kept,
// and the zero values omitempty leaves out.
func TestDropUnkept(t *testing.T) {
	for _, tt := range []struct{ config, kept, want string }{
		{`{"a":1,"extra":1}`, `{"a":1}`, `{"a":1}`},
		{`{"spec":{"a":1,"extra":{"b":2}}}`, `{"spec":{"a":1}}`, `{"spec":{"a":1}}`},
		{`{"a":0,"b":"","c":false,"d":null,"e":{},"f":[]}`, `{}`, `{"a":0,"b":"","c":false,"d":null,"e":{},"f":[]}`},
		{`{"a":1.5,"b":"x","c":true,"e":{"x":0},"f":[1]}`, `{}`, `{}`},
		{`{"items":[{"name":"a","extra":1},{"name":"b"}]}`, `{"items":[{"name":"a"},{"name":"b"}]}`, `{"items":[{"name":"a"},{"name":"b"}]}`},
		// Lists of other lengths, and values of another shape, are left.
		{`{"items":[{"name":"a","extra":1}]}`, `{"items":[]}`, `{"items":[{"extra":1,"name":"a"}]}`},
		{`{"a":{"extra":1}}`, `{"a":"x"}`, `{"a":{"extra":1}}`},
	} {
		config, kept := decodeJSONMap(t, tt.config), decodeJSONMap(t, tt.kept)
		dropUnkept(config, kept)
		if got, _ := json.Marshal(config); string(got) != tt.want {
			t.Errorf("dropUnkept(%s, %s) = %s; want %s", tt.config, tt.kept, got, tt.want)
		}
	}
}

func decodeJSONMap(t *testing.T, s string) map[string]any {
	t.Helper()
	m, err := decodeObjectMap([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
