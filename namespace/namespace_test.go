package namespace_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/namespace"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func ptr[T any](v T) *T { return &v }

// JSON forms as k8s.io/api v0.37.2 writes them.
func TestJSON(t *testing.T) {
	for _, tt := range []struct {
		name string
		obj  any
		want string
	}{
		{"Namespace{}", &namespace.Namespace{}, `{"metadata":{},"spec":{},"status":{}}`},
		{"Condition{}", &namespace.Condition{}, `{"type":"","status":"","lastTransitionTime":null}`},
		{"Namespace with finalizers", &namespace.Namespace{Spec: namespace.Spec{Finalizers: []string{"kubernetes"}},
			Status: namespace.Status{Phase: "Active"}},
			`{"metadata":{},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`},
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
		obj  *namespace.Namespace
		want string
	}{
		{"Namespace{}", &namespace.Namespace{}, "0a10" + emptyMeta + "1200" + "1a020a00"},
		{"an empty condition", &namespace.Namespace{Status: namespace.Status{Conditions: []namespace.Condition{{}}}},
			"0a10" + emptyMeta + "1200" + "1a0e0a00120a" + "0a00120022002a003200"},
		{"finalizer and phase", &namespace.Namespace{Spec: namespace.Spec{Finalizers: []string{"kubernetes"}},
			Status: namespace.Status{Phase: "Active"}},
			"0a10" + emptyMeta + "120c0a0a" + hex.EncodeToString([]byte("kubernetes")) + "1a080a06" + hex.EncodeToString([]byte("Active"))},
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

func full() *namespace.Namespace {
	del := meta.NewTime(time.Unix(1700000100, 0))
	return &namespace.Namespace{ObjectMeta: meta.ObjectMeta{
		Name: "n", UID: "u-1", ResourceVersion: "42", Generation: 3,
		CreationTimestamp: meta.NewTime(time.Unix(1700000000, 0)), DeletionTimestamp: &del,
		DeletionGracePeriodSeconds: ptr(int64(0)),
		Labels:                     map[string]string{"a": "1"},
		OwnerReferences: []meta.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "u-0",
			Controller: ptr(true), BlockOwnerDeletion: ptr(false)}},
		Finalizers: []string{"example.com/f"},
	},
		Spec: namespace.Spec{Finalizers: []string{"kubernetes"}},
		Status: namespace.Status{Phase: "Terminating", Conditions: []namespace.Condition{
			{Type: namespace.ConditionContentRemaining, Status: "True", LastTransitionTime: meta.NewTime(time.Unix(1700000200, 0)),
				Reason: "SomeResourcesRemain", Message: "Some resources are remaining: configmaps has 1 resource instances"},
		}}}
}

// A namespace survives protobuf and JSON round trips unchanged, and its
// copy shares nothing with it.
func TestRoundTrip(t *testing.T) {
	// The subresource a write observed is the server's, not the object's.
	ignore := cmpopts.IgnoreUnexported(namespace.Namespace{})
	n := full()
	o, err := namespace.DecodeProto(n.AppendProto(nil))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(n, o, ignore); d != "" {
		t.Errorf("protobuf round trip (-want +got):\n%s", d)
	}
	b, _ := json.Marshal(n)
	var j namespace.Namespace
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(n, &j, ignore); d != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", d)
	}
	c := n.DeepCopy()
	c.Spec.Finalizers[0] = "x"
	c.Status.Conditions[0].Type = "B"
	c.Labels["a"] = "2"
	if d := cmp.Diff(full(), n, ignore); d != "" {
		t.Errorf("original changed through its copy (-want +got):\n%s", d)
	}
}

// FuzzDecodeProto: decoding arbitrary bytes must not panic, must fail only
// with ErrProto, and what it accepts must encode to a fixed point.
func FuzzDecodeProto(f *testing.F) {
	f.Add(full().AppendProto(nil))
	f.Add((&namespace.Namespace{}).AppendProto(nil))
	f.Add([]byte{0x1a, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := namespace.DecodeProto(b)
		if err != nil {
			if !errors.Is(err, namespace.ErrProto) {
				t.Fatalf("error does not wrap ErrProto: %v", err)
			}
			return
		}
		n := o.(*namespace.Namespace)
		once := n.AppendProto(nil)
		if len(once) != n.SizeProto() {
			t.Fatalf("SizeProto %d, AppendProto wrote %d", n.SizeProto(), len(once))
		}
		o2, err := namespace.DecodeProto(once)
		if err != nil {
			t.Fatalf("re-decoding our own encoding: %v", err)
		}
		if twice := o2.(*namespace.Namespace).AppendProto(nil); !bytes.Equal(once, twice) {
			t.Fatalf("encoding is not a fixed point:\n%x\n%x", once, twice)
		}
	})
}
