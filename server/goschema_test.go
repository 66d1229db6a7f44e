package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
	"github.com/google/go-cmp/cmp"
)

// toy is a type with every kind of member the derivation knows.
type toy struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	toyBase
	toyNamed `json:"named,omitempty"`
	Hidden   int        `json:"hidden,omitempty"` // shallower than toyBase's: wins
	Spec     toySpec    `json:"spec"`
	Status   *toyStatus `json:"status,omitempty"`
}

type toyBase struct {
	Shared string `json:"shared,omitempty"`
	Hidden string `json:"hidden,omitempty"`
}

// toyNamed is embedded with a json name: a member, not promoted.
type toyNamed struct {
	Shared string `json:"shared,omitempty"`
}

type toySpec struct {
	Color    string            `json:"color,omitempty" doc:"The color." apisem:"enum=red|blue"`
	Size     int32             `json:"size"`
	Count    int               `json:"count,string,omitempty"`
	Ratio    float64           `json:"ratio,omitempty"`
	Data     []byte            `json:"data,omitempty"`
	Labels   map[string]string `json:"labels,omitempty" apisem:"mapType=atomic"`
	Ports    []toyPort         `json:"ports,omitempty" apisem:"listType=map,listMapKeys=name|protocol"`
	Hosts    []string          `json:"hosts,omitempty" patchStrategy:"merge"`
	Tree     *toyNode          `json:"tree,omitempty"`
	When     meta.Time         `json:"when,omitzero"`
	Started  time.Time         `json:"started,omitzero"`
	Timeout  time.Duration     `json:"timeout,omitempty"`
	Raw      json.RawMessage   `json:"raw,omitempty"`
	Any      any               `json:"any,omitempty"`
	Inline   struct{ A bool }  `json:"inline,omitempty"`
	Optional string            `json:"optional" apisem:"optional"`
	Needed   string            `json:"needed,omitempty" apisem:"required"`
	Template meta.ObjectMeta   `json:"template,omitempty" doc:"The metadata of what is made."`
	Skipped  string            `json:"-"`
	NoTag    uint8
	private  string
}

type toyPort struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol,omitempty"`
}

// toyNode refers to itself: the derivation ends at its definition.
type toyNode struct {
	Children []toyNode `json:"children,omitempty"`
	Parent   *toyNode  `json:"parent,omitempty"`
}

type toyStatus struct {
	Ready bool `json:"ready"`
}

func (o *toy) Types() *meta.TypeMeta  { return &o.TypeMeta }
func (o *toy) DeepCopyObject() Object { c := *o; return &c }

func toyResource() *Resource {
	return &Resource{Group: "toys.example.com", Version: "v1", Kind: "Toy", ListKind: "ToyList",
		Plural: "toys", Namespaced: true, New: func() Object { return &toy{} }}
}

