package negotiation

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// testObj is a ConfigMap as a server that keeps encoded objects holds it.
type testObj struct {
	name  string
	data  map[string]string
	json  []byte
	proto []byte
}

var created = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func newTestObj(name, rv string, ts time.Time, data map[string]string, annotations map[string]string) *testObj {
	// The JSON is written by hand-picked fields, not meta.ObjectMeta, so
	// that a zero creationTimestamp stays in it as a stored object may
	// have it.
	type metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		ResourceVersion   string            `json:"resourceVersion"`
		CreationTimestamp time.Time         `json:"creationTimestamp"`
		Annotations       map[string]string `json:"annotations,omitempty"`
	}
	j, err := json.Marshal(struct {
		Kind       string            `json:"kind"`
		APIVersion string            `json:"apiVersion"`
		Metadata   metadata          `json:"metadata"`
		Data       map[string]string `json:"data,omitempty"`
	}{"ConfigMap", "v1", metadata{name, "default", rv, ts, annotations}, data})
	if err != nil {
		panic(err)
	}
	om := meta.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: rv, CreationTimestamp: meta.NewTime(ts), Annotations: annotations}
	return &testObj{name: name, data: data, json: j,
		proto: envelope.AppendEnvelope(nil, "v1", "ConfigMap", meta.AppendObjectMetadata(nil, &om))}
}

func testMeta(o *testObj) Meta {
	m, err := MetaFromJSON(o.json)
	if err != nil {
		panic(err)
	}
	pm, err := MetaFromProtobuf(o.proto)
	if err != nil {
		panic(err)
	}
	m.Proto = pm.Proto
	return m
}

var testConverter = &Converter[*testObj]{
	Meta:   testMeta,
	Object: func(o *testObj) ([]byte, error) { return o.json, nil },
}

var dataConverter = &Converter[*testObj]{
	Meta: testMeta,
	Columns: []Column[*testObj]{
		{Definition: NameColumn(), Cell: func(o *testObj) any { return o.name }},
		{Definition: TableColumnDefinition{Name: "Data", Type: "integer", Description: "Number of keys."}, Cell: func(o *testObj) any { return len(o.data) }},
		{Definition: TableColumnDefinition{Name: "Keys", Type: "string", Priority: 1}, Cell: func(o *testObj) any {
			keys := make([]string, 0, len(o.data))
			for k := range o.data {
				keys = append(keys, k)
			}
			return strings.Join(keys, ",")
		}},
	},
}

const (
	defaultColumnsJSON = `[{"name":"Name","type":"string","format":"name","description":"Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names","priority":0},` +
		`{"name":"Created At","type":"date","format":"","description":"CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata","priority":0}]`
	metaA = `{"name":"a","namespace":"default","resourceVersion":"7","creationTimestamp":"2024-01-02T03:04:05Z"}`
	metaB = `{"name":"b","namespace":"default","resourceVersion":"9","creationTimestamp":"0001-01-01T00:00:00Z"}`
)

func testObjs() []*testObj {
	return []*testObj{
		newTestObj("a", "7", created, map[string]string{"k": "v"}, nil),
		newTestObj("b", "9", time.Time{}, nil, nil),
	}
}

