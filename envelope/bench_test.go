package envelope

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
)

var payloadSizes = []struct {
	name string
	n    int
}{
	{"2KiB", 2 << 10},
	{"1MiB", 1 << 20},
}

// BenchmarkCopy1MiB is the baseline for BenchmarkAppendEnvelope/1MiB: a
// plain copy of the payload into a reused buffer, once to the start of the
// buffer and once to where a v1 ConfigMap envelope puts its payload, 25
// bytes in. On amd64 memmove to a destination misaligned with its source
// costs about 1.5 times an aligned one, so "offset25" is the like-for-like
// comparison and "aligned" the best case.
func BenchmarkCopy1MiB(b *testing.B) {
	src := bytes.Repeat([]byte{0x5a}, 1<<20)
	header := SizeEnvelope("v1", "ConfigMap", len(src)) - len(src) - len(emptyContentFields)
	for _, off := range []struct {
		name string
		n    int
	}{{"aligned", 0}, {fmt.Sprintf("offset%d", header), header}} {
		b.Run(off.name, func(b *testing.B) {
			dst := make([]byte, off.n+len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst[off.n:], src)
			}
		})
	}
}

// BenchmarkAppendEnvelope wraps a payload into a reused buffer.
func BenchmarkAppendEnvelope(b *testing.B) {
	for _, size := range payloadSizes {
		b.Run(size.name, func(b *testing.B) {
			raw := bytes.Repeat([]byte{0x5a}, size.n)
			buf := make([]byte, 0, SizeEnvelope("v1", "ConfigMap", len(raw)))
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendEnvelope(buf[:0], "v1", "ConfigMap", raw)
			}
		})
	}
}

// BenchmarkAppendEnvelopeFunc encodes the payload in place; the appended
// bytes stand for an object encoder.
func BenchmarkAppendEnvelopeFunc(b *testing.B) {
	for _, size := range payloadSizes {
		b.Run(size.name, func(b *testing.B) {
			raw := bytes.Repeat([]byte{0x5a}, size.n)
			buf := make([]byte, 0, SizeEnvelope("v1", "ConfigMap", len(raw)))
			appendRaw := func(b []byte) []byte { return append(b, raw...) }
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendEnvelopeFunc(buf[:0], "v1", "ConfigMap", len(raw), appendRaw)
			}
		})
	}
}

// BenchmarkConsumeEnvelope unwraps: the cost must not depend on the size.
func BenchmarkConsumeEnvelope(b *testing.B) {
	for _, size := range payloadSizes {
		b.Run(size.name, func(b *testing.B) {
			env := AppendEnvelope(nil, "v1", "ConfigMap", bytes.Repeat([]byte{0x5a}, size.n))
			b.ReportAllocs()
			for b.Loop() {
				e, err := ConsumeEnvelope(env)
				if err != nil || len(e.Raw) != size.n {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConsumeEnvelopeView unwraps without copying the type strings:
// nothing is allocated and the cost does not depend on the size.
func BenchmarkConsumeEnvelopeView(b *testing.B) {
	for _, size := range payloadSizes {
		b.Run(size.name, func(b *testing.B) {
			env := AppendEnvelope(nil, "v1", "ConfigMap", bytes.Repeat([]byte{0x5a}, size.n))
			b.ReportAllocs()
			for b.Loop() {
				v, err := ConsumeEnvelopeView(env)
				if err != nil || len(v.Raw) != size.n {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkFrameWrite(b *testing.B) {
	for _, size := range payloadSizes {
		b.Run(size.name, func(b *testing.B) {
			frame := bytes.Repeat([]byte{0x5a}, size.n)
			fw := NewFrameWriter(io.Discard)
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				if err := fw.WriteFrame(frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFrameRead reads frames from an endless in-memory stream.
func BenchmarkFrameRead(b *testing.B) {
	for _, size := range payloadSizes {
		b.Run(size.name, func(b *testing.B) {
			frame := bytes.Repeat([]byte{0x5a}, size.n)
			fr := NewFrameReader(&cycleReader{data: AppendFrame(nil, frame)})
			b.SetBytes(int64(len(frame)))
			b.ReportAllocs()
			for b.Loop() {
				f, err := fr.ReadFrame()
				if err != nil || len(f) != size.n {
					b.Fatal(err)
				}
			}
		})
	}
}

// cycleReader reads data over and over.
type cycleReader struct {
	data []byte
	off  int
}

func (r *cycleReader) Read(p []byte) (int, error) {
	n := copy(p, r.data[r.off:])
	r.off = (r.off + n) % len(r.data)
	return n, nil
}

// BenchmarkWatchEvent encodes one ADDED event straight into a reused frame:
// frame, event, envelope and object in one pass.
func BenchmarkWatchEvent(b *testing.B) {
	cm := configMap{
		Metadata: benchObjectMeta(),
		Data:     map[string]string{"a": "1", "b": "2", "c": "3"},
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendFrameFunc(buf[:0], func(b []byte) []byte {
			return AppendWatchEventFunc(b, "ADDED", 0, func(b []byte) []byte {
				return AppendEnvelopeFunc(b, "v1", "ConfigMap", 0, func(b []byte) []byte {
					return appendConfigMap(b, &cm)
				})
			})
		})
	}
}

// benchObjectMeta is the metadata of a typical stored object.
func benchObjectMeta() meta.ObjectMeta {
	return meta.ObjectMeta{
		Name: "cm", Namespace: "default", UID: "0b1e6d4c-8a4e-4b6e-9a3c-2f1d5e7c9b0a", ResourceVersion: "42",
		CreationTimestamp: meta.NewTime(time.Unix(1784710800, 0)),
		Labels:            map[string]string{"app": "web", "tier": "frontend"},
		Annotations:       map[string]string{"note": "x"},
		OwnerReferences:   []meta.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "d", UID: "u1"}},
	}
}