// A Go type's schema, member by member, as kubectl explain and server-side
// apply see it.
func TestDerivedSchema(t *testing.T) {
	s, defs, err := derivedSchema(toyResource())
	if err != nil {
		t.Fatal(err)
	}
	const p = "com.github.apisem.apisem.server."
	wantTop := &openapi.Schema{Type: "object", Required: []string{"spec"}, Properties: map[string]*openapi.Schema{
		"apiVersion": apiVersionProperty,
		"kind":       kindProperty,
		"metadata":   metadataProperty,
		"shared":     {Type: "string"},
		"named":      {Ref: p + "toyNamed"},
		"hidden":     {Type: "integer", Format: "int64"},
		"spec":       {Ref: p + "toySpec"},
		"status":     {Ref: p + "toyStatus"},
	}}
	wantDefs := map[string]*openapi.Schema{
		p + "toySpec": {Type: "object", Required: []string{"NoTag", "needed", "size"}, Properties: map[string]*openapi.Schema{
			"color":   {Type: "string", Description: "The color.", Enum: []string{"red", "blue"}},
			"size":    {Type: "integer", Format: "int32"},
			"count":   {Type: "string"},
			"ratio":   {Type: "number", Format: "double"},
			"data":    {Type: "string", Format: "byte"},
			"labels":  {Type: "object", AdditionalProperties: &openapi.Schema{Type: "string"}, MapType: "atomic"},
			"ports":   {Type: "array", Items: &openapi.Schema{Ref: p + "toyPort"}, ListType: "map", ListMapKeys: []string{"name", "protocol"}},
			"hosts":   {Type: "array", Items: &openapi.Schema{Type: "string"}, PatchStrategy: "merge"},
			"tree":    {Ref: p + "toyNode"},
			"when":    {Ref: openapi.TimeSchema},
			"started": {Type: "string", Format: "date-time"},
			"timeout": {Type: "integer", Format: "int64"},
			"raw":     {PreserveUnknownFields: true},
			"any":     {PreserveUnknownFields: true},
			"inline": {Type: "object", Required: []string{"A"}, Properties: map[string]*openapi.Schema{
				"A": {Type: "boolean"}}},
			"optional": {Type: "string"},
			"needed":   {Type: "string"},
			"template": {Ref: openapi.ObjectMetaSchema, Default: map[string]any{}, Description: "The metadata of what is made."},
			"NoTag":    {Type: "integer", Format: "int32"},
		}},
		p + "toyNamed": {Type: "object", Properties: map[string]*openapi.Schema{"shared": {Type: "string"}}},
		p + "toyPort": {Type: "object", Required: []string{"name"}, Properties: map[string]*openapi.Schema{
			"name": {Type: "string"}, "protocol": {Type: "string"}}},
		p + "toyNode": {Type: "object", Properties: map[string]*openapi.Schema{
			"children": {Type: "array", Items: &openapi.Schema{Ref: p + "toyNode"}},
			"parent":   {Ref: p + "toyNode"}}},
		p + "toyStatus": {Type: "object", Required: []string{"ready"}, Properties: map[string]*openapi.Schema{
			"ready": {Type: "boolean"}}},
	}
	if d := cmp.Diff(wantTop, s); d != "" {
		t.Errorf("schema (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantDefs, defs); d != "" {
		t.Errorf("definitions (-want +got):\n%s", d)
	}
	// The definitions resolve, and the smd type accepts the type's own
	// encoding, nulls of members without omitempty included.
	v2 := toyResource()
	v2.Version = "v2" // one Go type in two versions: one set of definitions
	if _, err := buildDefinitions([]*Resource{toyResource(), v2}); err != nil {
		t.Fatal(err)
	}
	pt, err := applyType(toyResource())
	if err != nil {
		t.Fatal(err)
	}
	m, err := objectMap(&toy{ObjectMeta: meta.ObjectMeta{Name: "t"}, Spec: toySpec{Tree: &toyNode{Children: []toyNode{{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pt.FromUnstructured(m); err != nil {
		t.Errorf("the type's own encoding: %v\n%v", err, m)
	}
}

// A type that encodes itself has no schema to derive: it stays an object
// of any fields, with the deduced apply type.
func TestDerivedSchemaOfUnstructured(t *testing.T) {
	r := UnstructuredResource(Resource{Group: "g.example.com", Version: "v1", Kind: "U", ListKind: "UList", Plural: "us"})
	if s, _, err := derivedSchema(r); s != nil || err != nil {
		t.Errorf("derivedSchema = %v, %v; want none", s, err)
	}
}

type badChan struct {
	meta.ObjectMeta `json:"metadata"`
	C               chan int `json:"c"`
}

type badTag[T any] struct {
	meta.ObjectMeta `json:"metadata"`
	F               T
}

func (o *badChan) Types() *meta.TypeMeta    { return &meta.TypeMeta{} }
func (o *badChan) DeepCopyObject() Object   { return o }
func (o *badTag[T]) Types() *meta.TypeMeta  { return &meta.TypeMeta{} }
func (o *badTag[T]) DeepCopyObject() Object { return o }

// What cannot be derived fails New, naming the member.
func TestDerivedSchemaErrors(t *testing.T) {
	type toyPort struct { // a function's, named as the package's
		Name string `json:"name"`
	}
	type twoPorts struct {
		A toyPort    `json:"a"`
		B pkgToyPort `json:"b"`
	}
	type tagged struct {
		Enum int `json:"enum" apisem:"enum=1|2"`
	}
	for _, tt := range []struct {
		name string
		new  func() Object
		want string
	}{
		{"a channel", func() Object { return &badChan{} }, "server: the schema of K from Go type server.badChan: K.c: type chan int has no JSON form"},
		{"two types of one name in one package", func() Object { return &badTag[twoPorts]{} }, "K.F: twoPorts.b: two types are named toyPort"},
		{"enum on an integer", func() Object { return &badTag[struct{ T tagged }]{} }, `.enum: apisem tag option "enum=1|2" does not apply to a field of type int`},
		{"listType=map without keys", func() Object {
			return &badTag[struct {
				M struct {
					MapList []string `json:"mapList" apisem:"listType=map"`
				}
			}]{}
		}, `.mapList: apisem tag "listType=map": listType=map goes with listMapKeys`},
		{"keys without listType=map", func() Object {
			return &badTag[struct {
				M struct {
					Keys []string `json:"keys" apisem:"listMapKeys=a"`
				}
			}]{}
		}, `.keys: apisem tag "listMapKeys=a": listType=map goes with listMapKeys`},
		{"an unknown option", func() Object {
			return &badTag[struct {
				M struct {
					B string `apisem:"bogus"`
				}
			}]{}
		}, `.B: apisem tag option "bogus" does not apply`},
		{"patchStrategy on a string", func() Object {
			return &badTag[struct {
				M struct {
					S string `patchStrategy:"merge"`
				}
			}]{}
		}, `.S: patchStrategy on a string`},
	} {
		r := &Resource{Group: "g.example.com", Version: "v1", Kind: "K", ListKind: "KList", Plural: "ks", New: tt.new}
		_, err := New(Options{Resources: []*Resource{r}})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New: %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// pkgToyPort is the package's toyPort, for a test whose local toyPort
// hides it.
type pkgToyPort = toyPort

// The derivation runs for every resource without a Schema whenever the
// served resources change; this is its cost for one resource of toy's
// size.
func BenchmarkDerivedSchema(b *testing.B) {
	b.ReportAllocs()
	r := toyResource()
	for b.Loop() {
		if _, _, err := derivedSchema(r); err != nil {
			b.Fatal(err)
		}
	}
}
