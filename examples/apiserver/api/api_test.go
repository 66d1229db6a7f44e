package api

import (
	"encoding/hex"
	"encoding/json"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

// JSON forms as k8s.io/api v0.37.2 writes them, in the field order of its
// core/v1/types.go.
func TestJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		obj  any
		want string
	}{
		{"ConfigMap{}", &ConfigMap{}, `{"metadata":{}}`},
		{"ConfigMap with all fields", &ConfigMap{Immutable: ptr(false), Data: map[string]string{"k": "v"},
			BinaryData: map[string][]byte{"a": []byte("hi")}},
			`{"metadata":{},"immutable":false,"data":{"k":"v"},"binaryData":{"a":"aGk="}}`},
		{"ConfigMap with TypeMeta and metadata", &ConfigMap{TypeMeta: meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
			ObjectMeta: meta.ObjectMeta{Name: "a", CreationTimestamp: meta.NewTime(time.Unix(1, 5e8))}},
			`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","creationTimestamp":"1970-01-01T00:00:01Z"}}`},
		{"Secret field order", &Secret{Immutable: ptr(true), Data: map[string][]byte{"p": []byte("x")},
			StringData: map[string]string{"s": "y"}, Type: "Opaque"},
			`{"metadata":{},"immutable":true,"data":{"p":"eA=="},"stringData":{"s":"y"},"type":"Opaque"}`},
		{"Widget{}", &Widget{}, `{"metadata":{},"spec":{}}`},
		{"Event{}", &Event{}, `{"metadata":{},"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,` +
			`"eventTime":null,"reportingComponent":"","reportingInstance":""}`},
		{"Event times", &Event{EventTime: meta.MicroTime{Time: time.Unix(1, 2345)}, Series: &EventSeries{Count: 2}},
			`{"metadata":{},"involvedObject":{},"source":{},"firstTimestamp":null,"lastTimestamp":null,` +
				`"eventTime":"1970-01-01T00:00:01.000002Z","series":{"count":2,"lastObservedTime":null},"reportingComponent":"","reportingInstance":""}`},
		{"Widget", &Widget{TypeMeta: meta.TypeMeta{Kind: "Widget", APIVersion: "example.apisem.dev/v1"},
			Spec: WidgetSpec{Color: "red", Size: 3}, Status: WidgetStatus{Ready: true}},
			`{"kind":"Widget","apiVersion":"example.apisem.dev/v1","metadata":{},"spec":{"color":"red","size":3},"status":{"ready":true}}`},
	} {
		got, err := json.Marshal(tt.obj)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: json.Marshal = %s, %v; want %s", tt.name, got, err, tt.want)
		}
	}
}

const emptyMeta = "0a0012001a0022002a00320038004200"

// Protobuf forms as k8s.io/api v0.37.2's generated marshallers write them.
func TestProto(t *testing.T) {
	for _, tt := range []struct {
		name string
		obj  server.ProtoObject
		want string
	}{
		{"ConfigMap{}", &ConfigMap{}, "0a10" + emptyMeta},
		{"ConfigMap{Data, BinaryData with empty and nil, Immutable false}", &ConfigMap{
			Data:       map[string]string{"k": "v"},
			BinaryData: map[string][]byte{"a": {}, "b": nil},
			Immutable:  ptr(false)},
			"0a10" + emptyMeta + "12060a016b120176" + "1a050a01611200" + "1a030a0162" + "2000"},
		{"ConfigMap{Name: a}", &ConfigMap{ObjectMeta: meta.ObjectMeta{Name: "a"}}, "0a11" + "0a016112001a0022002a00320038004200"},
		{"Secret{}", &Secret{}, "0a10" + emptyMeta + "1a00"},
		{"Event{}", &Event{}, "0a10" + emptyMeta + "120e0a0012001a0022002a0032003a00" + "1a002200" + "2a040a001200" +
			"3200" + "3a00" + "4000" + "4a00" + "5200" + "6200" + "7200" + "7a00"},
		// MicroTime{1s, 2345ns} is 080110d00f: nanos truncated to 2000
		// (k8s.io/apimachinery/pkg/apis/meta/v1/micro_time_proto.go).
		{"Event with eventTime", &Event{EventTime: meta.MicroTime{Time: time.Unix(1, 2345)}}, "0a10" + emptyMeta + "120e0a0012001a0022002a0032003a00" +
			"1a002200" + "2a040a001200" + "3200" + "3a00" + "4000" + "4a00" + "5205080110d00f" + "6200" + "7200" + "7a00"},
	} {
		got := hex.EncodeToString(tt.obj.AppendProto(nil))
		if got != tt.want {
			t.Errorf("%s: AppendProto = %s; want %s", tt.name, got, tt.want)
		}
		if n := tt.obj.SizeProto(); n*2 != len(tt.want) {
			t.Errorf("%s: SizeProto = %d; want %d", tt.name, n, len(tt.want)/2)
		}
	}
}

