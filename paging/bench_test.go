package paging

import (
	"encoding/base64"
	"encoding/json"
	"path"
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

// TestAllocs guards the allocation budget the benchmarks report: one
// allocation (the string returned) to encode or decode, none to append.
// Signed codecs borrow pooled HMAC states, which the race detector drops
// at random, so they are checked only without it.
func TestAllocs(t *testing.T) {
	for _, bc := range benchCodecs() {
		if raceEnabled && len(bc.c.Keys) > 0 {
			continue
		}
		tok := bc.c.Encode(benchToken)
		buf := make([]byte, 0, 256)
		checks := []struct {
			name string
			max  float64
			f    func()
		}{
			{"Encode", 1, func() { _ = bc.c.Encode(benchToken) }},
			{"AppendToken", 0, func() { buf = bc.c.AppendToken(buf[:0], benchToken) }},
			{"Decode", 1, func() { _, _, _ = bc.c.Decode(tok, "pods/") }},
		}
		for _, ck := range checks {
			if n := testing.AllocsPerRun(100, ck.f); n > ck.max {
				t.Errorf("%s %s: %v allocations, want at most %v", bc.name, ck.name, n, ck.max)
			}
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = NextStart("pods/ns/a", "pods/") }); n > 1 {
		t.Errorf("NextStart: %v allocations, want at most 1", n)
	}
}

// kubernetesToken is the shape of Kubernetes' own token
// (k8s.io/apiserver/pkg/storage/continue.go),
// rebuilt here only as a baseline for the benchmarks below.
type kubernetesToken struct {
	V     string `json:"v"`
	RV    int64  `json:"rv"`
	Start string `json:"start"`
}

func BenchmarkBaselineKubernetesEncode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		j, err := json.Marshal(kubernetesToken{V: "meta.k8s.io/v1", RV: int64(benchToken.Version), Start: benchToken.Start})
		if err != nil {
			b.Fatal(err)
		}
		_ = base64.RawURLEncoding.EncodeToString(j)
	}
}

func BenchmarkBaselineKubernetesDecode(b *testing.B) {
	j, _ := json.Marshal(kubernetesToken{V: "meta.k8s.io/v1", RV: int64(benchToken.Version), Start: benchToken.Start})
	tok := base64.RawURLEncoding.EncodeToString(j)
	b.ReportAllocs()
	for b.Loop() {
		raw, err := base64.RawURLEncoding.DecodeString(tok)
		if err != nil {
			b.Fatal(err)
		}
		var kt kubernetesToken
		if err := json.Unmarshal(raw, &kt); err != nil {
			b.Fatal(err)
		}
		k := "/" + kt.Start
		if path.Clean(k) != k {
			b.Fatal("unclean")
		}
		_ = "pods/" + k[1:]
	}
}
