package negotiation

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
)

// The Table writer must produce exactly what encoding/json's Marshal
// produces, errors included: these tests compare the two on tables that
// reach every branch of the writer and every escaping rule.

// awkward are strings that exercise every escaping rule of encoding/json.
var awkward = []string{
	"",
	"plain",
	`quote " backslash \ slash /`,
	"<script>alert('x')</script> & more",
	"\x00\x01\x07\b\t\n\v\f\r\x0e\x1f",
	"del \x7f",
	"line\u2028para\u2029end",
	"almost \u2027 and \u202a",
	"héllo wörld 日本語 🙂",
	"bad utf-8 \xff \xe2\x80 \xc3",
	"\xe2\x80\xa8\xe2\x80",
	strings.Repeat("long ", 100),
}

// awkwardJSON are embedded objects: valid ones in every shape, and
// invalid ones whose error must be encoding/json's.
var awkwardJSON = []string{
	`{}`,
	`[]`,
	`null`,
	`true`,
	`false`,
	`0`,
	`-0.5e+10`,
	`"s"`,
	`{"kind":"PartialObjectMetadata","metadata":{"name":"a","annotations":{"x":"<&>"}}}`,
	" \t\n{ \"a\" : [ 1 , 2.5 , -3e-7 , true , false , null , { } , [ ] ] ,\r\n \"b\" : \"\\u003c\\\"\\\\\\/\\b\\f\\n\\r\\t\\uABcd\" } \n",
	`{"html":"<b>&amp;</b>","seps":"` + "\u2028\u2029" + `","raw":"` + "\xff\xfe" + `"}`,
	`{"a":{"b":{"c":[[[{"d":[]}]]]}}}`,
	`[1,[2,[3,[4]]],{"k":{}}]`,
	`[{"a":1},[1,2],{},[]]`,
	strings.Repeat(`{"a":[`, 50) + strings.Repeat("]}", 50),
	strings.Repeat("[", 600) + strings.Repeat("]", 600), // deeper than the fast path goes
	// Invalid.
	``,
	` `,
	`{`,
	`}`,
	`{"a"}`,
	`{"a":}`,
	`{"a":1,}`,
	`[1,]`,
	`[1 2]`,
	`{"a":1]`,
	`[1}`,
	`{1:2}`,
	`{} {}`,
	`01`,
	`1.`,
	`.5`,
	`1e`,
	`-`,
	`+1`,
	`tru`,
	`nul`,
	`truex`,
	`"unterminated`,
	`"bad \x escape"`,
	`"bad \u12g4"`,
	"\"control \x01\"",
	`NaN`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), // past encoding/json's limit
}

// awkwardCells are cell values: the fast types at their edges, and
// others that go through encoding/json.
var awkwardCells = []any{
	nil, "", "a<b", true, false,
	0, -1, math.MaxInt64, math.MinInt64, int32(math.MinInt32), int64(42), int8(-8), uint(7), uint64(math.MaxUint64),
	0.0, math.Copysign(0, -1), 1.5, -2.25, 1e-6, 9.99999e-7, 1e-7, 1e20, 1e21, 123456789.125, 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64,
	float32(0), float32(1e-6), float32(9.99999e-7), float32(1e-7), float32(1e21), float32(1e20), float32(3.14159), float32(math.MaxFloat32),
	json.Number("12.50"), json.RawMessage(` { "a" : "<>" } `), map[string]any{"z": 1, "a": []any{"<", nil}},
	[]string{"x", "y"}, time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), struct {
		A string `json:"a"`
		B int    `json:"b,omitempty"`
	}{A: "&"},
	// Errors.
	math.NaN(), math.Inf(1), math.Inf(-1), float32(math.Inf(-1)), make(chan int), json.RawMessage(`{bad`),
}

// checkTableJSON compares appendTableJSON with json.Marshal on t.
func checkTableJSON(t *testing.T, name string, tab *Table) {
	t.Helper()
	want, werr := json.Marshal(tab)
	prefix := []byte("prefix")
	got, gerr := appendTableJSON(prefix[:len(prefix):len(prefix)], tab)
	switch {
	case werr != nil || gerr != nil:
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Errorf("%s: error %v; encoding/json's %v", name, gerr, werr)
		}
	case !bytes.HasPrefix(got, prefix):
		t.Errorf("%s: appendTableJSON overwrote its buffer", name)
	case !bytes.Equal(got[len(prefix):], want):
		t.Errorf("%s:\n got %s\nwant %s", name, got[len(prefix):], want)
	}
}