func fullMeta() meta.ObjectMeta {
	del := meta.NewTime(time.Unix(1700000100, 0))
	return meta.ObjectMeta{
		Name: "n", GenerateName: "g-", Namespace: "ns", UID: "u-1", ResourceVersion: "42", Generation: 3,
		CreationTimestamp:          meta.NewTime(time.Unix(1700000000, 0)),
		DeletionTimestamp:          &del,
		DeletionGracePeriodSeconds: ptr(int64(0)),
		Labels:                     map[string]string{"a": "1", "b": ""},
		Annotations:                map[string]string{"x": "y"},
		OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u-0",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false)}},
		Finalizers: []string{"example.com/f"},
		ManagedFields: []meta.ManagedFieldsEntry{{Manager: "kubectl", Operation: "Update", APIVersion: "v1",
			Time: &del, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}},
	}
}

// Every object survives protobuf and JSON round trips unchanged.
func TestRoundTrip(t *testing.T) {
	objs := []server.Object{
		&ConfigMap{ObjectMeta: fullMeta(), Immutable: ptr(true), Data: map[string]string{"k": "v", "e": ""},
			BinaryData: map[string][]byte{"b": {0, 1, 255}, "z": {}}},
		&Secret{ObjectMeta: fullMeta(), Data: map[string][]byte{"p": []byte("pw")}, Type: "kubernetes.io/basic-auth"},
		&Widget{ObjectMeta: fullMeta(), Spec: WidgetSpec{Color: "red", Size: 2, Tags: []string{"a"}}, Status: WidgetStatus{Ready: true}},
		&Event{ObjectMeta: fullMeta(), InvolvedObject: ObjectReference{Kind: "ConfigMap", Namespace: "ns", Name: "n", UID: "u",
			APIVersion: "v1", ResourceVersion: "3", FieldPath: "data"}, Reason: "Seeded", Message: "m", Source: EventSource{Component: "c", Host: "h"},
			FirstTimestamp: meta.NewTime(time.Unix(1700000000, 0)), LastTimestamp: meta.NewTime(time.Unix(1700000001, 0)), Count: 3,
			Type: "Normal", EventTime: meta.MicroTime{Time: time.Unix(1700000002, 123456000).UTC()},
			Series: &EventSeries{Count: 4, LastObservedTime: meta.MicroTime{Time: time.Unix(1700000003, 5000).UTC()}},
			Action: "Seed", Related: &ObjectReference{Kind: "Widget", Name: "w"}, ReportingComponent: "rc", ReportingInstance: "ri"},
	}
	byKind := map[string]*server.Resource{}
	for _, r := range Resources() {
		byKind[r.Kind] = r
	}
	for _, o := range objs {
		r := byKind[kindOf(o)]
		if po, ok := o.(server.ProtoObject); ok {
			b := po.AppendProto(nil)
			back, err := r.DecodeProto(b)
			if err != nil {
				t.Fatalf("%s: DecodeProto: %v", r.Kind, err)
			}
			if d := cmp.Diff(o, back, cmpTime); d != "" {
				t.Errorf("%s: protobuf round trip (-want +got):\n%s", r.Kind, d)
			}
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		back := r.New()
		if err := json.Unmarshal(b, back); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(o, back, cmpTime); d != "" {
			t.Errorf("%s: JSON round trip (-want +got):\n%s", r.Kind, d)
		}
	}
}

var cmpTime = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

func kindOf(o server.Object) string {
	switch o.(type) {
	case *ConfigMap:
		return "ConfigMap"
	case *Secret:
		return "Secret"
	case *Namespace:
		return "Namespace"
	case *Widget:
		return "Widget"
	case *Event:
		return "Event"
	}
	return ""
}

// A deep copy shares nothing: changing every map and slice of the copy
// leaves the original as it was.
func TestDeepCopy(t *testing.T) {
	cm := &ConfigMap{ObjectMeta: fullMeta(), Immutable: ptr(true), Data: map[string]string{"k": "v"},
		BinaryData: map[string][]byte{"b": {1}}}
	want, _ := json.Marshal(cm)
	c := cm.DeepCopyObject().(*ConfigMap)
	c.Labels["a"] = "changed"
	c.Finalizers[0] = "changed"
	c.OwnerReferences[0].Name = "changed"
	*c.OwnerReferences[0].Controller = false
	*c.Immutable = false
	c.Data["k"] = "changed"
	c.BinaryData["b"][0] = 9
	c.DeletionTimestamp.Time = time.Unix(0, 0)
	c.ManagedFields[0].FieldsV1.Raw[0] = 'x'
	if got, _ := json.Marshal(cm); string(got) != string(want) {
		t.Errorf("original changed through its copy:\n%s\nwant\n%s", got, want)
	}

	s := &Secret{Data: map[string][]byte{"a": {1}}, StringData: map[string]string{"s": "t"}}
	sc := s.DeepCopyObject().(*Secret)
	sc.Data["a"][0] = 2
	sc.StringData["s"] = "u"
	if s.Data["a"][0] != 1 || s.StringData["s"] != "t" {
		t.Errorf("secret changed through its copy")
	}
	w := &Widget{Spec: WidgetSpec{Tags: []string{"a"}}}
	w.DeepCopyObject().(*Widget).Spec.Tags[0] = "b"
	if w.Spec.Tags[0] != "a" {
		t.Errorf("widget changed through its copy")
	}
}

func TestValidate(t *testing.T) {
	rs := map[string]*server.Resource{}
	for _, r := range Resources() {
		rs[r.Kind] = r
	}
	for _, tt := range []struct {
		name     string
		kind     string
		obj, old server.Object
		want     []string
	}{
		{"valid configmap", "ConfigMap", &ConfigMap{Data: map[string]string{"a.b_c-d": "x"}}, nil, nil},
		{"bad data key", "ConfigMap", &ConfigMap{Data: map[string]string{"a/b": "x"}}, nil,
			[]string{`data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`}},
		{"dot keys", "ConfigMap", &ConfigMap{Data: map[string]string{"..": "x", "..a": "y"}, BinaryData: map[string][]byte{".": nil}}, nil,
			[]string{`data[..]: Invalid value: "..": must not be '..'`, `data[..a]: Invalid value: "..a": must not start with '..'`,
				`binaryData[.]: Invalid value: ".": must not be '.'`}},
		{"long key", "ConfigMap", &ConfigMap{Data: map[string]string{strings.Repeat("k", 254): "x"}}, nil,
			[]string{`data[` + strings.Repeat("k", 254) + `]: Invalid value: "` + strings.Repeat("k", 254) + `": must be no more than 253 characters`}},
		{"key in data and binaryData", "ConfigMap", &ConfigMap{Data: map[string]string{"k": "x"}, BinaryData: map[string][]byte{"k": nil}}, nil,
			[]string{`data[k]: Invalid value: "k": duplicate of key present in binaryData`}},
		{"configmap of 1 MiB", "ConfigMap", &ConfigMap{Data: map[string]string{"k": strings.Repeat("x", 1<<19)},
			BinaryData: map[string][]byte{"b": make([]byte, 1<<19)}}, nil, nil},
		{"configmap too large", "ConfigMap", &ConfigMap{Data: map[string]string{"k": strings.Repeat("x", 1<<20+1)}}, nil,
			[]string{`[]: Too long: may not be more than 1048576 bytes`}},
		{"immutable configmap", "ConfigMap", &ConfigMap{Data: map[string]string{"k": "2"}},
			&ConfigMap{Immutable: ptr(true), Data: map[string]string{"k": "1"}},
			[]string{"immutable: Forbidden: field is immutable when `immutable` is set", "data: Forbidden: field is immutable when `immutable` is set"}},
		{"immutable configmap binaryData", "ConfigMap", &ConfigMap{Immutable: ptr(true), BinaryData: map[string][]byte{"b": {1}}},
			&ConfigMap{Immutable: ptr(true), BinaryData: map[string][]byte{"b": {2}}},
			[]string{"binaryData: Forbidden: field is immutable when `immutable` is set"}},
		{"immutable configmap unchanged", "ConfigMap", &ConfigMap{Immutable: ptr(true), Data: map[string]string{"k": "1"}},
			&ConfigMap{Immutable: ptr(true), Data: map[string]string{"k": "1"}}, nil},
		{"configmap made immutable", "ConfigMap", &ConfigMap{Immutable: ptr(true), Data: map[string]string{"k": "2"}},
			&ConfigMap{Immutable: ptr(false), Data: map[string]string{"k": "1"}}, nil},
		{"secret type change", "Secret", &Secret{Type: "b"}, &Secret{Type: "a"}, []string{`type: Invalid value: "b": field is immutable`}},
		{"immutable secret", "Secret", &Secret{Type: "a", Immutable: ptr(true), Data: map[string][]byte{"k": {2}}},
			&Secret{Type: "a", Immutable: ptr(true), Data: map[string][]byte{"k": {1}}},
			[]string{"data: Forbidden: field is immutable when `immutable` is set"}},
		{"secret made mutable", "Secret", &Secret{Type: "a"}, &Secret{Type: "a", Immutable: ptr(true)},
			[]string{"immutable: Forbidden: field is immutable when `immutable` is set"}},
		{"secret of 1 MiB", "Secret", &Secret{Data: map[string][]byte{"k": make([]byte, 1<<20)}}, nil, nil},
		{"secret too large", "Secret", &Secret{Data: map[string][]byte{"k": make([]byte, 1<<20+1)}}, nil,
			[]string{`data: Too long: may not be more than 1048576 bytes`}},
		{"tls secret", "Secret", &Secret{Type: SecretTypeTLS}, nil,
			[]string{`data[tls.crt]: Required value`, `data[tls.key]: Required value`}},
		{"dockerconfigjson not an object", "Secret", &Secret{Type: SecretTypeDockerConfigJSON, Data: map[string][]byte{".dockerconfigjson": []byte("[]")}}, nil,
			[]string{`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}`}},
		{"dockercfg missing", "Secret", &Secret{Type: SecretTypeDockercfg}, nil, []string{`data[.dockercfg]: Required value`}},
		{"basic-auth", "Secret", &Secret{Type: SecretTypeBasicAuth}, nil,
			[]string{`data[username]: Required value`, `data[password]: Required value`}},
		{"basic-auth password only", "Secret", &Secret{Type: SecretTypeBasicAuth, Data: map[string][]byte{"password": nil}}, nil, nil},
		{"ssh-auth empty key", "Secret", &Secret{Type: SecretTypeSSHAuth, Data: map[string][]byte{"ssh-privatekey": {}}}, nil,
			[]string{`data[ssh-privatekey]: Required value`}},
		{"service account token", "Secret", &Secret{Type: SecretTypeServiceAccountToken}, nil,
			[]string{`metadata.annotations[kubernetes.io/service-account.name]: Required value`}},
		{"old event in another namespace", "Event", &Event{ObjectMeta: meta.ObjectMeta{Namespace: "a"},
			InvolvedObject: ObjectReference{Namespace: "b"}}, nil,
			[]string{`involvedObject.namespace: Invalid value: "b": does not match event.namespace`}},
		{"old event of a cluster object", "Event", &Event{ObjectMeta: meta.ObjectMeta{Namespace: "default"}}, nil, nil},
		{"new event without reporter", "Event", &Event{ObjectMeta: meta.ObjectMeta{Namespace: "a"},
			EventTime: meta.MicroTime{Time: time.Unix(1, 0)}, Message: strings.Repeat("m", 1025)}, nil,
			[]string{`involvedObject.namespace: Invalid value: "": does not match event.namespace`,
				`reportingComponent: Required value`, `reportingComponent: Invalid value: "": name part must be non-empty`,
				`reportingComponent: Invalid value: "": name part must consist of alphanumeric characters`,
				`reportingInstance: Required value`, `action: Required value`, `reason: Required value`,
				`message: Invalid value: "": can have at most 1024 characters`}},
		{"widget color", "Widget", &Widget{Spec: WidgetSpec{Color: "pink"}}, nil,
			[]string{`spec.color: Unsupported value: "pink": supported values: "blue", "green", "red"`}},
		{"widget size", "Widget", &Widget{Spec: WidgetSpec{Size: -1}}, nil,
			[]string{`spec.size: Invalid value: -1: must be greater than or equal to 0`}},
	} {
		var got []string
		if v := rs[tt.kind].Validate; v != nil {
			for _, e := range v(tt.obj, tt.old) {
				got = append(got, e.Error())
			}
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: errors %q; want %q", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tt.want[i]) {
				t.Errorf("%s: error %d = %q; want prefix %q", tt.name, i, got[i], tt.want[i])
			}
		}
	}
}