func TestConverterTables(t *testing.T) {
	// The default columns' JSON (k8s.io/apiserver/pkg/registry/rest/table.go)
	// is written with json-escaped "\n\n" in the description.
	cols := strings.ReplaceAll(defaultColumnsJSON, "\n", `\n`)
	remaining := int64(3)
	list := meta.ListMeta{ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining}
	listJSON := `{"resourceVersion":"42","continue":"tok","remainingItemCount":3}`
	partialV1 := func(meta string) string {
		return `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + meta + `}`
	}
	objs := testObjs()
	tests := []struct {
		name    string
		conv    *Converter[*testObj]
		target  Target
		include IncludeObjectPolicy
		objs    []*testObj
		want    string
	}{
		{name: "default columns, metadata", conv: testConverter, target: TargetTable, objs: objs,
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":` + listJSON + `,"columnDefinitions":` + cols + `,"rows":[` +
				`{"cells":["a","2024-01-02T03:04:05Z"],"object":` + partialV1(metaA) + `},` +
				`{"cells":["b","0001-01-01T00:00:00Z"],"object":` + partialV1(metaB) + `}]}`},
		{name: "v1beta1", conv: testConverter, target: TargetTableV1beta1, objs: objs[:1],
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1beta1","metadata":` + listJSON + `,"columnDefinitions":` + cols + `,"rows":[` +
				`{"cells":["a","2024-01-02T03:04:05Z"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1beta1","metadata":` + metaA + `}}]}`},
		{name: "includeObject=None", conv: testConverter, target: TargetTable, include: IncludeNone, objs: objs[:1],
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":` + listJSON + `,"columnDefinitions":` + cols + `,"rows":[` +
				`{"cells":["a","2024-01-02T03:04:05Z"],"object":null}]}`},
		{name: "includeObject=Object", conv: testConverter, target: TargetTable, include: IncludeObject, objs: objs[:1],
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":` + listJSON + `,"columnDefinitions":` + cols + `,"rows":[` +
				`{"cells":["a","2024-01-02T03:04:05Z"],"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":` + metaA + `,"data":{"k":"v"}}}]}`},
		{name: "empty list", conv: testConverter, target: TargetTable, objs: nil,
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":` + listJSON + `,"columnDefinitions":` + cols + `,"rows":null}`},
		// kube-apiserver 1.37 answers "rows":[] for an empty list of
		// ConfigMaps, Secrets, Namespaces or custom resources.
		{name: "empty list, a printer's", conv: &Converter[*testObj]{Meta: testMeta, EmptyRows: true}, target: TargetTable, objs: nil,
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":` + listJSON + `,"columnDefinitions":` + cols + `,"rows":[]}`},
		{name: "user columns", conv: dataConverter, target: TargetTable, objs: objs,
			want: `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":` + listJSON + `,"columnDefinitions":[` +
				cols[1:strings.Index(cols, `},{"name":"Created At"`)+1] + `,` +
				`{"name":"Data","type":"integer","format":"","description":"Number of keys.","priority":0},` +
				`{"name":"Keys","type":"string","format":"","description":"","priority":1}],"rows":[` +
				`{"cells":["a",1,"k"],"object":` + partialV1(metaA) + `},` +
				`{"cells":["b",0,""],"object":` + partialV1(metaB) + `}]}`},
	}
	for _, tt := range tests {
		got, err := tt.conv.EncodeList(Result{MediaType: JSON, Target: tt.target}, tt.include, list, tt.objs)
		if err != nil || string(got) != tt.want+"\n" {
			t.Errorf("%s: EncodeList = %v\n%s\nwant\n%s", tt.name, err, got, tt.want)
		}
		if err == nil && !json.Valid(got) {
			t.Errorf("%s: invalid JSON", tt.name)
		}
	}
}

func TestConverterTableForms(t *testing.T) {
	objs := testObjs()
	list := meta.ListMeta{ResourceVersion: "42"}
	compact, err := testConverter.EncodeList(Result{MediaType: JSON, Target: TargetTable}, IncludeMetadata, list, objs)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(compact, &want); err != nil {
		t.Fatal(err)
	}
	for _, res := range []Result{{MediaType: JSON, Target: TargetTable, Pretty: true}, {MediaType: YAML, Target: TargetTable}} {
		b, err := testConverter.EncodeList(res, IncludeMetadata, list, objs)
		if err != nil {
			t.Fatalf("%+v: %v", res, err)
		}
		if res.Pretty && (!bytes.HasPrefix(b, []byte("{\n  \"kind\": \"Table\",\n")) || bytes.HasSuffix(b, []byte("\n"))) {
			t.Errorf("%+v: not indented without trailing newline:\n%s", res, b)
		}
		if res.MediaType == YAML && !bytes.HasPrefix(b, []byte("apiVersion: meta.k8s.io/v1\ncolumnDefinitions:\n")) {
			t.Errorf("%+v: not YAML:\n%s", res, b)
		}
		j, err := yaml.YAMLToJSON(b)
		if err != nil {
			t.Fatal(err)
		}
		var got any
		if err := json.Unmarshal(j, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v: differs from the JSON Table (-want +got):\n%s", res, diff)
		}
	}
	// Tables have no protobuf form.
	_, err = testConverter.EncodeList(Result{MediaType: Protobuf, Target: TargetTable}, IncludeMetadata, list, objs)
	if !status.IsNotAcceptable(err) || err.Error() != "object *v1.Table does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message" {
		t.Errorf("EncodeList(protobuf Table) = %v", err)
	}
}

