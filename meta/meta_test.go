package meta

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The JSON rows are what encoding/json writes for the same values of
// k8s.io/apimachinery's metav1 types (v0.37).
func TestJSON(t *testing.T) {
	zero := Time{}
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"empty ObjectMeta", ObjectMeta{}, `{}`},
		{"creationTimestamp in whole seconds", ObjectMeta{Name: "a", CreationTimestamp: NewTime(time.Unix(1, 500_000_000))},
			`{"name":"a","creationTimestamp":"1970-01-01T00:00:01Z"}`},
		{"zero deletionTimestamp pointer is null", ObjectMeta{DeletionTimestamp: &zero, DeletionGracePeriodSeconds: ptr[int64](0)},
			`{"deletionTimestamp":null,"deletionGracePeriodSeconds":0}`},
		{"ObjectMeta field order", ObjectMeta{
			Name: "n", GenerateName: "g", Namespace: "ns", SelfLink: "s", UID: "u", ResourceVersion: "1", Generation: 2,
			Labels: map[string]string{"b": "2", "a": "1"}, Annotations: map[string]string{"x": "y"},
			OwnerReferences: []OwnerReference{{Controller: ptr(true)}}, Finalizers: []string{"f"},
			ManagedFields: []ManagedFieldsEntry{{Manager: "m", FieldsType: "FieldsV1", FieldsV1: &FieldsV1{Raw: []byte(`{"f:data":{}}`)}}},
		}, `{"name":"n","generateName":"g","namespace":"ns","selfLink":"s","uid":"u","resourceVersion":"1","generation":2,` +
			`"labels":{"a":"1","b":"2"},"annotations":{"x":"y"},"ownerReferences":[{"apiVersion":"","kind":"","name":"","uid":"","controller":true}],` +
			`"finalizers":["f"],"managedFields":[{"manager":"m","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]}`},
		{"empty OwnerReference keeps its four strings", OwnerReference{}, `{"apiVersion":"","kind":"","name":"","uid":""}`},
		{"empty FieldsV1 is null", ManagedFieldsEntry{FieldsV1: &FieldsV1{}}, `{"fieldsV1":null}`},
		{"empty ListMeta", ListMeta{}, `{}`},
		{"ListMeta field order", ListMeta{SelfLink: "s", ResourceVersion: "5", Continue: "c", RemainingItemCount: ptr[int64](0)},
			`{"selfLink":"s","resourceVersion":"5","continue":"c","remainingItemCount":0}`},
		{"TypeMeta", TypeMeta{Kind: "ConfigMap", APIVersion: "v1"}, `{"kind":"ConfigMap","apiVersion":"v1"}`},
		{"empty TypeMeta", TypeMeta{}, `{}`},
		{"MicroTime has six fraction digits in UTC", MicroTime{time.Date(2026, 7, 24, 12, 0, 0, 1_500, time.FixedZone("x", 7200))},
			`"2026-07-24T10:00:00.000001Z"`},
		{"zero MicroTime is null", MicroTime{}, `null`},
	}
	for _, tt := range tests {
		if got := mustJSON(t, tt.in); got != tt.want {
			t.Errorf("%s: Marshal(%+v) = %s; want %s", tt.name, tt.in, got, tt.want)
			continue
		}
		back := reflect.New(reflect.TypeOf(tt.in))
		if err := json.Unmarshal([]byte(tt.want), back.Interface()); err != nil {
			t.Errorf("%s: Unmarshal(%s): %v", tt.name, tt.want, err)
			continue
		}
		if strings.Contains(tt.want, "null") && tt.name != "zero MicroTime is null" {
			continue // null decodes to a nil pointer, as in Kubernetes
		}
		if got := mustJSON(t, back.Elem().Interface()); got != tt.want {
			t.Errorf("%s: round trip = %s; want %s", tt.name, got, tt.want)
		}
	}
}