func TestPrepare(t *testing.T) {
	rs := map[string]*server.Resource{}
	for _, r := range Resources() {
		rs[r.Kind] = r
	}
	s := &Secret{StringData: map[string]string{"a": "x"}, Data: map[string][]byte{"a": []byte("old"), "b": []byte("y")}}
	rs["Secret"].Default(s)
	if s.Type != "Opaque" || string(s.Data["a"]) != "x" || string(s.Data["b"]) != "y" || s.StringData != nil {
		t.Errorf("defaulted secret: %+v", s)
	}

}

// The validation of every ConfigMap, Secret and Event write: a valid
// object allocates nothing (but for decoding a docker config), since keys
// are sorted only to report bad ones.
func BenchmarkValidate(b *testing.B) {
	rs := map[string]*server.Resource{}
	for _, r := range Resources() {
		rs[r.Kind] = r
	}
	data := map[string]string{}
	for i := range 10 {
		data["key-"+strconv.Itoa(i)] = "value"
	}
	for _, bc := range []struct {
		name     string
		obj, old server.Object
	}{
		{"ConfigMap", &ConfigMap{Data: data}, nil},
		{"ConfigMapUpdate", &ConfigMap{Data: data, Immutable: ptr(true)}, &ConfigMap{Data: data, Immutable: ptr(true)}},
		{"SecretTLS", &Secret{Type: SecretTypeTLS, Data: map[string][]byte{"tls.crt": []byte("c"), "tls.key": []byte("k")}}, nil},
		{"SecretDockerConfigJSON", &Secret{Type: SecretTypeDockerConfigJSON,
			Data: map[string][]byte{".dockerconfigjson": []byte(`{"auths":{"registry.example.com":{"auth":"dXNlcjpwYXNz"}}}`)}}, nil},
		{"Event", &Event{ObjectMeta: meta.ObjectMeta{Namespace: "default"}, EventTime: meta.MicroTime{Time: time.Unix(1, 0)},
			ReportingComponent: "kubelet", ReportingInstance: "node-1", Action: "Start", Reason: "Started"}, nil},
	} {
		validate := rs[Kind(bc.obj)].Validate
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if errs := validate(bc.obj, bc.old); len(errs) > 0 {
					b.Fatal(errs)
				}
			}
		})
	}
}