func TestTableJSONMatchesEncodingJSON(t *testing.T) {
	remaining, zero, negative := int64(12), int64(0), int64(-3)
	checkTableJSON(t, "zero Table", &Table{})
	checkTableJSON(t, "empty slices", &Table{ColumnDefinitions: []TableColumnDefinition{}, Rows: []TableRow{}})
	checkTableJSON(t, "kind only", &Table{Kind: "Table"})
	checkTableJSON(t, "apiVersion only", &Table{APIVersion: "meta.k8s.io/v1"})
	for _, m := range []meta.ListMeta{
		{SelfLink: "/api/v1/x"},
		{ResourceVersion: "7"},
		{Continue: "tok"},
		{RemainingItemCount: &zero},
		{RemainingItemCount: &negative},
		{SelfLink: "s", ResourceVersion: "1", Continue: "c", RemainingItemCount: &remaining},
		{Continue: "<&>"},
	} {
		checkTableJSON(t, "metadata", &Table{Kind: "Table", Metadata: m})
	}
	checkTableJSON(t, "default columns, empty row", &Table{ColumnDefinitions: DefaultColumns(),
		Rows: []TableRow{{}, {Cells: []any{}}, {Conditions: []TableRowCondition{}}}})
	checkTableJSON(t, "priorities", &Table{ColumnDefinitions: []TableColumnDefinition{{Priority: -1}, {Priority: math.MaxInt32}, {Priority: math.MinInt32}}})
	checkTableJSON(t, "conditions", &Table{Rows: []TableRow{{Conditions: []TableRowCondition{
		{Type: "Completed", Status: "True"},
		{Type: "Completed", Status: "False", Reason: "r"},
		{Type: "Completed", Status: "Unknown", Message: "m"},
		{Reason: "<r>", Message: "&m"},
	}}}})

	for _, s := range awkward {
		checkTableJSON(t, "string "+s, &Table{Kind: s, APIVersion: s,
			Metadata:          meta.ListMeta{SelfLink: s, ResourceVersion: s, Continue: s},
			ColumnDefinitions: []TableColumnDefinition{{Name: s, Type: s, Format: s, Description: s}},
			Rows: []TableRow{{Cells: []any{s}, Conditions: []TableRowCondition{{Type: s, Status: s, Reason: s, Message: s}},
				Object: json.RawMessage(`{"s":` + string(mustMarshal(t, s)) + `}`)}}})
	}
	for _, obj := range awkwardJSON {
		checkTableJSON(t, "object "+obj, &Table{Rows: []TableRow{{Object: json.RawMessage(obj)}}})
	}
	checkTableJSON(t, "empty non-nil object", &Table{Rows: []TableRow{{Object: json.RawMessage{}}}})
	for _, c := range awkwardCells {
		checkTableJSON(t, "cell", &Table{Rows: []TableRow{{Cells: []any{c}}}})
	}
	checkTableJSON(t, "all cells in one row", &Table{Rows: []TableRow{{Cells: awkwardCells[:len(awkwardCells)-6]}}})
}

func mustMarshal(t testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The Tables a Converter makes, encoded the fast way, are what
// encoding/json writes for them.
func TestConverterTableJSONMatchesEncodingJSON(t *testing.T) {
	objs := append(testObjs(), newTestObj("c<&>", "11", created, map[string]string{"<": "&"}, map[string]string{"note": "a\u2028b"}))
	remaining := int64(1)
	list := meta.ListMeta{ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining}
	for _, conv := range []*Converter[*testObj]{testConverter, dataConverter} {
		for _, include := range []IncludeObjectPolicy{IncludeMetadata, IncludeNone, IncludeObject} {
			if conv.Object == nil && include == IncludeObject {
				continue
			}
			for _, target := range []Target{TargetTable, TargetTableV1beta1} {
				tab, err := conv.Table(target, include, list, objs)
				if err != nil {
					t.Fatal(err)
				}
				checkTableJSON(t, target.String()+" "+include.String(), tab)
				got, err := conv.EncodeList(Result{MediaType: JSON, Target: target}, include, list, objs)
				if want := append(mustMarshal(t, tab), '\n'); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%v %v: EncodeList = %s, %v; want %s", target, include, got, err, want)
				}
			}
		}
	}
}

