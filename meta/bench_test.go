package meta

import "testing"

func BenchmarkObjectMetaProto(b *testing.B) {
	m := fullObjectMeta()
	enc := AppendObjectMeta(nil, &m)
	b.Run("Append", func(b *testing.B) {
		buf := make([]byte, 0, len(enc))
		b.ReportAllocs()
		for b.Loop() {
			buf = AppendObjectMeta(buf[:0], &m)
		}
	})
	b.Run("Size", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = SizeObjectMeta(&m)
		}
	})
	b.Run("Consume", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(enc)))
		for b.Loop() {
			if _, err := ConsumeObjectMeta(enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
