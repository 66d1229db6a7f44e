package negotiation

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
)

// rowCase is an object as a Converter sees it.
type rowCase struct {
	name string
	meta Meta
	obj  []byte
	cell any
}

// appendRow writes each row as c.row and appendRowJSON do, for every
// kind of metadata (compact, indented, with characters encoding/json
// escapes, missing, invalid), cell and include policy.
func TestAppendRowMatchesRow(t *testing.T) {
	om := &meta.ObjectMeta{Name: "a", CreationTimestamp: meta.NewTime(created)}
	bookmark := &meta.ObjectMeta{Annotations: map[string]string{meta.InitialEventsAnnotation: "true"}}
	cases := []rowCase{
		{"compact", Meta{ObjectMeta: om, JSON: []byte(`{"name":"a","labels":{"x":"y"}}`)}, []byte(`{"metadata":{"name":"a"}}`), "s"},
		{"compact, said so", Meta{ObjectMeta: om, JSON: []byte(`{"name":"a"}`), Compact: true}, nil, int64(3)},
		{"indented", Meta{ObjectMeta: om, JSON: []byte("{\n  \"name\": \"a\",\n  \"x\": [1, 2]\n}")}, []byte(" { \"a\" : 1 } "), 1.5},
		{"html", Meta{ObjectMeta: om, JSON: []byte(`{"name":"<a&b>","x":"\u2028"}`)}, []byte(`{"a":"<>"}`), "<b>"},
		{"no metadata JSON", Meta{ObjectMeta: om}, []byte(`{}`), true},
		{"no metadata", Meta{}, []byte(`{}`), nil},
		{"bookmark", Meta{ObjectMeta: bookmark, JSON: []byte(`{"annotations":{"k8s.io/initial-events-end":"true"}}`)}, []byte(`{}`), 7},
		{"deep", Meta{ObjectMeta: om, JSON: []byte(`{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`)}, []byte(`{}`), "d"},
		{"invalid metadata", Meta{ObjectMeta: om, JSON: []byte(`{"name":`)}, []byte(`{}`), "i"},
		{"invalid object", Meta{ObjectMeta: om, JSON: []byte(`{}`)}, []byte(`{"a":`), "i"},
		{"NaN cell", Meta{ObjectMeta: om, JSON: []byte(`{}`)}, []byte(`{}`), 0.0},
	}
	cases[len(cases)-1].cell = func() any { z := 0.0; return z / z }()
	for _, tc := range cases {
		byName := func(name string) *rowCase {
			for i := range cases {
				if cases[i].name == name {
					return &cases[i]
				}
			}
			return nil
		}
		for _, cols := range []bool{false, true} {
			c := &Converter[string]{
				Meta:   func(n string) Meta { return byName(n).meta },
				Object: func(n string) ([]byte, error) { return byName(n).obj, nil },
			}
			if cols {
				c.Columns = []Column[string]{
					{Cell: func(n string) any { return n }},
					{Cell: func(n string) any { return byName(n).cell }},
					{Text: func(n string) string { return "<" + n + ">" }}, // Text alone: Cell is not called
				}
			}
			for _, target := range []Target{TargetTable, TargetTableV1beta1} {
				for _, include := range []IncludeObjectPolicy{IncludeNone, IncludeMetadata, IncludeObject} {
					name := fmt.Sprintf("%s/columns=%v/%v/%v", tc.name, cols, target.APIVersion(), include)
					var want []byte
					row, wantErr := c.row(target, include, tc.name)
					if wantErr == nil {
						want, wantErr = appendRowJSON(nil, &row)
					}
					got, err := c.appendRow([]byte("prefix"), target, include, tc.name)
					switch {
					case (err == nil) != (wantErr == nil):
						t.Errorf("%s: appendRow error %v; want %v", name, err, wantErr)
					case err != nil && err.Error() != wantErr.Error():
						t.Errorf("%s: appendRow error %q; want %q", name, err, wantErr)
					case err == nil && !bytes.Equal(got, append([]byte("prefix"), want...)):
						t.Errorf("%s: appendRow\n%s\nwant\nprefix%s", name, got, want)
					}
				}
			}
		}
	}
	if _, err := (&Converter[string]{Meta: func(string) Meta { return Meta{} }}).appendRow(nil, TargetTable, IncludeObject, ""); !errors.Is(err, ErrNoObjectFunc) {
		t.Errorf("appendRow without Object: %v; want ErrNoObjectFunc", err)
	}
}

// BenchmarkTableListBody writes the rows of a list's Table of 10,000
// ConfigMaps with three columns, as a server does (ListBody's items):
// from the metadata's JSON, which a server caches, encoded by
// encoding/json (Compact) or of unknown form.
func BenchmarkTableListBody(b *testing.B) {
	objs := make([]*testObj, 10000)
	for i := range objs {
		objs[i] = newTestObj("cm-"+strconv.Itoa(i), strconv.Itoa(1000+i), created, map[string]string{"k": "v"}, nil)
	}
	list := meta.ListMeta{ResourceVersion: "2000"}
	cols := []Column[*testObj]{
		{Definition: NameColumn(), Cell: func(o *testObj) any { return o.name }},
		{Definition: TableColumnDefinition{Name: "Data", Type: "integer"}, Cell: func(o *testObj) any { return len(o.data) }},
		{Definition: TableColumnDefinition{Name: "Age", Type: "string"}, Cell: func(o *testObj) any { return "5d" }},
	}
	for _, compact := range []bool{false, true} {
		metas := make(map[*testObj]Meta, len(objs))
		for _, o := range objs {
			m, _ := MetaFromJSON(o.json)
			m.Compact = compact
			metas[o] = m
		}
		c := &Converter[*testObj]{Columns: cols, Meta: func(o *testObj) Meta { return metas[o] }}
		b.Run(fmt.Sprintf("compact=%v", compact), func(b *testing.B) {
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				l, err := c.ListBody(Result{MediaType: JSON, Target: TargetTable}, IncludeMetadata, list, objs)
				if err != nil {
					b.Fatal(err)
				}
				n = len(l.Head) + len(l.Tail)
				for i := range l.Len {
					item, err := l.Item(i)
					if err != nil {
						b.Fatal(err)
					}
					n += len(item)
				}
			}
			b.SetBytes(int64(n))
		})
	}
}
