package scale

import (
	"bytes"
	"testing"

	"github.com/apisem/apisem/meta"
)

func TestScaleProtoRoundTrip(t *testing.T) {
	for _, s := range []*Scale{
		{},
		{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7"},
			Spec: Spec{Replicas: 3}, Status: Status{Replicas: 2, Selector: "app=web"}},
		{Spec: Spec{Replicas: -1}},
	} {
		b := s.AppendProto(nil)
		if len(b) != s.SizeProto() {
			t.Errorf("SizeProto() = %d, AppendProto wrote %d", s.SizeProto(), len(b))
		}
		o, err := DecodeProto(b)
		if err != nil {
			t.Fatalf("DecodeProto(%x): %v", b, err)
		}
		got := o
		if got.Name != s.Name || got.ResourceVersion != s.ResourceVersion || got.Spec != s.Spec || got.Status != s.Status {
			t.Errorf("DecodeProto(AppendProto(%+v)) = %+v", s, got)
		}
		if again := got.AppendProto(nil); !bytes.Equal(again, b) {
			t.Errorf("re-encoding: %x, want %x", again, b)
		}
	}
}

func TestScaleProtoMalformed(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  []byte
		ok   bool
	}{
		{"empty", nil, true},
		{"unknown varint field", []byte{0x20, 0x01}, true},
		{"truncated length", []byte{0x12, 0x05, 0x08}, false},
		{"spec as a varint", []byte{0x10, 0x01}, false},
		{"replicas as bytes", []byte{0x12, 0x02, 0x0a, 0x00}, false},
		{"bad tag", []byte{0x80}, false},
	} {
		_, err := DecodeProto(tc.raw)
		if (err == nil) != tc.ok {
			t.Errorf("%s: DecodeProto(%x) error %v, want ok=%v", tc.name, tc.raw, err, tc.ok)
		}
	}
}

func FuzzScaleProto(f *testing.F) {
	f.Add((&Scale{Spec: Spec{Replicas: 3}, Status: Status{Replicas: 1, Selector: "a=b"}}).AppendProto(nil))
	f.Add([]byte{0x12, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := DecodeProto(raw)
		if err != nil {
			return
		}
		b := o.AppendProto(nil)
		o2, err := DecodeProto(b)
		if err != nil {
			t.Fatalf("decoding our own encoding %x: %v", b, err)
		}
		if b2 := o2.AppendProto(nil); !bytes.Equal(b, b2) {
			t.Fatalf("round trip: %x != %x", b, b2)
		}
	})
}
