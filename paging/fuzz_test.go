package paging

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

var fuzzPrefixes = []string{"pods/", "pods/ns1/", "namespaces/", "a/b/c/"}

// fuzzCodec returns an unsigned codec or one signing with key1.
func fuzzCodec(signedCodec bool) *Codec {
	if signedCodec {
		return &Codec{Keys: [][]byte{key1}}
	}
	return &Codec{}
}

// FuzzDecode feeds hostile tokens to Decode: it must never panic, must
// answer every rejection with a 400, and every key it returns must lie
// strictly inside the collection, in a form Kubernetes would accept too.
func FuzzDecode(f *testing.F) {
	var c Codec
	k := Codec{Keys: [][]byte{key1}}
	f.Add("AQCFUG5zMS9wb2QtNTAwAA", uint8(0), false)
	f.Add(c.Encode(Token{Version: 1, Start: "a/b\x00", IssuedAt: time.Unix(1e9, 0)}), uint8(1), false)
	f.Add(k.Encode(Token{Version: 1 << 40, Start: "ns/x\x00"}), uint8(2), true)
	f.Add(k.Encode(Token{Version: 3, Start: "ns/x\x00"}), uint8(3), false)
	f.Add("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDUsInN0YXJ0IjoiZm9vXHUwMDAwIn0", uint8(0), false)
	for _, a := range attacks {
		f.Add(raw(payload(0, 10, a.start)...), uint8(0), false)
		f.Add(signed(key1, payload(flagSigned, 10, a.start)), uint8(1), true)
	}
	f.Fuzz(func(t *testing.T, token string, prefixIdx uint8, signedCodec bool) {
		c := fuzzCodec(signedCodec)
		prefix := fuzzPrefixes[int(prefixIdx)%len(fuzzPrefixes)]
		key, tok, err := c.Decode(token, prefix)
		if err != nil {
			if !status.IsBadRequest(err) || !strings.HasPrefix(err.Error(), invalidPrefix) {
				t.Fatalf("Decode(%q) error %v, want a 400 invalid continue token", token, err)
			}
			if key != "" || tok != (Token{}) {
				t.Fatalf("Decode(%q) returned %q, %+v with its error", token, key, tok)
			}
			return
		}
		if !strings.HasPrefix(key, prefix) || len(key) <= len(prefix) || tok.Start != key[len(prefix):] {
			t.Fatalf("Decode(%q, %q) = %q, %+v: not strictly inside the prefix", token, prefix, key, tok)
		}
		if !kubernetesAccepts(tok.Start) || checkStart(tok.Start) != "" {
			t.Fatalf("Decode(%q) accepted start %q", token, tok.Start)
		}
		body := strings.TrimSuffix(tok.Start, "\x00")
		if strings.HasPrefix(body, "/") || strings.Contains(body, "\x00") {
			t.Fatalf("Decode(%q) accepted start %q", token, tok.Start)
		}
		for _, seg := range strings.Split(body, "/") {
			if seg == "" || seg == "." || seg == ".." {
				t.Fatalf("Decode(%q) accepted start %q with segment %q", token, tok.Start, seg)
			}
		}
		// One token, one spelling: re-encoding gives the input back, except
		// where an unsigned codec dropped the signature it does not check.
		again := c.Encode(tok)
		if again != token {
			p, _ := base64.RawURLEncoding.DecodeString(token)
			if signedCodec || len(p) < 2 || p[1]&flagSigned == 0 {
				t.Fatalf("Decode(%q) = %+v, which encodes as %q", token, tok, again)
			}
		}
	})
}

// FuzzRoundTrip encodes arbitrary tokens: a start Decode accepts must come
// back unchanged, any other must be rejected as unsafe (or, safe but
// without the final NUL, as malformed), and every token
// must be usable in a query string as it is.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(10245), "ns1/pod-500\x00", int64(0), false, uint8(0))
	f.Add(uint64(0), "a\x00", int64(1_700_000_000), true, uint8(1))
	f.Add(^uint64(0), "x/y/z", int64(-1), true, uint8(2))
	for _, a := range attacks {
		f.Add(uint64(7), a.start, int64(0), false, uint8(3))
	}
	f.Fuzz(func(t *testing.T, version uint64, start string, issued int64, signedCodec bool, prefixIdx uint8) {
		c := fuzzCodec(signedCodec)
		prefix := fuzzPrefixes[int(prefixIdx)%len(fuzzPrefixes)]
		in := Token{Version: rv.Version(version), Start: start}
		if issued != 0 {
			in.IssuedAt = time.Unix(issued, 0)
		}
		token := c.Encode(in)
		if url.QueryEscape(token) != token {
			t.Fatalf("Encode(%+v) = %q needs escaping", in, token)
		}
		key, out, err := c.Decode(token, prefix)
		if checkStart(start) != "" {
			if !errors.Is(err, ErrUnsafeStart) && !(len(token) > MaxTokenLen && errors.Is(err, ErrMalformed)) {
				t.Fatalf("Decode(Encode(%+v)) = %q, %v; want ErrUnsafeStart", in, key, err)
			}
			return
		}
		if start[len(start)-1] != 0 {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode(Encode(%+v)) = %q, %v; want ErrMalformed (no final NUL)", in, key, err)
			}
			return
		}
		if in.IssuedAt.IsZero() != out.IssuedAt.IsZero() && err == nil {
			t.Fatalf("IssuedAt %v came back as %v", in.IssuedAt, out.IssuedAt)
		}
		if err != nil || key != prefix+start || out.Version != in.Version || out.Start != start || !out.IssuedAt.Equal(in.IssuedAt) {
			t.Fatalf("Decode(Encode(%+v)) = %q, %+v, %v", in, key, out, err)
		}
	})
}
