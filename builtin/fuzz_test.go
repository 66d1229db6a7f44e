package builtin

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apisem/apisem/status"
)

// FuzzDecode feeds untrusted request bodies, JSON and protobuf, to the
// decoding of a Deployment and a Pod: it must never panic, and what it
// accepts must encode and decode again to the same encoding.
func FuzzDecode(f *testing.F) {
	for _, c := range diffCases {
		f.Add(c.body, false)
	}
	f.Add(`{"metadata":{"name":"a","labels":{"a":"b"}},"spec":{"replicas":"x"}}`, false)
	f.Add(`{"metadata":{"name":"a"},"metadata":{"name":"b"},"spec":{"foo":1}}`, false)
	f.Add("\x0a\x05\x0a\x03abc\x12\x02\x08\x03", true)
	f.Add("\x0a\x80", true)
	deploy, pod := findKindFor(f, "apps", "Deployment"), findKindFor(f, "", "Pod")
	f.Fuzz(func(t *testing.T, body string, protobuf bool) {
		for _, k := range []*kind{deploy, pod} {
			var o *Object
			if protobuf {
				so, err := k.decodeProto([]byte(body))
				if err != nil {
					continue
				}
				o = so.(*Object)
				enc := o.AppendProto(nil)
				again, err := k.decodeProto(enc)
				if err != nil {
					t.Fatalf("%s: decoding our own encoding %x: %v", k.Kind, enc, err)
				}
				if enc2 := again.(*Object).AppendProto(nil); !bytes.Equal(enc, enc2) {
					t.Fatalf("%s: protobuf round trip\n%x\n%x", k.Kind, enc, enc2)
				}
				continue
			}
			o = &Object{Value: k.newValue()}
			if _, err := o.UnmarshalJSONStrict([]byte(body)); err != nil {
				continue
			}
			enc, err := o.MarshalJSON()
			if err != nil {
				t.Fatalf("%s: encoding %q: %v", k.Kind, body, err)
			}
			again := &Object{Value: k.newValue()}
			if err := again.UnmarshalJSON(enc); err != nil {
				t.Fatalf("%s: decoding our own encoding %s: %v", k.Kind, enc, err)
			}
			if enc2, _ := again.MarshalJSON(); !bytes.Equal(enc, enc2) {
				t.Fatalf("%s: JSON round trip\n%s\n%s", k.Kind, enc, enc2)
			}
			// The protobuf form of what JSON gave decodes to the same
			// protobuf (not always to the same JSON: protobuf, as in
			// Kubernetes, does not tell an empty list from none).
			pb := o.AppendProto(nil)
			p, err := k.decodeProto(pb)
			if err != nil {
				t.Fatalf("%s: decoding the protobuf of %s: %v", k.Kind, enc, err)
			}
			if pb2 := p.(*Object).AppendProto(nil); !bytes.Equal(pb, pb2) {
				t.Fatalf("%s: JSON to protobuf and back\n%x\n%x", k.Kind, pb, pb2)
			}
		}
	})
}

func findKindFor(tb testing.TB, group, name string) *kind {
	for _, k := range all {
		if k.Group == group && k.Kind == name {
			return k
		}
	}
	tb.Fatalf("no kind %s", name)
	return nil
}

// FuzzSubresourceBodies feeds untrusted bodies of pods/binding and
// pods/eviction (JSON, YAML or protobuf) to their decoding: a 400 or a
// decoded object, never a panic; one too large is refused before it is
// decoded.
func FuzzSubresourceBodies(f *testing.F) {
	f.Add(`{"metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}}`)
	f.Add(`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"deleteOptions":{"gracePeriodSeconds":0}}`)
	f.Add("k8s\x00\x0a\x0c\x0a\x02v1\x12\x07Binding\x12\x00")
	f.Add("metadata: {name: p}\ntarget: {name: n}\n")
	f.Fuzz(func(t *testing.T, body string) {
		for _, into := range []runtime.Object{&corev1.Binding{}, &policyv1.Eviction{}} {
			r := httptest.NewRequest("POST", "/api/v1/namespaces/ns/pods/p/binding", strings.NewReader(body))
			if err := decodeBody(r, into); err != nil && !status.IsBadRequest(err) {
				t.Fatalf("decoding %q into a %T: %v", body, into, err)
			}
		}
	})
}
