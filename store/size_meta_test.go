package store

import (
	"reflect"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
)

// metaSizeBehind is the reflective walk of an ObjectMeta, written out:
// the two agree on metadata of every member, set, empty and nil.
func TestMetaSizeBehind(t *testing.T) {
	// A member added to these types must be added to metaSizeBehind.
	for typ, n := range map[reflect.Type]int{
		objectMetaType:                             15,
		reflect.TypeFor[meta.OwnerReference]():     6,
		reflect.TypeFor[meta.ManagedFieldsEntry](): 7,
		reflect.TypeFor[meta.FieldsV1]():           1,
	} {
		if typ.NumField() != n {
			t.Errorf("%v has %d fields, metaSizeBehind knows %d", typ, typ.NumField(), n)
		}
	}
	yes := true
	secs := int64(30)
	now := meta.NewTime(time.Unix(1e9, 0))
	full := meta.ObjectMeta{Name: "n", GenerateName: "g-", Namespace: "ns", SelfLink: "/x", UID: "u", ResourceVersion: "12",
		Generation: 3, CreationTimestamp: now, DeletionTimestamp: &now, DeletionGracePeriodSeconds: &secs,
		Labels: map[string]string{"a": "b", "cc": ""}, Annotations: map[string]string{"k": "vvv"},
		OwnerReferences: append(make([]meta.OwnerReference, 0, 3), meta.OwnerReference{APIVersion: "v1", Kind: "K", Name: "o", UID: "1", Controller: &yes},
			meta.OwnerReference{Name: "p", BlockOwnerDeletion: &yes}),
		Finalizers: append(make([]string, 0, 4), "f", "gg"),
		ManagedFields: []meta.ManagedFieldsEntry{{Manager: "m", Operation: "Update", APIVersion: "v1", Time: &now, FieldsType: "FieldsV1",
			FieldsV1: &meta.FieldsV1{Raw: append(make([]byte, 0, 40), `{"f:data":{}}`...)}, Subresource: "status"},
			{FieldsV1: &meta.FieldsV1{}}, {}}}
	for _, m := range []meta.ObjectMeta{
		{},
		full,
		{Labels: map[string]string{}, OwnerReferences: []meta.OwnerReference{}, Finalizers: []string{}, ManagedFields: []meta.ManagedFieldsEntry{}},
		{Name: "only"},
	} {
		if got, want := metaSizeBehind(&m), structSizeBehind(reflect.ValueOf(&m).Elem(), 0); got != want {
			t.Errorf("metaSizeBehind(%+v) = %d; the walk counts %d", m, got, want)
		}
	}
}
