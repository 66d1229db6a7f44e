package paging

import (
	"testing"
	"time"
)

// benchToken is a typical token: a namespaced pod list at a realistic
// revision.
var benchToken = Token{Version: 1234567, Start: "kube-system/coredns-7db6d8ff4d-abcde\x00"}

func BenchmarkEncode(b *testing.B) {
	for _, bc := range benchCodecs() {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = bc.c.Encode(benchToken)
			}
		})
	}
}

func BenchmarkAppendToken(b *testing.B) {
	for _, bc := range benchCodecs() {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 256)
			for b.Loop() {
				buf = bc.c.AppendToken(buf[:0], benchToken)
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, bc := range benchCodecs() {
		b.Run(bc.name, func(b *testing.B) {
			tok := bc.c.Encode(benchToken)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := bc.c.Decode(tok, "pods/"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNextStart(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NextStart("pods/kube-system/coredns-7db6d8ff4d-abcde", "pods/"); err != nil {
			b.Fatal(err)
		}
	}
}

type benchCodec struct {
	name string
	c    *Codec
}

func benchCodecs() []benchCodec {
	now := time.Date(2026, 7, 24, 10, 0, 0, 0, time.UTC)
	return []benchCodec{
		{"unsigned", &Codec{}},
		{"signed", &Codec{Keys: [][]byte{key1}}},
		{"signed-2keys", &Codec{Keys: [][]byte{key2, key1}}},
		{"signed-maxage", &Codec{Keys: [][]byte{key1}, MaxAge: time.Hour, Now: func() time.Time { return now }}},
	}
}
