package jsonvalue

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// checkAppendJSON fails t unless AppendJSON writes v as json.Marshal does
// and fails where it fails, with the same message.
func checkAppendJSON(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := AppendJSON([]byte("prefix"), v)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("AppendJSON(%#v) error %v, json.Marshal's %v", v, err, wantErr)
	}
	if err != nil {
		return
	}
	if !bytes.HasPrefix(got, []byte("prefix")) || !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("AppendJSON(%#v)\n got %s\nwant prefix%s", v, got, want)
	}
}

type point struct {
	X int `json:"x"`
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	deep := any("leaf")
	for range 1500 {
		deep = []any{map[string]any{"d": deep}}
	}
	for _, v := range []any{
		nil,
		"",
		"<a href=\"x\">&amp;</a>\u2028\u2029\x00\x1f\t\n\\",
		"\xff\xfe invalid \xc3",
		"héllo wörld ✓ 😀",
		true, false,
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 1.5, -2.25, 1e20, 1e21, 123456789e13, 1e-6, 1e-7, 9.99e-7,
		-1e-7, 5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-100, 1.2345e-10, 3.0, 0.1,
		math.NaN(), math.Inf(1), math.Inf(-1),
		map[string]any{"x": []any{1.0, math.Inf(-1)}},
		json.Number(""), json.Number("12"), json.Number("-0.5e+10"), json.Number("1E2"),
		json.Number("01"), json.Number("1."), json.Number("-"), json.Number(".5"), json.Number("1e"), json.Number("abc"),
		map[string]any(nil), map[string]any{}, []any(nil), []any{},
		map[string]any{"b": int64(1), "a": "x", "A": nil, "": []any{}, "é": true, "<": "&", "aa": map[string]any{"z": 1.0, "y": []any{nil, false}}},
		[]any{map[string]any{}, []any{[]any{}}, "s", int64(3), 3.5},
		// Types no decoder makes: left to encoding/json.
		42, int32(-7), float32(1e-7), uint8(3), point{X: 1}, &point{X: 2}, []string{"a"}, map[string]string{"b": "c"},
		map[string]any{"p": point{X: 3}, "n": []int{1}},
		json.RawMessage(`{ "b" : 1 , "a":2 }`), json.RawMessage(`{`),
		func() {}, map[string]any{"f": make(chan int)},
		cyclic,
		deep,
	} {
		checkAppendJSON(t, v)
	}
}

func TestAppendJSONManyKeys(t *testing.T) {
	m := map[string]any{}
	for i := range 100 {
		m[strings.Repeat("k", i%7)+string(rune('a'+i%26))+string(rune('A'+i/26))] = int64(i)
	}
	checkAppendJSON(t, m)
}

// FuzzAppendJSON decodes arbitrary JSON as Kubernetes does (integers as
// int64), as encoding/json does (float64) and with UseNumber
// (json.Number), and compares AppendJSON's encoding of each with
// json.Marshal's.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"x/v1","kind":"K","spec":{"a":[1,2.5,-0,1e-7,1e21,true,null,"<&>"],"b":{}}}`,
		`[1e400]`, `-1.0e-300`, `"\u2028\ud800\u00e9"`, `{"z":1,"a":{"y":[[]],"b":"\t"}}`,
		`123456789012345678901234567890`, `0.000001`, `9223372036854775807`, `-9223372036854775809`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var k any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &k); err == nil {
			checkAppendJSON(t, k)
		}
		var plain any
		if err := json.Unmarshal(data, &plain); err == nil {
			checkAppendJSON(t, plain)
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var num any
		if err := d.Decode(&num); err == nil {
			checkAppendJSON(t, num)
		}
	})
}

func BenchmarkAppendJSON(b *testing.B) {
	var v map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(`{"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","tier":"front"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"}}}]}},"ratio":0.25},"status":{"ready":true}}`), &v); err != nil {
		b.Fatal(err)
	}
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = AppendJSON(buf[:0], v)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(v)
		}
	})
}
