package envelope

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func fullObjectMeta() ObjectMeta {
	return ObjectMeta{
		Name: "cm", GenerateName: "cm-", Namespace: "default", SelfLink: "/api/v1/x",
		UID: "0b1e", ResourceVersion: "42", Generation: 7,
		CreationTimestamp:          time.Unix(1784710800, 0).UTC(),
		DeletionTimestamp:          ptr(time.Unix(1784710900, 0).UTC()),
		DeletionGracePeriodSeconds: ptr[int64](0),
		Labels:                     map[string]string{"app": "web", "tier": ""},
		Annotations:                map[string]string{"note": "x"},
		OwnerReferences: []OwnerReference{
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "u1", Controller: ptr(true)},
			{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "u2", BlockOwnerDeletion: ptr(false)},
		},
		Finalizers: []string{"kubernetes", "example.com/f"},
		ManagedFields: []ManagedFieldsEntry{
			{Manager: "kubectl", Operation: "Apply", APIVersion: "v1", Time: ptr(time.Unix(5, 0).UTC()),
				FieldsType: "FieldsV1", FieldsV1: []byte(`{"f:data":{}}`), Subresource: "status"},
			{Manager: "m", FieldsV1: []byte{}},
			{},
		},
	}
}

func TestObjectMetaRoundTrip(t *testing.T) {
	for _, m := range []ObjectMeta{{}, {Name: "a"}, fullObjectMeta()} {
		b := AppendObjectMeta(nil, &m)
		if len(b) != SizeObjectMeta(&m) {
			t.Errorf("len = %d; SizeObjectMeta = %d", len(b), SizeObjectMeta(&m))
		}
		got, err := ConsumeObjectMeta(b)
		if err != nil {
			t.Fatalf("ConsumeObjectMeta: %v", err)
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		// Decoded values re-encode to the same bytes.
		if again := AppendObjectMeta(nil, &got); !bytes.Equal(again, b) {
			t.Errorf("re-encoding differs:\n got %x\nwant %x", again, b)
		}
	}
}

// The decoded ObjectMeta must not alias the input: a server keeps it after
// the request buffer is gone.
func TestConsumeObjectMetaCopies(t *testing.T) {
	m := fullObjectMeta()
	b := AppendObjectMeta(nil, &m)
	got, err := ConsumeObjectMeta(b)
	if err != nil {
		t.Fatal(err)
	}
	clear(b)
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("decoded value changed with its input (-want +got):\n%s", diff)
	}
}

func TestConsumeObjectMetaLenient(t *testing.T) {
	// Unknown fields 15, 16, 99 are skipped; the last name wins; a map
	// entry repeated keeps the last value.
	in := "0a0161 7801 8201 00 9806 01 0a0162" +
		"5a06 0a016b 120131 5a06 0a016b 120132"
	got, err := ConsumeObjectMeta(mustHex(t, in))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "b" || got.Labels["k"] != "2" || len(got.Labels) != 1 {
		t.Errorf("got name %q labels %v; want b, {k:2}", got.Name, got.Labels)
	}
}

func TestConsumeObjectMetaErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"name as varint", "0801", ErrMalformed},
		{"generation as bytes", "3a00", ErrMalformed},
		{"creationTimestamp as varint", "4001", ErrMalformed},
		{"deletionTimestamp with bad body", "4a02 0a00", ErrMalformed},
		{"deletionGracePeriodSeconds as bytes", "5200", ErrMalformed},
		{"label entry truncated", "5a02 0a05", io.ErrUnexpectedEOF},
		{"annotations as varint", "6001", ErrMalformed},
		{"ownerReference controller as bytes", "6a02 3200", ErrMalformed},
		{"ownerReference kind as varint", "6a02 0801", ErrMalformed},
		{"finalizer as varint", "7001", ErrMalformed},
		{"managedFields time as varint", "8a01 02 2001", ErrMalformed},
		{"managedFields fieldsV1 raw as varint", "8a01 04 3a02 0801", ErrMalformed},
		{"managedFields manager as varint", "8a01 02 0801", ErrMalformed},
		{"truncated", "0a05 61", io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		if _, err := ConsumeObjectMeta(mustHex(t, tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("%s: ConsumeObjectMeta(%s) = err %v; want %v", tt.name, tt.in, err, tt.want)
		}
	}
}

func TestListMeta(t *testing.T) {
	for _, m := range []ListMeta{{}, {SelfLink: "s", ResourceVersion: "9", Continue: "tok", RemainingItemCount: ptr[int64](0)}} {
		b := AppendListMeta(nil, &m)
		if len(b) != SizeListMeta(&m) {
			t.Errorf("len = %d; SizeListMeta = %d", len(b), SizeListMeta(&m))
		}
		got, err := ConsumeListMeta(b)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
	for _, in := range []string{"0801", "2200", "1205"} {
		if _, err := ConsumeListMeta(mustHex(t, in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeListMeta(%s) = err %v; want ErrMalformed", in, err)
		}
	}
}

// A ConfigMapList: metadata first, then each item as field 2.
func TestList(t *testing.T) {
	items := []configMap{
		{Metadata: ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}},
		{Metadata: ObjectMeta{Name: "b"}},
	}
	lm := ListMeta{ResourceVersion: "12", Continue: "next", RemainingItemCount: ptr[int64](3)}

	b := AppendListMetadata(nil, &lm)
	b = AppendListItem(b, appendConfigMap(nil, &items[0]))
	b = AppendListItemFunc(b, 0, func(b []byte) []byte { return appendConfigMap(b, &items[1]) })

	want := "0a0e 0a00 12023132 1a046e657874 2003" +
		"121b 0a11 0a0161 12001a0022002a00320038004200 12060a016b120176" +
		"1213 0a11 0a0162 12001a0022002a00320038004200"
	if !bytes.Equal(b, mustHex(t, want)) {
		t.Errorf("list = %x; want %s", b, want)
	}

	var got []configMap
	gotMeta, err := ConsumeList(b, func(item []byte) error {
		cm, err := consumeConfigMap(item)
		got = append(got, cm)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lm, gotMeta); diff != "" {
		t.Errorf("list metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(items, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	stop := errors.New("stop")
	if _, err := ConsumeList(b, func([]byte) error { return stop }); err != stop {
		t.Errorf("ConsumeList with failing item func = %v; want its error", err)
	}
	// Repeated list metadata merges, as protobuf requires.
	merged, err := ConsumeList(mustHex(t, "0a04 12023132 0a06 1a046e657874"), nil)
	if err != nil || merged.ResourceVersion != "12" || merged.Continue != "next" {
		t.Errorf("merged list metadata = %+v, %v", merged, err)
	}
	for _, in := range []string{"0801", "1001", "0a02 0801", "12"} {
		if _, err := ConsumeList(mustHex(t, in), func([]byte) error { return nil }); !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeList(%s) = err %v; want ErrMalformed", in, err)
		}
	}
}