// checkCompact compares the compaction of embedded JSON with encoding/json:
// appendRawJSON with the compaction of a json.RawMessage by Marshal,
// appendCompactJSON with json.Compact.
func checkCompact(t *testing.T, src []byte) {
	t.Helper()
	want, werr := json.Marshal(json.RawMessage(src))
	got, gerr := appendRawJSON([]byte("pre"), src)
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("appendRawJSON(%q) error %v; encoding/json's %v", src, gerr, werr)
	}
	if werr == nil && string(got) != "pre"+string(want) {
		t.Fatalf("appendRawJSON(%q) = %q; want %q", src, got[3:], want)
	}

	var buf bytes.Buffer
	cerr := json.Compact(&buf, src)
	got, gerr = appendCompactJSON([]byte("pre"), src)
	if (cerr == nil) != (gerr == nil) || cerr != nil && cerr.Error() != gerr.Error() {
		t.Fatalf("appendCompactJSON(%q) error %v; json.Compact's %v", src, gerr, cerr)
	}
	if cerr == nil && string(got) != "pre"+buf.String() {
		t.Fatalf("appendCompactJSON(%q) = %q; want %q", src, got[3:], buf.Bytes())
	}

	// Below maxFastDepth bytes no value can nest too deeply, so the fast
	// path must accept exactly what encoding/json accepts: the fallback
	// is for errors and pathological nesting, not for a missed case.
	if len(src) <= maxFastDepth {
		for _, html := range []bool{false, true} {
			if _, ok := appendCompactFast(nil, src, html); ok != (cerr == nil) {
				t.Fatalf("appendCompactFast(%q, html %v) ok = %v; json.Compact error %v", src, html, ok, cerr)
			}
		}
	}
}

func TestCompactMatchesEncodingJSON(t *testing.T) {
	for _, s := range awkwardJSON {
		checkCompact(t, []byte(s))
	}
	// Every truncation of valid JSON is a different invalid input.
	for _, s := range awkwardJSON[:12] {
		for i := range len(s) {
			checkCompact(t, []byte(s[:i]))
		}
	}
}

func FuzzCompactJSON(f *testing.F) {
	for _, s := range awkwardJSON {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkCompact(t, src)
	})
}

// FuzzTableJSON builds Tables from arbitrary strings, numbers and objects
// and compares the writer with encoding/json.
func FuzzTableJSON(f *testing.F) {
	for i, s := range awkward {
		f.Add(s, awkward[len(awkward)-1-i], int64(i)-3, float64(i)*1.5e-7, awkwardJSON[i], i%2 == 0)
	}
	f.Add("a", "b", int64(math.MaxInt64), 1e21, `{"a":[1,{"b":"<"}]}`, true)
	f.Fuzz(func(t *testing.T, s1, s2 string, n int64, x float64, obj string, flag bool) {
		var object json.RawMessage
		if flag || obj != "" {
			object = json.RawMessage(obj)
		}
		var rem *int64
		if flag {
			rem = &n
		}
		tab := &Table{Kind: s1, APIVersion: s2,
			Metadata:          meta.ListMeta{ResourceVersion: s1, Continue: s2, RemainingItemCount: rem},
			ColumnDefinitions: []TableColumnDefinition{{Name: s1, Type: s2, Format: s1, Description: s2, Priority: int32(n)}},
			Rows: []TableRow{
				{Cells: []any{s1, s2, n, int32(n), int(n), x, float32(x), flag, nil}, Object: object},
				{Conditions: []TableRowCondition{{Type: s1, Status: s2, Reason: s1, Message: s2}}},
			},
		}
		checkTableJSON(t, "fuzz", tab)
	})
}

// BenchmarkTableJSON is the encoding of a 500-row Table as the Converter
// builds it, with metadata-only objects, against encoding/json's Marshal.
func BenchmarkTableJSON(b *testing.B) {
	objs := make([]*testObj, 500)
	for i := range objs {
		objs[i] = newTestObj("cm-"+strings.Repeat("0", 3)+string(rune('a'+i%26)), "1000", created, map[string]string{"k": "v"}, nil)
	}
	tab, err := testConverter.Table(TargetTable, IncludeMetadata, meta.ListMeta{ResourceVersion: "2000"}, objs)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := appendTableJSON(make([]byte, 0, tableJSONSizeHint(tab)), tab); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(tab); err != nil {
				b.Fatal(err)
			}
		}
	})
}
