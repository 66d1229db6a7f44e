package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
)

// namedTestDefs is a custom resource's schema with objects nested deep
// in objects, list items and map values, each with its own merge rules:
// an atomic map in an object, atomic and keyed lists in list items, a
// granular map of objects, preserved unknown fields inherited by a
// nested object, an int-or-string.
func namedTestDefs() map[string]*openapi.Schema {
	str := func() *openapi.Schema { return &openapi.Schema{Type: "string"} }
	obj := func(props map[string]*openapi.Schema) *openapi.Schema {
		return &openapi.Schema{Type: "object", Properties: props}
	}
	strMap := func(mapType string) *openapi.Schema {
		return &openapi.Schema{Type: "object", MapType: mapType, AdditionalProperties: str()}
	}
	header := obj(map[string]*openapi.Schema{"name": str(), "value": str()})
	rule := obj(map[string]*openapi.Schema{
		"name": str(),
		"match": obj(map[string]*openapi.Schema{
			"headers": {Type: "array", ListType: "map", ListMapKeys: []string{"name"}, Items: header},
			"labels":  strMap("atomic"),
			"path":    obj(map[string]*openapi.Schema{"type": str(), "value": str()}),
		}),
		"backends": {Type: "array", Items: obj(map[string]*openapi.Schema{"name": str(), "weight": {Type: "integer"}})},
		"tags":     {Type: "array", ListType: "set", Items: str()},
	})
	selector := obj(map[string]*openapi.Schema{"matchLabels": strMap("")})
	selector.MapType = "atomic"
	extra := obj(map[string]*openapi.Schema{"known": obj(map[string]*openapi.Schema{"a": str()})})
	extra.PreserveUnknownFields = true
	leaf := obj(map[string]*openapi.Schema{"leaf": str(), "free": {Type: "object", PreserveUnknownFields: true}})
	ports := &openapi.Schema{Type: "object", AdditionalProperties: obj(map[string]*openapi.Schema{
		"port": {Type: "", IntOrString: true},
		"opts": strMap("granular"),
	})}
	defs := metaDefinitions()
	defs["io.example.v1.Widget"] = obj(map[string]*openapi.Schema{
		"apiVersion": str(),
		"kind":       str(),
		"metadata":   {Ref: openapi.ObjectMetaSchema},
		"spec": obj(map[string]*openapi.Schema{
			"selector": selector,
			"rules":    {Type: "array", ListType: "map", ListMapKeys: []string{"name"}, Items: rule},
			"tree":     obj(map[string]*openapi.Schema{"child": obj(map[string]*openapi.Schema{"child": leaf})}),
			"extra":    extra,
			"ports":    ports,
		}),
	})
	return defs
}

// inlineNested is s with every nested object type inlined where it is
// referred to, as smdSchema made it before it named them.
func inlineNested(s *smdschema.Schema) *smdschema.Schema {
	nested := map[string]smdschema.Atom{}
	for _, td := range s.Types {
		if strings.HasPrefix(td.Name, nestedPrefix) {
			nested[td.Name] = td.Atom
		}
	}
	var atom func(a smdschema.Atom) smdschema.Atom
	ref := func(tr smdschema.TypeRef) smdschema.TypeRef {
		if tr.NamedType != nil {
			if a, ok := nested[*tr.NamedType]; ok {
				return smdschema.TypeRef{Inlined: atom(a)}
			}
			return tr
		}
		tr.Inlined = atom(tr.Inlined)
		return tr
	}
	atom = func(a smdschema.Atom) smdschema.Atom {
		if a.Map != nil {
			m := &smdschema.Map{ElementType: ref(a.Map.ElementType), ElementRelationship: a.Map.ElementRelationship, Unions: a.Map.Unions}
			for _, f := range a.Map.Fields {
				m.Fields = append(m.Fields, smdschema.StructField{Name: f.Name, Type: ref(f.Type), Default: f.Default})
			}
			a.Map = m
		}
		if a.List != nil {
			l := *a.List
			l.ElementType = ref(l.ElementType)
			a.List = &l
		}
		return a
	}
	out := &smdschema.Schema{}
	for _, td := range s.Types {
		if _, ok := nested[td.Name]; !ok {
			out.Types = append(out.Types, smdschema.TypeDef{Name: td.Name, Atom: atom(td.Atom)})
		}
	}
	return out
}