func TestConverterObjectAndWatch(t *testing.T) {
	obj := newTestObj("a", "7", created, nil, nil)
	cols := strings.ReplaceAll(defaultColumnsJSON, "\n", `\n`)
	row := `"rows":[{"cells":["a","2024-01-02T03:04:05Z"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + metaA + `}}]}`
	got, err := testConverter.EncodeObject(Result{MediaType: JSON, Target: TargetTable}, IncludeMetadata, obj)
	want := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},"columnDefinitions":` + cols + `,` + row + "\n"
	if err != nil || string(got) != want {
		t.Errorf("EncodeObject(Table) = %v\n%s\nwant\n%s", err, got, want)
	}

	// As in k8s.io/apiserver/pkg/endpoints/handlers/response.go, only the
	// first event of a watch carries the column
	// definitions; events have no trailing newline (the stream frames them).
	enc := testConverter.NewWatchEncoder(Result{MediaType: JSON, Target: TargetTable, Stream: true}, IncludeMetadata)
	for i := range 3 {
		got, err := enc.Encode(obj)
		want := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},"columnDefinitions":null,` + row
		if i == 0 {
			want = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"7"},"columnDefinitions":` + cols + `,` + row
		}
		if err != nil || string(got) != want {
			t.Errorf("event %d: Encode = %v\n%s\nwant\n%s", i, err, got, want)
		}
	}

	// The initial-events-end bookmark's row is always metadata only.
	bm := newTestObj("", "12", time.Time{}, nil, map[string]string{meta.InitialEventsAnnotation: "true"})
	enc = testConverter.NewWatchEncoder(Result{MediaType: JSON, Target: TargetTable, Stream: true}, IncludeObject)
	got, err = enc.Encode(bm)
	if err != nil || !bytes.Contains(got, []byte(`"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"","namespace":"default","resourceVersion":"12","creationTimestamp":"0001-01-01T00:00:00Z","annotations":{"k8s.io/initial-events-end":"true"}}}`)) {
		t.Errorf("bookmark row = %v\n%s", err, got)
	}

	got, err = testConverter.EncodeObject(Result{MediaType: JSON, Target: TargetPartialObjectMetadata}, IncludeMetadata, obj)
	if want := `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + metaA + "}\n"; err != nil || string(got) != want {
		t.Errorf("EncodeObject(PartialObjectMetadata) = %v %s; want %s", err, got, want)
	}
	got, err = testConverter.EncodeObject(Result{MediaType: YAML, Target: TargetPartialObjectMetadataV1beta1}, IncludeMetadata, obj)
	if want := "apiVersion: meta.k8s.io/v1beta1\nkind: PartialObjectMetadata\nmetadata:\n  creationTimestamp: \"2024-01-02T03:04:05Z\"\n  name: a\n  namespace: default\n  resourceVersion: \"7\"\n"; err != nil || string(got) != want {
		t.Errorf("EncodeObject(yaml PartialObjectMetadata) = %v\n%s\nwant\n%s", err, got, want)
	}
	enc = testConverter.NewWatchEncoder(Result{MediaType: JSON, Target: TargetPartialObjectMetadata, Stream: true, Pretty: true}, IncludeMetadata)
	got, err = enc.Encode(obj)
	if want := `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + metaA + "}"; err != nil || string(got) != want {
		t.Errorf("watch PartialObjectMetadata = %v %s; want %s", err, got, want)
	}
}

