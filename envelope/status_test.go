package envelope

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/google/go-cmp/cmp"
)

func TestStatusRoundTrip(t *testing.T) {
	tests := []Status{
		{},
		{Status: "Failure", Message: `configmaps "x" not found`, Reason: "NotFound",
			Details: &StatusDetails{Name: "x", Kind: "configmaps"}, Code: 404},
		{Metadata: meta.ListMeta{Continue: "tok"}, Status: "Failure", Reason: "Expired", Code: 410},
		{Status: "Failure", Reason: "Invalid", Code: 422, Details: &StatusDetails{
			Group: "meta.k8s.io", Kind: "ListOptions", UID: "u", RetryAfterSeconds: 3,
			Causes: []StatusCause{
				{Type: "FieldValueForbidden", Message: "Forbidden: x", Field: "resourceVersionMatch"},
				{},
			},
		}},
		{Code: -7},
	}
	for _, s := range tests {
		b := AppendStatus(nil, &s)
		if len(b) != SizeStatus(&s) {
			t.Errorf("len = %d; SizeStatus = %d", len(b), SizeStatus(&s))
		}
		got, err := ConsumeStatus(b)
		if err != nil {
			t.Fatalf("ConsumeStatus: %v", err)
		}
		if diff := cmp.Diff(s, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	}
}

func TestConsumeStatusErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
	}{
		{"metadata as varint", "0801", ErrMalformed},
		{"status as varint", "1001", ErrMalformed},
		{"code as bytes", "3200", ErrMalformed},
		{"details as varint", "2801", ErrMalformed},
		{"details.name as varint", "2a02 0801", ErrMalformed},
		{"details.retryAfterSeconds as bytes", "2a02 2a00", ErrMalformed},
		{"cause field as varint", "2a04 2202 1801", ErrMalformed},
		{"cause truncated", "2a04 2202 1a05", io.ErrUnexpectedEOF},
		{"truncated", "1a05", io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		if _, err := ConsumeStatus(mustHex(t, tt.in)); !errors.Is(err, tt.want) {
			t.Errorf("%s: ConsumeStatus(%s) = err %v; want %v", tt.name, tt.in, err, tt.want)
		}
	}
}

func TestWatchEvent(t *testing.T) {
	obj := AppendEnvelope(nil, "v1", "ConfigMap", appendConfigMap(nil, &configMap{Metadata: meta.ObjectMeta{Name: "a"}}))
	tests := []struct {
		typ    string
		object []byte
	}{
		{"ADDED", obj},
		{"BOOKMARK", []byte{}},
		{"ERROR", AppendEnvelope(nil, "v1", "Status", AppendStatus(nil, &Status{Code: 410}))},
		{"CUSTOM", nil},
		{"", bytes.Repeat([]byte{1}, 200)},
	}
	for _, tt := range tests {
		b := AppendWatchEvent(nil, tt.typ, tt.object)
		if tt.object != nil && len(b) != SizeWatchEvent(tt.typ, len(tt.object)) {
			t.Errorf("%s: len = %d; SizeWatchEvent = %d", tt.typ, len(b), SizeWatchEvent(tt.typ, len(tt.object)))
		}
		got, err := ConsumeWatchEvent(b)
		if err != nil {
			t.Fatalf("%s: ConsumeWatchEvent: %v", tt.typ, err)
		}
		if got.Type != tt.typ || !bytes.Equal(got.Object, tt.object) || (got.Object == nil) != (tt.object == nil) {
			t.Errorf("%s: round trip = %q %x; want %q %x", tt.typ, got.Type, got.Object, tt.typ, tt.object)
		}
		if tt.object == nil {
			continue
		}
		if len(tt.object) > 0 && &got.Object[0] != &b[len(b)-len(tt.object)] {
			t.Errorf("%s: Object does not alias the input", tt.typ)
		}
		for _, hint := range []int{0, len(tt.object), 1 << 16} {
			viaFunc := AppendWatchEventFunc(nil, tt.typ, hint, func(b []byte) []byte { return append(b, tt.object...) })
			if !bytes.Equal(viaFunc, b) {
				t.Errorf("%s: AppendWatchEventFunc(hint %d) = %x; want %x", tt.typ, hint, viaFunc, b)
			}
		}
	}

	// The event types Kubernetes sends cost no allocation.
	added := AppendWatchEvent(nil, "MODIFIED", obj)
	if n := testing.AllocsPerRun(100, func() { _, _ = ConsumeWatchEvent(added) }); n != 0 {
		t.Errorf("ConsumeWatchEvent(MODIFIED) allocates %v times; want 0", n)
	}

	for _, in := range []string{"0801", "1001", "1202 0801", "12", "0a05 41"} {
		if _, err := ConsumeWatchEvent(mustHex(t, in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeWatchEvent(%s) = err %v; want ErrMalformed", in, err)
		}
	}
}

// A complete protobuf watch stream as a client reads it: frames of
// WatchEvents whose objects are envelopes.
func TestWatchStream(t *testing.T) {
	var stream bytes.Buffer
	fw := NewFrameWriter(&stream)
	var buf []byte
	for i, name := range []string{"a", "b", "c"} {
		cm := configMap{Metadata: meta.ObjectMeta{Name: name, ResourceVersion: string(rune('1' + i))}}
		buf = AppendWatchEventFunc(buf[:0], "ADDED", 0, func(b []byte) []byte {
			return AppendEnvelopeFunc(b, "v1", "ConfigMap", 0, func(b []byte) []byte {
				return appendConfigMap(b, &cm)
			})
		})
		if err := fw.WriteFrame(buf); err != nil {
			t.Fatal(err)
		}
	}
	fr := NewFrameReader(&stream)
	var names []string
	for {
		frame, err := fr.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ev, err := ConsumeWatchEvent(frame)
		if err != nil {
			t.Fatal(err)
		}
		env, err := ConsumeEnvelope(ev.Object)
		if err != nil || env.Kind != "ConfigMap" || env.APIVersion != "v1" {
			t.Fatalf("envelope %+v, %v", env, err)
		}
		cm, err := consumeConfigMap(env.Raw)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, ev.Type+" "+cm.Metadata.Name+"@"+cm.Metadata.ResourceVersion)
	}
	want := []string{"ADDED a@1", "ADDED b@2", "ADDED c@3"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