func TestUnmarshalJSON(t *testing.T) {
	var m ObjectMeta
	if err := json.Unmarshal([]byte(`{"creationTimestamp":null,"deletionTimestamp":"2026-07-24T10:00:00.25Z"}`), &m); err != nil {
		t.Fatal(err)
	}
	if !m.CreationTimestamp.IsZero() || !m.DeletionTimestamp.Equal(time.Date(2026, 7, 24, 10, 0, 0, 250_000_000, time.UTC)) {
		t.Errorf("Unmarshal = %+v; want a zero creationTimestamp and the fraction kept", m)
	}
	for _, in := range []string{`{"creationTimestamp":"yesterday"}`, `{"creationTimestamp":1}`} {
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("Unmarshal(%s) accepted a bad timestamp", in)
		}
	}
	var mt MicroTime
	for _, in := range []string{`"yesterday"`, `1`} {
		if err := json.Unmarshal([]byte(in), &mt); err == nil {
			t.Errorf("Unmarshal(%s) into MicroTime accepted a bad time", in)
		}
	}
	if err := json.Unmarshal([]byte(`null`), &mt); err != nil || !mt.IsZero() {
		t.Errorf("Unmarshal(null) into MicroTime = %v, %v; want zero", mt, err)
	}
}

func TestObjectMetaDeepCopy(t *testing.T) {
	now := NewTime(time.Date(2026, 7, 24, 10, 0, 0, 0, time.UTC))
	m := &ObjectMeta{
		Name: "a", DeletionTimestamp: &now, DeletionGracePeriodSeconds: ptr[int64](5),
		Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"},
		OwnerReferences: []OwnerReference{{Name: "o", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
		Finalizers:      []string{"f"},
		ManagedFields:   []ManagedFieldsEntry{{Manager: "m", Time: &now, FieldsV1: &FieldsV1{Raw: []byte(`{}`)}}},
	}
	c := m.DeepCopy()
	if !reflect.DeepEqual(m, c) {
		t.Fatalf("copy differs: %+v", c)
	}
	c.DeletionTimestamp.Time = time.Time{}
	*c.DeletionGracePeriodSeconds = 0
	c.Labels["a"] = "x"
	c.Annotations["c"] = "x"
	c.OwnerReferences[0].Name = "x"
	*c.OwnerReferences[0].Controller = false
	*c.OwnerReferences[0].BlockOwnerDeletion = false
	c.Finalizers[0] = "x"
	c.ManagedFields[0].Time.Time = time.Time{}
	c.ManagedFields[0].FieldsV1.Raw[0] = 'x'
	want := `{"name":"a","deletionTimestamp":"2026-07-24T10:00:00Z","deletionGracePeriodSeconds":5,"labels":{"a":"b"},"annotations":{"c":"d"},` +
		`"ownerReferences":[{"apiVersion":"","kind":"","name":"o","uid":"","controller":true,"blockOwnerDeletion":true}],"finalizers":["f"],` +
		`"managedFields":[{"manager":"m","time":"2026-07-24T10:00:00Z","fieldsV1":{}}]}`
	if got := mustJSON(t, m); got != want {
		t.Errorf("original changed through its copy:\n%s\nwant\n%s", got, want)
	}
	if (*ObjectMeta)(nil).DeepCopy() != nil {
		t.Errorf("(*ObjectMeta)(nil).DeepCopy() != nil")
	}
	if m.Meta() != m {
		t.Errorf("Meta() does not return its receiver")
	}

	lm := &ListMeta{Continue: "c", RemainingItemCount: ptr[int64](3)}
	lc := lm.DeepCopy()
	*lc.RemainingItemCount = 4
	if *lm.RemainingItemCount != 3 || lc.Continue != "c" {
		t.Errorf("ListMeta.DeepCopy shares its count: %d", *lm.RemainingItemCount)
	}
	if (*ListMeta)(nil).DeepCopy() != nil {
		t.Errorf("(*ListMeta)(nil).DeepCopy() != nil")
	}
}
