package server

import (
	"bytes"
	"testing"

	"github.com/apisem/apisem/meta"
)

func TestScaleProtoRoundTrip(t *testing.T) {
	for _, s := range []*Scale{
		{},
		{ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "7"},
			Spec: ScaleSpec{Replicas: 3}, Status: ScaleStatus{Replicas: 2, Selector: "app=web"}},
		{Spec: ScaleSpec{Replicas: -1}},
	} {
		b := s.AppendProto(nil)
		if len(b) != s.SizeProto() {
			t.Errorf("SizeProto() = %d, AppendProto wrote %d", s.SizeProto(), len(b))
		}
		o, err := decodeScaleProto(b)
		if err != nil {
			t.Fatalf("decodeScaleProto(%x): %v", b, err)
		}
		got := o.(*Scale)
		if got.Name != s.Name || got.ResourceVersion != s.ResourceVersion || got.Spec != s.Spec || got.Status != s.Status {
			t.Errorf("decodeScaleProto(AppendProto(%+v)) = %+v", s, got)
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
		_, err := decodeScaleProto(tc.raw)
		if (err == nil) != tc.ok {
			t.Errorf("%s: decodeScaleProto(%x) error %v, want ok=%v", tc.name, tc.raw, err, tc.ok)
		}
	}
}

func FuzzScaleProto(f *testing.F) {
	f.Add((&Scale{Spec: ScaleSpec{Replicas: 3}, Status: ScaleStatus{Replicas: 1, Selector: "a=b"}}).AppendProto(nil))
	f.Add([]byte{0x12, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := decodeScaleProto(raw)
		if err != nil {
			return
		}
		b := o.(*Scale).AppendProto(nil)
		o2, err := decodeScaleProto(b)
		if err != nil {
			t.Fatalf("decoding our own encoding %x: %v", b, err)
		}
		if b2 := o2.(*Scale).AppendProto(nil); !bytes.Equal(b, b2) {
			t.Fatalf("round trip: %x != %x", b, b2)
		}
	})
}
