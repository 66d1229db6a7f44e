package envelope

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

func TestConsumeField(t *testing.T) {
	tests := []struct {
		in   string
		want Field
		n    int
	}{
		{"0801", Field{Num: 1, Type: protowire.VarintType, Uint: 1}, 2},
		{"8a01 02 6869 ff", Field{Num: 17, Type: protowire.BytesType, Bytes: []byte("hi")}, 5},
		{"2d 04030201", Field{Num: 5, Type: protowire.Fixed32Type, Uint: 0x01020304}, 5},
		{"29 0807060504030201", Field{Num: 5, Type: protowire.Fixed64Type, Uint: 0x0102030405060708}, 9},
		{"0b 0801 0c", Field{Num: 1, Type: protowire.StartGroupType, Bytes: mustHex(t, "08010c")}, 4},
	}
	for _, tt := range tests {
		got, n, err := ConsumeField(mustHex(t, tt.in))
		if err != nil || n != tt.n {
			t.Errorf("ConsumeField(%s) = n %d, err %v; want n %d", tt.in, n, err, tt.n)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ConsumeField(%s) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestFieldAccessors(t *testing.T) {
	varint := Field{Num: 3, Type: protowire.VarintType, Uint: math.MaxUint64} // -1
	bytesF := Field{Num: 4, Type: protowire.BytesType, Bytes: []byte("x")}

	if v, err := varint.AsInt64(); v != -1 || err != nil {
		t.Errorf("AsInt64 = %d, %v; want -1", v, err)
	}
	if v, err := varint.AsInt32(); v != -1 || err != nil {
		t.Errorf("AsInt32 = %d, %v; want -1", v, err)
	}
	if v, err := varint.AsBool(); !v || err != nil {
		t.Errorf("AsBool = %v, %v; want true", v, err)
	}
	if v, err := bytesF.AsString(); v != "x" || err != nil {
		t.Errorf("AsString = %q, %v; want x", v, err)
	}
	if v, err := bytesF.AsBytes(); string(v) != "x" || err != nil {
		t.Errorf("AsBytes = %q, %v; want x", v, err)
	}

	wrong := []struct {
		name string
		call func() error
	}{
		{"AsInt64 on bytes", func() error { _, err := bytesF.AsInt64(); return err }},
		{"AsInt32 on bytes", func() error { _, err := bytesF.AsInt32(); return err }},
		{"AsBool on bytes", func() error { _, err := bytesF.AsBool(); return err }},
		{"AsString on varint", func() error { _, err := varint.AsString(); return err }},
		{"AsBytes on varint", func() error { _, err := varint.AsBytes(); return err }},
	}
	for _, w := range wrong {
		if err := w.call(); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v; want ErrMalformed", w.name, err)
		}
	}
}

func TestRangeFields(t *testing.T) {
	var nums []protowire.Number
	err := RangeFields(mustHex(t, "0801 1200 1801"), func(f Field) error {
		nums = append(nums, f.Num)
		return nil
	})
	if err != nil || !cmp.Equal(nums, []protowire.Number{1, 2, 3}) {
		t.Errorf("RangeFields visited %v, %v; want [1 2 3]", nums, err)
	}
	stop := errors.New("stop")
	calls := 0
	err = RangeFields(mustHex(t, "0801 1200"), func(Field) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("RangeFields with an erroring fn: %d calls, %v; want 1, stop", calls, err)
	}
	if err := RangeFields(mustHex(t, "0801 12"), func(Field) error { return nil }); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("RangeFields on truncated input = %v; want io.ErrUnexpectedEOF", err)
	}
}

// AppendMessageFunc must produce minimal length varints whatever the hint,
// across the varint width boundaries.
func TestAppendMessageFunc(t *testing.T) {
	for _, size := range []int{0, 1, 127, 128, 16383, 16384, 2097152} {
		body := bytes.Repeat([]byte{0xab}, size)
		want := appendBytes([]byte("pre"), 7, body)
		for _, hint := range []int{-5, 0, 1, 127, 128, size, 16384, 1 << 30} {
			got := AppendMessageFunc([]byte("pre"), 7, hint, func(b []byte) []byte { return append(b, body...) })
			if !bytes.Equal(got, want) {
				t.Errorf("AppendMessageFunc(size %d, hint %d) differs from the sized encoding", size, hint)
			}
		}
	}
}

func TestStringMap(t *testing.T) {
	// More keys than sortedKeys' stack buffer, inserted unsorted.
	m := map[string]string{}
	for _, k := range []string{"z", "a", "B", "", "é", "aa", "b", "0", "k1", "k10", "k2", "x", "y", "w", "v", "u", "t", "s"} {
		m[k] = "v" + k
	}
	b := AppendStringMap(nil, 11, m)
	if len(b) != SizeStringMap(11, m) {
		t.Errorf("len = %d; SizeStringMap = %d", len(b), SizeStringMap(11, m))
	}
	var keys []string
	got := map[string]string{}
	err := RangeFields(b, func(f Field) error {
		if f.Num != 11 {
			t.Errorf("field %d; want 11", f.Num)
		}
		k, v, err := ConsumeStringMapEntry(f.Bytes)
		keys = append(keys, k)
		got[k] = v
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", "0", "B", "a", "aa", "b", "k1", "k10", "k2", "s", "t", "u", "v", "w", "x", "y", "z", "é"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("key order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if b := AppendStringMap([]byte{}, 11, nil); len(b) != 0 || SizeStringMap(11, nil) != 0 {
		t.Errorf("nil map wrote %x", b)
	}
	// Missing key and value decode as "".
	if k, v, err := ConsumeStringMapEntry(nil); k != "" || v != "" || err != nil {
		t.Errorf("ConsumeStringMapEntry(empty) = %q, %q, %v", k, v, err)
	}
	if _, _, err := ConsumeStringMapEntry(mustHex(t, "0801")); !errors.Is(err, ErrMalformed) {
		t.Errorf("varint key: err = %v; want ErrMalformed", err)
	}
}

func TestBytesMap(t *testing.T) {
	m := map[string][]byte{"nil": nil, "empty": {}, "data": []byte("hi")}
	b := AppendBytesMap(nil, 2, m)
	want := mustHex(t, "120a 0a0464617461 12026869"+ // data
		"1209 0a05656d707479 1200"+ // empty: value written
		"1205 0a036e696c") // nil: value left out
	if !bytes.Equal(b, want) {
		t.Errorf("AppendBytesMap = %x; want %x", b, want)
	}
	if len(b) != SizeBytesMap(2, m) {
		t.Errorf("len = %d; SizeBytesMap = %d", len(b), SizeBytesMap(2, m))
	}
	err := RangeFields(b, func(f Field) error {
		k, v, err := ConsumeBytesMapEntry(f.Bytes)
		if v == nil || (k != "data" && len(v) != 0) || (k == "data" && string(v) != "hi") {
			t.Errorf("entry %q = %v (nil %v)", k, v, v == nil)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if k, v, err := ConsumeBytesMapEntry(nil); k != "" || v == nil || len(v) != 0 || err != nil {
		t.Errorf("ConsumeBytesMapEntry(nil) = %q, %v (nil %v), %v; want empty key, empty non-nil value", k, v, v == nil, err)
	}
	if _, _, err := ConsumeBytesMapEntry(mustHex(t, "0a")); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated entry: err = %v; want io.ErrUnexpectedEOF", err)
	}
}

// AddBytesMapEntry and AddStringMapEntry rebuild a map from its entries;
// the bytes values are copies, so a reused input buffer cannot change them.
func TestAddMapEntries(t *testing.T) {
	in := map[string][]byte{"nil": nil, "empty": {}, "data": []byte("hi")}
	b := AppendBytesMap(nil, 2, in)
	var got map[string][]byte
	if err := RangeFields(b, func(f Field) (err error) {
		got, err = AddBytesMapEntry(got, f)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	clear(b) // the caller reuses its buffer
	if string(got["data"]) != "hi" || got["empty"] == nil || len(got["empty"]) != 0 || got["nil"] == nil || len(got) != 3 {
		t.Errorf("AddBytesMapEntry built %q (nil values: empty %v, nil %v)", got, got["empty"] == nil, got["nil"] == nil)
	}
	sb := AppendStringMap(nil, 3, map[string]string{"a": "1", "b": ""})
	var sm map[string]string
	if err := RangeFields(sb, func(f Field) (err error) {
		sm, err = AddStringMapEntry(sm, f)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(sm) != 2 || sm["a"] != "1" || sm["b"] != "" {
		t.Errorf("AddStringMapEntry built %q", sm)
	}
	if _, err := AddBytesMapEntry(nil, Field{Num: 2, Type: protowire.VarintType}); err == nil {
		t.Error("AddBytesMapEntry of a varint field: no error")
	}
}