func TestConverterPartialList(t *testing.T) {
	objs := testObjs()
	list := meta.ListMeta{ResourceVersion: "42", Continue: "tok"}
	got, err := testConverter.EncodeList(Result{MediaType: JSON, Target: TargetPartialObjectMetadataList}, IncludeMetadata, list, objs)
	want := `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"42","continue":"tok"},"items":[` +
		`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + metaA + `},` +
		`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":` + metaB + `}]}` + "\n"
	if err != nil || string(got) != want {
		t.Errorf("EncodeList(PartialObjectMetadataList) = %v\n%s\nwant\n%s", err, got, want)
	}
	got, err = testConverter.EncodeList(Result{MediaType: JSON, Target: TargetPartialObjectMetadataListV1beta1}, IncludeMetadata, meta.ListMeta{}, nil)
	want = `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1beta1","metadata":{},"items":null}` + "\n"
	if err != nil || string(got) != want {
		t.Errorf("EncodeList(empty PartialObjectMetadataList) = %v %s; want %s", err, got, want)
	}
}

func TestConverterPartialProtobuf(t *testing.T) {
	objs := testObjs()
	metas := [][]byte{testMeta(objs[0]).Proto, testMeta(objs[1]).Proto}
	remaining := int64(1)
	list := meta.ListMeta{ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining}

	// A single object: envelope(meta.k8s.io/v1, PartialObjectMetadata,
	// {1: ObjectMeta}).
	got, err := testConverter.EncodeObject(Result{MediaType: Protobuf, Target: TargetPartialObjectMetadata}, IncludeMetadata, objs[0])
	if err != nil {
		t.Fatal(err)
	}
	want := envelope.AppendEnvelope(nil, "meta.k8s.io/v1", "PartialObjectMetadata", append([]byte{0x0a, byte(len(metas[0]))}, metas[0]...))
	if !bytes.Equal(got, want) {
		t.Errorf("EncodeObject(protobuf PartialObjectMetadata) = %x; want %x", got, want)
	}

	for _, target := range []Target{TargetPartialObjectMetadataList, TargetPartialObjectMetadataListV1beta1} {
		got, err := testConverter.EncodeList(Result{MediaType: Protobuf, Target: target}, IncludeMetadata, list, objs)
		if err != nil {
			t.Fatal(err)
		}
		env, err := envelope.ConsumeEnvelope(got)
		if err != nil || env.APIVersion != target.APIVersion() || env.Kind != "PartialObjectMetadataList" {
			t.Fatalf("%v: envelope %+v, %v", target, env, err)
		}
		// Walk the fields in wire order: number order, as Kubernetes.
		metaField, itemField := protoNum(1), protoNum(2)
		if target == TargetPartialObjectMetadataListV1beta1 {
			metaField, itemField = 2, 1
		}
		var order []protoNum
		var items [][]byte
		var lm meta.ListMeta
		err = envelope.RangeFields(env.Raw, func(f envelope.Field) error {
			order = append(order, protoNum(f.Num))
			switch protoNum(f.Num) {
			case metaField:
				var err error
				lm, err = meta.ConsumeListMeta(f.Bytes)
				return err
			case itemField:
				return envelope.RangeFields(f.Bytes, func(g envelope.Field) error {
					if g.Num != 1 {
						return errors.New("unexpected item field " + strconv.Itoa(int(g.Num)))
					}
					items = append(items, g.Bytes)
					return nil
				})
			}
			return errors.New("unexpected field")
		})
		if err != nil {
			t.Fatalf("%v: %v", target, err)
		}
		wantOrder := []protoNum{1, 2, 2}
		if target == TargetPartialObjectMetadataListV1beta1 {
			wantOrder = []protoNum{1, 1, 2}
		}
		if !cmp.Equal(order, wantOrder) || !cmp.Equal(items, metas) || lm.ResourceVersion != "42" || lm.Continue != "tok" || lm.RemainingItemCount == nil || *lm.RemainingItemCount != 1 {
			t.Errorf("%v: fields %v items %x list %+v; want %v %x", target, order, items, lm, wantOrder, metas)
		}
	}

	noProto := &Converter[*testObj]{Meta: func(o *testObj) Meta { m, _ := MetaFromJSON(o.json); return m }}
	if _, err := noProto.EncodeObject(Result{MediaType: Protobuf, Target: TargetPartialObjectMetadata}, IncludeMetadata, objs[0]); !errors.Is(err, ErrNoMetaProto) {
		t.Errorf("EncodeObject without Meta.Proto = %v; want ErrNoMetaProto", err)
	}
	if _, err := noProto.EncodeList(Result{MediaType: Protobuf, Target: TargetPartialObjectMetadataList}, IncludeMetadata, list, objs); !errors.Is(err, ErrNoMetaProto) {
		t.Errorf("EncodeList without Meta.Proto = %v; want ErrNoMetaProto", err)
	}
}