// Naming nested objects changes no answer of server-side apply or of an
// update's managedFields: a run of applies, conflicts and updates by
// several managers gives byte for byte the objects, entries and errors
// it gives with every nested object inlined; and the entries honour
// map and list types of nested objects.
func TestNamedSchemaAnswers(t *testing.T) {
	named := smdSchema(namedTestDefs())
	nestedTypes := 0
	for _, td := range named.Types {
		if strings.HasPrefix(td.Name, nestedPrefix) {
			nestedTypes++
		}
	}
	if nestedTypes < 10 {
		t.Fatalf("%d nested object types named, want every nested object's", nestedTypes)
	}
	root := "io.example.v1.Widget"
	var fms [2]*managedfields.FieldManager
	for i, s := range []*smdschema.Schema{named, inlineNested(named)} {
		fms[i] = managedfields.New(managedfields.Options{APIVersion: "example.io/v1", Kind: "Widget",
			Type: typed.ParseableType{Schema: s, TypeRef: smdschema.TypeRef{NamedType: &root}}})
	}
	full := `{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"w","labels":{"a":"1"}},"spec":{
		"selector":{"matchLabels":{"app":"x","tier":"web"}},
		"rules":[
			{"name":"r1","match":{"headers":[{"name":"h1","value":"v1"},{"name":"h2","value":"v2"}],"labels":{"l":"1"},"path":{"type":"Prefix","value":"/"}},
			 "backends":[{"name":"b1","weight":10},{"name":"b2","weight":90}],"tags":["t1","t2"]},
			{"name":"r2","match":{"path":{"type":"Exact","value":"/x"}}}],
		"tree":{"child":{"child":{"leaf":"l","free":{"any":{"deep":[1,2]}}}}},
		"extra":{"known":{"a":"x","unknown":{"u":1}},"other":true},
		"ports":{"http":{"port":80,"opts":{"k":"v"}},"grpc":{"port":"grpc"}}}}`
	steps := []struct {
		manager string
		apply   bool
		force   bool
		obj     string
	}{
		{"a", true, false, full},
		// b conflicts over the atomic selector and a header's value.
		{"b", true, false, `{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{
			"selector":{"matchLabels":{"app":"y"}},
			"rules":[{"name":"r1","match":{"headers":[{"name":"h1","value":"other"},{"name":"h3","value":"v3"}],"labels":{"m":"2"}},"tags":["t3"]}]}}`},
		{"b", true, true, `{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{
			"selector":{"matchLabels":{"app":"y"}},
			"rules":[{"name":"r1","match":{"headers":[{"name":"h1","value":"other"},{"name":"h3","value":"v3"}],"labels":{"m":"2"}},"tags":["t3"]}]}}`},
		// An update changes deep leaves, a granular map of a map value
		// and a preserved member.
		{"editor", false, false, strings.NewReplacer(`"leaf":"l"`, `"leaf":"m"`, `"opts":{"k":"v"}`, `"opts":{"k":"v","k2":"w"}`,
			`"other":true`, `"other":false,"more":{"x":1}`).Replace(full)},
		// a gives up most of what it applied.
		{"a", true, false, `{"apiVersion":"example.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{
			"rules":[{"name":"r2","match":{"path":{"type":"Exact","value":"/y"}}}],
			"tree":{"child":{"child":{"free":{"other":2}}}},"ports":{"grpc":{"port":9090}}}}`},
	}
	var forced string // b's entry after its forced apply
	var lives [2]map[string]any
	var entries [2][]meta.ManagedFieldsEntry
	for i, st := range steps {
		var answers [2]string
		for k, fm := range fms {
			obj, _, _, err := decodeApplyConfig([]byte(st.obj), false)
			if err != nil {
				t.Fatal(err)
			}
			op := managedfields.Operation{Manager: st.manager, Time: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
			var out map[string]any
			var es []meta.ManagedFieldsEntry
			if st.apply {
				out, es, err = fm.Apply(lives[k], entries[k], obj, op, st.force)
			} else {
				es, err = fm.Update(lives[k], obj, entries[k], nil, op)
				out = obj
			}
			if err != nil {
				answers[k] = "error: " + err.Error()
				continue
			}
			lives[k], entries[k] = out, es
			b, err := json.Marshal(map[string]any{"object": out, "managedFields": es})
			if err != nil {
				t.Fatal(err)
			}
			answers[k] = string(b)
		}
		if answers[0] != answers[1] {
			t.Errorf("step %d (%s): named types answer\n%s\ninlined\n%s", i, st.manager, answers[0], answers[1])
		}
		if i == 1 && !strings.HasPrefix(answers[0], "error: ") {
			t.Errorf("step 1: no conflict: %s", answers[0])
		}
		if i == 2 {
			for _, e := range entries[0] {
				if e.Manager == "b" {
					forced = string(e.FieldsV1.Raw)
				}
			}
		}
	}
	// The entries keep nested merge rules: the atomic selector and match
	// labels are owned whole, rules and headers by key, tags by value,
	// ports' values (objects in a map) key by key; the editor took back
	// h1's value and the labels from b.
	got := map[string]string{"b": forced}
	for _, e := range entries[0] {
		if e.Manager != "b" {
			got[e.Manager] = string(e.FieldsV1.Raw)
		}
	}
	for manager, want := range map[string]string{
		"a": `{"f:spec":{"f:ports":{"f:grpc":{".":{},"f:port":{}}},"f:rules":{"k:{\"name\":\"r2\"}":{".":{},"f:match":{"f:path":{"f:type":{},"f:value":{}}},"f:name":{}}},` +
			`"f:tree":{"f:child":{"f:child":{"f:free":{"f:other":{}}}}}}}`,
		"b": `{"f:spec":{"f:rules":{"k:{\"name\":\"r1\"}":{".":{},"f:match":{"f:headers":{"k:{\"name\":\"h1\"}":{".":{},"f:name":{},"f:value":{}},` +
			`"k:{\"name\":\"h3\"}":{".":{},"f:name":{},"f:value":{}}},"f:labels":{}},"f:name":{},"f:tags":{"v:\"t3\"":{}}}},"f:selector":{}}}`,
	} {
		if got[manager] != want {
			t.Errorf("%s owns\n%s\nwant\n%s", manager, got[manager], want)
		}
	}
	if want := `{"f:spec":{"f:extra":{"f:more":{".":{},"f:x":{}},"f:other":{}},"f:rules":{"k:{\"name\":\"r1\"}":{"f:match":{"f:headers":` +
		`{"k:{\"name\":\"h1\"}":{"f:value":{}}},"f:labels":{}}}},"f:selector":{},"f:tree":{"f:child":{"f:child":{"f:leaf":{}}}}}}`; got["editor"] != want {
		t.Errorf("editor owns\n%s\nwant\n%s", got["editor"], want)
	}
}
