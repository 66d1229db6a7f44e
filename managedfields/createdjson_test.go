package managedfields

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/internal/cputime"
)

// decodeJSON is Created's decode as the server's is: the JSON value
// without metadata.managedFields.
func decodeJSON(calls *int) func([]byte) (map[string]any, error) {
	return func(b []byte) (map[string]any, error) {
		*calls++
		var o map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &o); err != nil {
			return nil, err
		}
		if md, ok := o["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
		return o, nil
	}
}

// checkCreatedJSON fails unless Created records the create of the object
// js as Update does, the first time and again, and reports how many
// times it decoded js.
func checkCreatedJSON(t *testing.T, name string, f *FieldManager, js string, op Operation) int {
	t.Helper()
	var o map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(js), &o); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	if md, ok := o["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	want, wantErr := newFieldManager(f.opts, f.views).Update(nil, o, nil, nil, op)
	wj, _ := json.Marshal(want)
	calls := 0
	for range 2 {
		got, err := f.Created([]byte(js), decodeJSON(&calls), op)
		if gj, _ := json.Marshal(got); (err != nil) != (wantErr != nil) || string(gj) != string(wj) {
			t.Errorf("%s: Created(%s) = %s, %v\nUpdate records          %s, %v", name, js, gj, err, wj, wantErr)
		}
	}
	return calls
}

// Created is Update for a create without entries, for every type and
// object, from raw JSON: it decodes an object of a shape it met before
// no more, and one with a list every time.
func TestCreatedJSON(t *testing.T) {
	objects := append(slices.Clone(createObjects), bigObject(),
		`{"metadata":{"name":"a","managedFields":[{"manager":"x"}]},"data":{"k":"v"}}`,
		" {\n\"metadata\" : {\"name\":\"a\\u0041\\n\"} , \"x\":-1.5e+3,\"y\":false}\t")
	for _, m := range createManagers(t) {
		for _, js := range objects {
			for _, op := range []Operation{{Manager: "m", Time: t0}, {Time: t0}, {Manager: "m", Subresource: "status", Time: t0}} {
				f := newFieldManager(m.f.opts, m.f.views)
				calls := checkCreatedJSON(t, m.name, f, js, op)
				// One decode for a shape kept; every time for the
				// others.
				want := 2
				_, keep := appendJSONShape(nil, []byte(js))
				if _, ok, err := f.created(mustObj(t, js), op); keep && ok && err == nil {
					want = 1
				}
				if calls != want {
					t.Errorf("%s: %s decoded %d times; want %d", m.name, js, calls, want)
				}
			}
		}
	}
	// Objects of one shape share a field set; other values, other kinds
	// of values and other keys are other shapes.
	f := newCM()
	calls := 0
	for _, js := range []string{
		`{"metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":"w"}}`,
		`{"metadata": {"name":"b", "labels":{"x":"2"}},"data":{"k":"w"}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":null}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":{}}}`,
		`{"metadata":{"name":"b","labels":{"x":"2"}},"data":{"k":{"l":1}}}`,
		`{"metadata":{"name":"b","labels":{"y":"2"}},"data":{"k":1}}`,
		`{"metadata":{"name":"b","labels":{"y":"2"}},"data":{"\"k\"":1}}`,
		`{"metadata":{"name":"b","labels":{"y":"2"}},"data":{"\u0022k\"":1}}`,
	} {
		if _, err := f.Created([]byte(js), decodeJSON(&calls), Operation{Manager: "m", Time: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.jsonShapes.m); calls != 7 || n != 7 {
		t.Errorf("%d decodes, %d shapes kept; want 7 of each", calls, n)
	}
}

func mustObj(t *testing.T, js string) map[string]any {
	t.Helper()
	var o map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(js), &o); err != nil {
		t.Fatal(err)
	}
	if md, ok := o["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	return o
}

// appendJSONShape keeps only well-formed JSON objects without lists.
func TestAppendJSONShape(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{`{}`, `{}`},
		{` { "a" : { "b" : "x" , "c":1 } , "d":true,"e":null,"f":-0.5E-7 } `, `{"a"{"b"s"c"n}"d"b"e"z"f"n}`},
		{`{"a\"b\u00e9":"\\"}`, `{"a\"b\u00e9"s}`},
		{`{"a":[]}`, ``},
		{`[]`, ``},
		{`"a"`, ``},
		{`{"a":1}x`, ``},
		{`{"a":1,}`, ``},
		{`{"a" 1}`, ``},
		{`{"a":01}`, ``},
		{`{"a":1.}`, ``},
		{`{"a":-}`, ``},
		{`{"a":1e}`, ``},
		{`{"a":tru}`, ``},
		{`{"a":nul}`, ``},
		{`{"a":"\x"}`, ``},
		{`{"a":"\u12"}`, ``},
		{"{\"a\":\"\x01\"}", ``},
		{`{"a":"b`, ``},
		{`{"a":{}`, ``},
		{`{a:1}`, ``},
		{``, ``},
	} {
		got, ok := appendJSONShape(nil, []byte(tc.in))
		if ok != (tc.want != "") || ok && string(got) != tc.want {
			t.Errorf("appendJSONShape(%s) = %s, %v; want %s", tc.in, got, ok, tc.want)
		}
	}
	deep := []byte(`{"a":1}`)
	for range maxJSONShapeDepth {
		deep = append(append([]byte(`{"a":`), deep...), '}')
	}
	if _, ok := appendJSONShape(nil, deep); ok {
		t.Error("appendJSONShape took an object nested past maxJSONShapeDepth")
	}
}

// FuzzJSONShape checks that appendJSONShape keeps only JSON objects
// without lists, and that two texts of one shape decode into maps of one
// shape, whose field set created keeps.
func FuzzJSONShape(f *testing.F) {
	for _, js := range createObjects {
		f.Add([]byte(js), []byte(js))
	}
	f.Add([]byte(`{"a":"x","b":1}`), []byte(`{"a":"y","b":2.5}`))
	f.Add([]byte(`{"a":"x","a":{}}`), []byte(`{"a":"y","a":{}}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ka, ok := appendJSONShape(nil, a)
		if !ok {
			return
		}
		var oa map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(a, &oa); err != nil || oa == nil {
			t.Fatalf("appendJSONShape took %q, which does not decode into an object: %v", a, err)
		}
		sa, ok := appendShape(nil, oa)
		if !ok {
			t.Fatalf("appendJSONShape took %q, whose map is not kept", a)
		}
		kb, ok := appendJSONShape(nil, b)
		if !ok || string(ka) != string(kb) {
			return
		}
		var ob map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(b, &ob); err != nil {
			t.Fatal(err)
		}
		if sb, _ := appendShape(nil, ob); string(sa) != string(sb) {
			t.Errorf("%q and %q have the JSON shape %q but the shapes %q and %q", a, b, ka, sa, sb)
		}
	})
}

// BenchmarkCreatedShape is the managedFields entry of a create whose
// shape was met before (httpbench's ConfigMaps): a walk of the JSON, a
// lookup, and the entry.
func BenchmarkCreatedShape(b *testing.B) {
	f := newCM()
	js := []byte(`{"metadata":{"name":"cm-000001","namespace":"hb","labels":{"app":"a1"}},"data":{"k":"` +
		strings.Repeat("x", 256) + `"}}`)
	calls := 0
	op := Operation{Manager: "httpbench", Time: t0}
	if _, err := f.Created(js, decodeJSON(&calls), op); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := f.Created(js, decodeJSON(&calls), op); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
	if calls != 1 {
		b.Fatalf("%d decodes; want 1", calls)
	}
}