type protoNum int

func TestConverterErrors(t *testing.T) {
	objs := testObjs()
	json := Result{MediaType: JSON}
	if _, err := testConverter.EncodeList(json, IncludeMetadata, meta.ListMeta{}, objs); !errors.Is(err, ErrNoConversion) {
		t.Errorf("EncodeList(no target) = %v; want ErrNoConversion", err)
	}
	if _, err := testConverter.EncodeObject(json, IncludeMetadata, objs[0]); !errors.Is(err, ErrNoConversion) {
		t.Errorf("EncodeObject(no target) = %v; want ErrNoConversion", err)
	}
	json.Target = TargetPartialObjectMetadata
	_, err := testConverter.EncodeList(json, IncludeMetadata, meta.ListMeta{}, objs)
	if !status.IsNotAcceptable(err) || err.Error() != "you requested PartialObjectMetadata, but the requested object is a list ([]*negotiation.testObj)" {
		t.Errorf("EncodeList(PartialObjectMetadata) = %v", err)
	}
	json.Target = TargetPartialObjectMetadataList
	_, err = testConverter.EncodeObject(json, IncludeMetadata, objs[0])
	if !status.IsNotAcceptable(err) || err.Error() != "you requested PartialObjectMetadataList, but the requested object is not a list (*negotiation.testObj)" {
		t.Errorf("EncodeObject(PartialObjectMetadataList) = %v", err)
	}
	noObject := &Converter[*testObj]{Meta: testMeta}
	if _, err := noObject.EncodeList(Result{MediaType: JSON, Target: TargetTable}, IncludeObject, meta.ListMeta{}, objs); !errors.Is(err, ErrNoObjectFunc) {
		t.Errorf("EncodeList(includeObject=Object, no Object func) = %v; want ErrNoObjectFunc", err)
	}
	if _, err := testConverter.Table(TargetPartialObjectMetadata, IncludeMetadata, meta.ListMeta{}, objs); err == nil {
		t.Errorf("Table(PartialObjectMetadata) = nil error")
	}
	badMeta := &Converter[*testObj]{Meta: func(*testObj) Meta { return Meta{JSON: []byte("{")} }}
	if _, err := badMeta.EncodeObject(Result{MediaType: JSON, Target: TargetTable}, IncludeMetadata, objs[0]); err == nil {
		t.Errorf("EncodeObject(bad metadata JSON) = nil error")
	}
}

