package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestObjectMetaJSON(t *testing.T) {
	zero := Time{}
	grace := int64(0)
	yes := true
	for _, tt := range []struct {
		name string
		in   ObjectMeta
		want string
	}{
		{"empty", ObjectMeta{}, `{}`},
		{"creationTimestamp in whole seconds", ObjectMeta{Name: "a", CreationTimestamp: NewTime(time.Unix(1, 500_000_000))},
			`{"name":"a","creationTimestamp":"1970-01-01T00:00:01Z"}`},
		{"zero deletionTimestamp pointer is null", ObjectMeta{DeletionTimestamp: &zero, DeletionGracePeriodSeconds: &grace},
			`{"deletionTimestamp":null,"deletionGracePeriodSeconds":0}`},
		{"field order", ObjectMeta{
			Name: "n", GenerateName: "g", Namespace: "ns", SelfLink: "s", UID: "u", ResourceVersion: "1", Generation: 2,
			Labels: map[string]string{"b": "2", "a": "1"}, Annotations: map[string]string{"x": "y"},
			OwnerReferences: []OwnerReference{{Controller: &yes}}, Finalizers: []string{"f"},
			ManagedFields: []ManagedFieldsEntry{{Manager: "m", FieldsType: "FieldsV1", FieldsV1: &FieldsV1{Raw: []byte(`{"f:data":{}}`)}}},
		}, `{"name":"n","generateName":"g","namespace":"ns","selfLink":"s","uid":"u","resourceVersion":"1","generation":2,` +
			`"labels":{"a":"1","b":"2"},"annotations":{"x":"y"},"ownerReferences":[{"apiVersion":"","kind":"","name":"","uid":"","controller":true}],` +
			`"finalizers":["f"],"managedFields":[{"manager":"m","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]}`},
	} {
		b, err := json.Marshal(tt.in)
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: Marshal = %s, %v\nwant %s", tt.name, b, err, tt.want)
			continue
		}
		var back ObjectMeta
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%s: Unmarshal: %v", tt.name, err)
			continue
		}
		if tt.in.DeletionTimestamp != nil && tt.in.DeletionTimestamp.IsZero() {
			continue // null decodes to a nil pointer, as in Kubernetes
		}
		if b2, _ := json.Marshal(back); string(b2) != tt.want {
			t.Errorf("%s: round trip = %s", tt.name, b2)
		}
	}
	var m ObjectMeta
	if err := json.Unmarshal([]byte(`{"creationTimestamp":null,"deletionTimestamp":"2026-07-24T10:00:00.25Z"}`), &m); err != nil {
		t.Fatal(err)
	}
	if !m.CreationTimestamp.IsZero() || !m.DeletionTimestamp.Equal(time.Date(2026, 7, 24, 10, 0, 0, 250_000_000, time.UTC)) {
		t.Errorf("Unmarshal = %+v", m)
	}
	if err := json.Unmarshal([]byte(`{"creationTimestamp":"yesterday"}`), &m); err == nil {
		t.Errorf("a bad timestamp was accepted")
	}
}

func TestObjectMetaDeepCopy(t *testing.T) {
	now := NewTime(epoch)
	grace := int64(5)
	yes := true
	m := &ObjectMeta{
		Name: "a", DeletionTimestamp: &now, DeletionGracePeriodSeconds: &grace,
		Labels: map[string]string{"a": "b"}, Annotations: map[string]string{"c": "d"},
		OwnerReferences: []OwnerReference{{Name: "o", Controller: &yes, BlockOwnerDeletion: &yes}},
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
	if got := mustJSON(m); got != want {
		t.Errorf("original changed through its copy:\n%s\nwant\n%s", got, want)
	}
	if (*ObjectMeta)(nil).DeepCopy() != nil {
		t.Errorf("DeepCopy(nil) != nil")
	}
}

func TestNewPanicsWithoutDeepCopy(t *testing.T) {
	type plain struct{ ObjectMeta }
	defer func() {
		if recover() == nil {
			t.Errorf("New accepted a type without DeepCopy and no Options.DeepCopy")
		}
	}()
	New(Options[*plain]{})
}

// FuzzObjectMetaJSON decodes untrusted metadata: it must never panic, and
// what decodes must encode and decode again to the same JSON.
func FuzzObjectMetaJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"name":"a","creationTimestamp":"2026-07-24T10:00:00Z"}`,
		`{"deletionTimestamp":null,"creationTimestamp":null}`,
		`{"managedFields":[{"fieldsV1":{"f:a":{}},"time":"2026-07-24T10:00:00.5+02:00"}]}`,
		`{"ownerReferences":[{"controller":true}],"labels":{"a":"b"},"finalizers":["x"]}`,
		`{"creationTimestamp":"bad"}`, `{"managedFields":[{"fieldsV1":[1,2]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var m ObjectMeta
		if json.Unmarshal(in, &m) != nil {
			return
		}
		b, err := json.Marshal(&m)
		if err != nil {
			// A decoded time beyond year 9999 cannot be written back, as
			// in Kubernetes; anything else is a bug.
			if !strings.Contains(err.Error(), "year outside of range") {
				t.Fatalf("Marshal after Unmarshal(%q): %v", in, err)
			}
			return
		}
		var m2 ObjectMeta
		if err := json.Unmarshal(b, &m2); err != nil {
			t.Fatalf("Unmarshal(%s) of our own output: %v", b, err)
		}
		if b2, _ := json.Marshal(&m2); string(b2) != string(b) {
			t.Fatalf("not stable: %s then %s", b, b2)
		}
	})
}
