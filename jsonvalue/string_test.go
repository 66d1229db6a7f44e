package jsonvalue_test

import (
	"encoding/json"
	"testing"

	"github.com/apisem/apisem/jsonvalue"
)

// AppendString writes what encoding/json writes, escapes and invalid
// UTF-8 included.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "\b\f\n\r\t\x00\x1f", "<a>&amp;", "\u2028\u2029", "é✓", "bad\xffutf8\xc3", "\xe2\x80"} {
		want, _ := json.Marshal(s)
		if got := jsonvalue.AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a<b>\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := jsonvalue.AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