func TestParseIncludeObject(t *testing.T) {
	tests := []struct {
		in   string
		want IncludeObjectPolicy
		err  string
	}{
		{"", IncludeMetadata, ""},
		{"Metadata", IncludeMetadata, ""},
		{"None", IncludeNone, ""},
		{"Object", IncludeObject, ""},
		{"foo", 0, `Unable to convert to Table as requested: includeObject: Invalid value: "foo": must be 'Metadata', 'Object', 'None', or empty`},
		{"object", 0, `Unable to convert to Table as requested: includeObject: Invalid value: "object": must be 'Metadata', 'Object', 'None', or empty`},
	}
	for _, tt := range tests {
		got, err := ParseIncludeObject(tt.in)
		if tt.err != "" {
			if !status.IsBadRequest(err) || err.Error() != tt.err {
				t.Errorf("ParseIncludeObject(%q) = %v; want 400 %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseIncludeObject(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if tt.in != "" && got.String() != tt.in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if s := IncludeObjectPolicy(9).String(); s != "IncludeObjectPolicy(9)" {
		t.Errorf("String() = %q", s)
	}
}

func TestMetaFrom(t *testing.T) {
	o := newTestObj("a", "7", created, nil, map[string]string{meta.InitialEventsAnnotation: "true"})
	m, err := MetaFromJSON(o.json)
	if err != nil || m.ObjectMeta.Name != "a" || m.ObjectMeta.ResourceVersion != "7" || !m.ObjectMeta.CreationTimestamp.Equal(created) || !m.initialEventsEnd() || !json.Valid(m.JSON) || m.Proto != nil {
		t.Errorf("MetaFromJSON = %+v, %v", m, err)
	}
	p, err := MetaFromProtobuf(o.proto)
	if err != nil || p.ObjectMeta.Name != "a" || p.ObjectMeta.ResourceVersion != "7" || !p.ObjectMeta.CreationTimestamp.Equal(created) || !p.initialEventsEnd() || p.JSON != nil || len(p.Proto) == 0 {
		t.Errorf("MetaFromProtobuf = %+v, %v", p, err)
	}
	for _, in := range []string{`{}`, `{"metadata":null}`, `{"Metadata":{"name":"x"}}`} {
		m, err := MetaFromJSON([]byte(in))
		if err != nil || m.ObjectMeta.Name != "" || m.JSON != nil {
			t.Errorf("MetaFromJSON(%s) = %+v, %v; want empty", in, m, err)
		}
	}
	for _, in := range []string{``, `[`, `{"metadata":{"name":1}}`, `{"metadata":{"creationTimestamp":"yesterday"}}`} {
		if _, err := MetaFromJSON([]byte(in)); err == nil {
			t.Errorf("MetaFromJSON(%s) = nil error", in)
		}
	}
	if _, err := MetaFromProtobuf([]byte("{}")); !errors.Is(err, envelope.ErrPrefix) {
		t.Errorf("MetaFromProtobuf(JSON) = %v; want envelope.ErrPrefix", err)
	}
	if _, err := MetaFromProtobuf(envelope.AppendEnvelope(nil, "v1", "ConfigMap", []byte{0x0a, 0x05})); err == nil {
		t.Errorf("MetaFromProtobuf(truncated) = nil error")
	}
	empty, err := MetaFromProtobuf(envelope.AppendEnvelope(nil, "v1", "ConfigMap", nil))
	if err != nil || empty.Proto == nil || len(empty.Proto) != 0 {
		t.Errorf("MetaFromProtobuf(no metadata) = %+v, %v; want empty non-nil Proto", empty, err)
	}
}

func BenchmarkTable(b *testing.B) {
	objs := make([]*testObj, 500)
	for i := range objs {
		objs[i] = newTestObj("cm-"+strconv.Itoa(i), strconv.Itoa(1000+i), created, map[string]string{"k": "v"}, nil)
	}
	// What a server keeping encoded objects does: read Meta from the
	// cached JSON per row.
	fromJSON := &Converter[*testObj]{Meta: func(o *testObj) Meta { m, _ := MetaFromJSON(o.json); return m }}
	list := meta.ListMeta{ResourceVersion: "2000"}
	for _, bb := range []struct {
		name string
		res  Result
	}{
		{"table-500", Result{MediaType: JSON, Target: TargetTable}},
		{"partial-list-500", Result{MediaType: JSON, Target: TargetPartialObjectMetadataList}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := fromJSON.EncodeList(bb.res, IncludeMetadata, list, objs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
