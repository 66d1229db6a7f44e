package paging

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/url"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

var (
	key1 = []byte("0123456789abcdef0123456789abcdef")
	key2 = []byte("fedcba9876543210fedcba9876543210")
)

// raw encodes a hand-built payload, for tokens Encode would never write.
func raw(p ...byte) string { return base64.RawURLEncoding.EncodeToString(p) }

// payload builds format-1 payload bytes: version, flags, revision, start.
func payload(flags byte, version uint64, start string) []byte {
	b := []byte{formatV1, flags}
	b = binary.AppendUvarint(b, version)
	return append(b, start...)
}

// signed appends a MAC under key to a payload built with flagSigned.
func signed(key, p []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write(p)
	return base64.RawURLEncoding.EncodeToString(append(p, m.Sum(nil)[:macLen]...))
}

func TestRoundTrip(t *testing.T) {
	issued := time.Date(2026, 7, 24, 10, 11, 12, 0, time.UTC)
	tests := []struct {
		name   string
		codec  *Codec
		prefix string
		tok    Token
	}{
		{"namespaced", &Codec{}, "pods/ns1/", Token{Version: 10245, Start: "pod-500\x00"}},
		{"all namespaces", &Codec{}, "pods/", Token{Version: 10245, Start: "ns1/pod-500\x00"}},
		{"cluster scoped", &Codec{}, "namespaces/", Token{Version: 1, Start: "kube-system\x00"}},
		{"inconsistent", &Codec{}, "pods/", Token{Version: 0, Start: "ns1/a\x00"}},
		{"max version", &Codec{}, "pods/", Token{Version: rv.Version(^uint64(0)), Start: "a\x00"}},
		{"unicode", &Codec{}, "things/", Token{Version: 7, Start: "ns/naïve-名前\x00"}},
		{"dots inside names", &Codec{}, "things/", Token{Version: 7, Start: "a.b/..c/...\x00"}},
		{"longest start", &Codec{}, "things/", Token{Version: 7, Start: strings.Repeat("x", MaxStartLen-1) + "\x00"}},
		{"issued at", &Codec{}, "pods/", Token{Version: 9, Start: "a\x00", IssuedAt: issued}},
		{"signed", &Codec{Keys: [][]byte{key1}}, "pods/", Token{Version: 10245, Start: "ns1/pod-500\x00"}},
		{"signed issued at", &Codec{Keys: [][]byte{key1}}, "pods/", Token{Version: 10245, Start: "b\x00", IssuedAt: issued}},
		{"signed long start", &Codec{Keys: [][]byte{key1}}, "pods/", Token{Version: 3, Start: strings.Repeat("y", 1000) + "\x00"}},
		{"long key", &Codec{Keys: [][]byte{[]byte(strings.Repeat("k", 200))}}, "pods/", Token{Version: 3, Start: "c\x00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := tt.codec.Encode(tt.tok)
			if url.QueryEscape(tok) != tok {
				t.Errorf("Encode(%+v) = %q needs escaping in a query string", tt.tok, tok)
			}
			if app := string(tt.codec.AppendToken([]byte("x="), tt.tok)); app != "x="+tok {
				t.Errorf("AppendToken = %q, want %q", app, "x="+tok)
			}
			key, got, err := tt.codec.Decode(tok, tt.prefix)
			if err != nil {
				t.Fatalf("Decode(Encode(%+v)) error: %v", tt.tok, err)
			}
			if want := tt.prefix + tt.tok.Start; key != want {
				t.Errorf("start key = %q, want %q", key, want)
			}
			if got.Version != tt.tok.Version || got.Start != tt.tok.Start || !got.IssuedAt.Equal(tt.tok.IssuedAt) {
				t.Errorf("Decode(Encode(%+v)) = %+v", tt.tok, got)
			}
		})
	}
}

// TestFormat pins the layout: a change must be deliberate (and take a new
// format version), since servers decode tokens issued before an upgrade.
func TestFormat(t *testing.T) {
	var c Codec
	got := c.Encode(Token{Version: 10245, Start: "ns1/pod-500\x00"})
	// 0x01 version, 0x00 flags, uvarint 10245 = 0x85 0x50, the start.
	want := raw(append([]byte{1, 0, 0x85, 0x50}, "ns1/pod-500\x00"...)...)
	if got != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
	if got != "AQCFUG5zMS9wb2QtNTAwAA" {
		t.Errorf("Encode = %q, want the pinned AQCFUG5zMS9wb2QtNTAwAA", got)
	}
	// Kubernetes' token for the same list is 82 characters.
	if len(got) > 30 {
		t.Errorf("token %q is %d characters, want compact", got, len(got))
	}
}

func TestIssuedAt(t *testing.T) {
	now := time.Date(2026, 7, 24, 10, 0, 0, 900_000_000, time.Local)
	clock := func() time.Time { return now }
	tests := []struct {
		name  string
		codec *Codec
		in    time.Time
		want  time.Time // zero: no IssuedAt
	}{
		{"zero codec leaves it out", &Codec{}, time.Time{}, time.Time{}},
		{"explicit value kept, to the second", &Codec{}, now, now.Truncate(time.Second)},
		{"Now stamps", &Codec{Now: clock}, time.Time{}, now.Truncate(time.Second)},
		{"MaxAge stamps", &Codec{MaxAge: time.Hour}, time.Time{}, time.Now()},
		{"carried forward, not restamped", &Codec{Now: clock}, now.Add(-time.Minute), now.Add(-time.Minute).Truncate(time.Second)},
		{"before 1970", &Codec{}, time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := tt.codec.Decode(tt.codec.Encode(Token{Version: 5, Start: "a\x00", IssuedAt: tt.in}), "p/")
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want.IsZero() && !got.IssuedAt.IsZero():
				t.Errorf("IssuedAt = %v, want none", got.IssuedAt)
			case tt.codec.MaxAge > 0 && tt.codec.Now == nil:
				if d := time.Since(got.IssuedAt); d < 0 || d > time.Minute {
					t.Errorf("IssuedAt = %v, want about now", got.IssuedAt)
				}
			case !got.IssuedAt.Equal(tt.want):
				t.Errorf("IssuedAt = %v, want %v", got.IssuedAt, tt.want)
			}
		})
	}
}

// kubernetesAccepts is Kubernetes' check (DecodeContinue in
// k8s.io/apiserver/pkg/storage/continue.go): prepend "/" if missing,
// path.Clean, reject if changed.
func kubernetesAccepts(start string) bool {
	k := start
	if !strings.HasPrefix(k, "/") {
		k = "/" + k
	}
	return start != "" && path.Clean(k) == k
}

// attacks are start keys a hostile client might put in a token.
var attacks = []struct {
	name, start, why string
}{
	{"empty", "", "encoded start key empty"},
	{"parent", "..", "has a dot segment"},
	{"parent then name", "../x", "has a dot segment"},
	{"climb out", "a/../../b", "has a dot segment"},
	{"parent last", "a/..", "has a dot segment"},
	{"parent before NUL", "a/..\x00", "has a dot segment"},
	{"dot", ".", "has a dot segment"},
	{"dot segment", "a/./b", "has a dot segment"},
	{"dot before NUL", ".\x00", "has a dot segment"},
	{"absolute", "/etc", "is absolute"},
	{"absolute passwd", "/etc/passwd\x00", "is absolute"},
	{"root", "/", "is absolute"},
	{"double slash", "a//b", "has an empty segment"},
	{"trailing slash", "a/", "has an empty segment"},
	{"trailing slash NUL", "a/\x00", "has an empty segment"},
	{"only NUL", "\x00", "has an empty segment"},
	{"NUL then climb", "a\x00/../b", "contains NUL before its end"},
	{"NUL inside", "a\x00b", "contains NUL before its end"},
	{"two NULs", "a\x00\x00", "contains NUL before its end"},
	{"invalid UTF-8", "a/\xff\x00", "is not valid UTF-8"},
	{"overlong UTF-8 slash", "a\xc0\xafb", "is not valid UTF-8"},
	{"overlong", strings.Repeat("a", MaxStartLen+1), "encoded start key longer than 4096 bytes"},
}

func TestConfinement(t *testing.T) {
	var c Codec
	for _, tt := range attacks {
		t.Run(tt.name, func(t *testing.T) {
			tok := raw(payload(0, 10, tt.start)...)
			key, _, err := c.Decode(tok, "pods/ns1/")
			if err == nil {
				t.Fatalf("Decode(start %q) = %q, want an error", tt.start, key)
			}
			// Kubernetes' text for a start it refuses: the start.
			want := tt.why
			if !strings.HasPrefix(want, "encoded") {
				want = tt.start
			}
			checkInvalid(t, err, ErrUnsafeStart, want)
			if strings.Contains(err.Error(), strings.Repeat("a", 100)) {
				t.Errorf("error echoes the whole start: %.200s", err)
			}
		})
	}
}

// TestTruncated: every token cut short, by any number of characters, is
// the 400 a cluster answers for a cut JSON token, never a list from an
// earlier start; a start without the final NUL NextStart appends is
// refused too. kube-apiserver 1.37 answered GET
// /api/v1/namespaces?limit=1&continue=<its token cut by 1, 3 or 64
// characters> with 400 BadRequest `invalid continue token: continue key
// is not valid: unexpected end of JSON input`, and a cut that leaves one
// character of a base64 group (length 4n+1) with `... illegal base64 data
// at input byte <n>`.
func TestTruncated(t *testing.T) {
	for _, c := range []*Codec{{}, {Keys: [][]byte{key1}}, {Now: func() time.Time { return time.Unix(1_800_000_000, 0) }}} {
		for _, start := range []string{"default/widget-17\x00", "a\x00", "ns/" + strings.Repeat("n", 300) + "\x00"} {
			tok := c.Encode(Token{Version: 12345, Start: start})
			for i := 1; i < len(tok); i++ {
				key, got, err := c.Decode(tok[:i], "widgets/")
				if err == nil {
					t.Fatalf("Decode(%q, cut to %d of %d) = %q, %+v; want a 400", tok, i, len(tok), key, got)
				}
				want := invalidPrefix + cutShort
				if i%4 == 1 {
					want = invalidPrefix + "illegal base64 data at input byte " + strconv.Itoa(i-1)
				}
				// Cut right after the revision, no start at all; or a cut
				// start that the confinement checks refuse first ("a/",
				// "a/."): 400s that say why, where a cluster says its JSON
				// is cut.
				// A signed token (not Kubernetes') cut fails its signature.
				other := strings.HasPrefix(err.Error(), invalidPrefix+"encoded start key empty") ||
					errors.Is(err, ErrUnsafeStart) ||
					len(c.Keys) > 0 && errors.Is(err, ErrSignature)
				if !status.IsBadRequest(err) || err.Error() != want && !other {
					t.Fatalf("Decode(%q, cut to %d) error %v; want a 400 %q", tok, i, err, want)
				}
			}
		}
	}
	var c Codec
	_, _, err := c.Decode(c.Encode(Token{Version: 7, Start: "a"}), "pods/")
	checkInvalid(t, err, ErrMalformed, cutShort)
}

// TestStricterThanKubernetes: every start Kubernetes rejects, we reject.
func TestStricterThanKubernetes(t *testing.T) {
	starts := []string{"a", "a\x00", "a/b", "/a", "/a/b", "a/", "//a", "a//", "./a", "a/.", "a/..\x00",
		"..", "...", "a/...", "/", "", "\x00", "a\x00/..", "-", "a b", "a\\..\\b"}
	for _, tt := range attacks {
		starts = append(starts, tt.start)
	}
	for _, s := range starts {
		ours := checkStart(s) == ""
		if ours && !kubernetesAccepts(s) {
			t.Errorf("start %q: accepted here, rejected by Kubernetes", s)
		}
	}
}

// checkInvalid asserts the 400 `invalid continue token: continue key is
// not valid: ...` with the given detail (prefix-matched) and sentinel.
func checkInvalid(t *testing.T, err error, sentinel error, detail string) {
	t.Helper()
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a *status.Error", err, err)
	}
	if se.Code() != 400 || !status.IsBadRequest(err) {
		t.Errorf("error %q: code %d reason %q, want 400 BadRequest", err, se.Code(), se.Status.Reason)
	}
	if want := "invalid continue token: continue key is not valid: " + detail; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want prefix %q", err, want)
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("error %q does not wrap %v", err, sentinel)
	}
}

func TestDecodeErrors(t *testing.T) {
	k1 := &Codec{Keys: [][]byte{key1}}
	good := k1.Encode(Token{Version: 10245, Start: "ns1/some-pod-name\x00"})
	gp := payload(flagSigned, 10245, "ns1/some-pod-name\x00")
	altered := func(i int, mask byte) string {
		b, _ := base64.RawURLEncoding.DecodeString(good)
		b[i] ^= mask
		return raw(b...)
	}
	tests := []struct {
		name     string
		codec    *Codec
		token    string
		sentinel error
		detail   string
	}{
		{"empty", &Codec{}, "", ErrMalformed, "token is empty"},
		{"too long", &Codec{}, strings.Repeat("A", MaxTokenLen+1), ErrMalformed, "token is longer than 5512 bytes"},
		{"bad character", &Codec{}, "AQCF$G5z", ErrMalformed, "illegal base64 data at input byte 4"},
		{"padding", &Codec{}, "AQCFUG5zMS9wb2QtNTAwAA==", ErrMalformed, "illegal base64 data at input byte 22"},
		{"standard alphabet", &Codec{}, "AQCF+G5z", ErrMalformed, "illegal base64 data at input byte 4"},
		{"newline", &Codec{}, "AQCFUG5z\nMS9w", ErrMalformed, "illegal base64 data at input byte 8"},
		{"carriage return", &Codec{}, "\rAQCFUG5z", ErrMalformed, "illegal base64 data at input byte 0"},
		{"space", &Codec{}, "AQCF UG5z", ErrMalformed, "illegal base64 data at input byte 4"},
		{"dangling character", &Codec{}, "AQCFU", ErrMalformed, "illegal base64 data at input byte 4"},
		{"bad character in tail", &Codec{}, "AQCFU.", ErrMalformed, "illegal base64 data at input byte 5"},
		// Rejected (one spelling per token) as a cut token: a cluster,
		// whose base64 decoding ignores these bits, finds its JSON cut.
		{"nonzero padding bits", &Codec{}, "AQCFUG5zMS9wb2QtNTAwAB", ErrMalformed, cutShort},
		{"nonzero padding bits 3", &Codec{}, "AQCFUG5zMS9wb2QtNTAwAAB", ErrMalformed, cutShort},
		{"one byte", &Codec{}, raw(1), ErrMalformed, cutShort},
		{"kubernetes token", &Codec{}, "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MTIzNDUsInN0YXJ0IjoiZm9vXHUwMDAwIn0",
			ErrMalformed, "server does not recognize this encoded version meta.k8s.io/v1"},
		{"version 0", &Codec{}, raw(0, 0, 5, 'a'), ErrMalformed, "server does not recognize this encoded version 0"},
		{"version 2", &Codec{}, raw(2, 0, 5, 'a'), ErrMalformed, "server does not recognize this encoded version 2"},
		{"unknown flag", &Codec{}, raw(1, 4, 5, 'a'), ErrMalformed, "unknown flags 0x4 (version 1)"},
		{"no revision", &Codec{}, raw(1, 0), ErrMalformed, cutShort},
		{"truncated revision", &Codec{}, raw(1, 0, 0x80), ErrMalformed, cutShort},
		{"non-minimal revision", &Codec{}, raw(1, 0, 0x85, 0x00, 'a'), ErrMalformed, "incorrect encoded start resourceVersion (version 1)"},
		{"revision overflow", &Codec{}, raw(1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 'a'),
			ErrMalformed, "incorrect encoded start resourceVersion (version 1)"},
		{"truncated issue time", &Codec{}, raw(1, flagIssuedAt, 5, 0x80), ErrMalformed, cutShort},
		{"non-minimal issue time", &Codec{}, raw(1, flagIssuedAt, 5, 0x82, 0x00, 'a'), ErrMalformed, "incorrect encoded issue time (version 1)"},
		{"zero-time issue time", &Codec{}, raw(append([]byte{1, flagIssuedAt, 5}, append(binary.AppendVarint(nil, time.Time{}.Unix()), 'a')...)...),
			ErrMalformed, "incorrect encoded issue time (version 1)"},
		{"no start", &Codec{}, raw(1, 0, 5), ErrUnsafeStart, "encoded start key empty (version 1)"},
		{"no start after issue time", &Codec{}, raw(1, flagIssuedAt, 5, 2), ErrUnsafeStart, "encoded start key empty (version 1)"},

		{"unsigned with keys", k1, raw(payload(0, 10245, "ns1/some-pod-name\x00")...), ErrSignature, "token is not signed"},
		{"wrong key", &Codec{Keys: [][]byte{key2}}, good, ErrSignature, "signature does not match"},
		{"altered revision", k1, altered(2, 1), ErrSignature, "signature does not match"},
		{"altered start", k1, altered(len(gp)-2, 1), ErrSignature, "signature does not match"},
		{"altered MAC", k1, altered(len(gp)+3, 0x80), ErrSignature, "signature does not match"},
		{"flag cleared", k1, altered(1, flagSigned), ErrSignature, "token is not signed"},
		{"flag set", k1, altered(1, flagIssuedAt), ErrSignature, "signature does not match"},
		{"MAC cut off", k1, raw(gp...), ErrSignature, "signature does not match"},
		{"only MAC", k1, raw(append([]byte{1, flagSigned}, make([]byte, macLen-1)...)...), ErrMalformed, cutShort},
		{"signed by unsigned codec's rules", k1, signed(key1, payload(flagSigned, 1, "../x")), ErrUnsafeStart, "../x"},
		{"MAC of other message", k1, raw(append(payload(flagSigned, 10245, "ns1/other-pod-nam\x00"), mustTag(key1, gp)...)...), ErrSignature, "signature does not match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, tok, err := tt.codec.Decode(tt.token, "pods/")
			if err == nil {
				t.Fatalf("Decode(%q) = %q, %+v, want an error", tt.token, key, tok)
			}
			checkInvalid(t, err, tt.sentinel, tt.detail)
			if key != "" || tok != (Token{}) {
				t.Errorf("Decode(%q) returned %q, %+v with its error", tt.token, key, tok)
			}
		})
	}
}

func mustTag(key, p []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(p)
	return m.Sum(nil)[:macLen]
}

func TestDecodeBadPrefix(t *testing.T) {
	var c Codec
	tok := c.Encode(Token{Version: 1, Start: "a"})
	for _, prefix := range []string{"", "pods", "pods/ns1"} {
		_, _, err := c.Decode(tok, prefix)
		if !status.IsInternalError(err) || !errors.Is(err, ErrKeyPrefix) {
			t.Errorf("Decode(%q, %q) error %v, want a 500 wrapping ErrKeyPrefix", tok, prefix, err)
		}
	}
}

func TestSigning(t *testing.T) {
	old := &Codec{Keys: [][]byte{key1}}
	rotated := &Codec{Keys: [][]byte{key2, key1}}
	retired := &Codec{Keys: [][]byte{key2}}
	unsigned := &Codec{}
	tok := Token{Version: 42, Start: "ns/a\x00"}

	tests := []struct {
		name    string
		issuer  *Codec
		decoder *Codec
		ok      bool
	}{
		{"same key", old, old, true},
		{"old key still verifies after rotation", old, rotated, true},
		{"new key signs after rotation", rotated, retired, true},
		{"servers without the new key reject its tokens", rotated, old, false},
		{"retired key no longer verifies", old, retired, false},
		{"signing switched off accepts signed tokens", old, unsigned, true},
		{"signing switched on rejects unsigned tokens", unsigned, old, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got, err := tt.decoder.Decode(tt.issuer.Encode(tok), "pods/")
			if tt.ok {
				if err != nil || got.Version != tok.Version || got.Start != tok.Start {
					t.Errorf("Decode = %+v, %v; want %+v", got, err, tok)
				}
				return
			}
			checkInvalid(t, err, ErrSignature, "")
		})
	}
}

// TestSignMatchesHMAC checks the pooled, pre-keyed HMAC against a fresh
// crypto/hmac, across key lengths (hashed above the block size) and
// message lengths (longer than the buffer the bytes pass through), twice
// per key so that the second call runs from the restored keyed state.
func TestSignMatchesHMAC(t *testing.T) {
	for _, kl := range []int{0, 1, 32, 63, 64, 65, 200} {
		c := &Codec{Keys: [][]byte{[]byte(strings.Repeat("k", kl))}}
		for _, pl := range []int{0, 1, 55, 56, 64, 119, 120, stackPayload, stackPayload + 1, 1000} {
			for range 2 {
				msg := []byte(strings.Repeat("m", pl))
				got := c.sign(msg)
				if want := mustTag(c.Keys[0], msg); string(got[:]) != string(want) {
					t.Errorf("sign(key %d bytes, msg %d bytes) = %x, want %x", kl, pl, got, want)
				}
			}
		}
	}
}

// TestKeysReplaced: a pooled HMAC state is tied to the key slice it was
// made from, so a Codec whose Keys are replaced between uses signs and
// verifies with the new keys, never with a stale state.
func TestKeysReplaced(t *testing.T) {
	tok := Token{Version: 42, Start: "ns/a\x00"}
	c := &Codec{Keys: [][]byte{key1}}
	for range 3 {
		_ = c.Encode(tok)
	}
	c.Keys = [][]byte{key2}
	if _, _, err := (&Codec{Keys: [][]byte{key2}}).Decode(c.Encode(tok), "pods/"); err != nil {
		t.Errorf("token signed after the key was replaced: %v", err)
	}
	if _, _, err := c.Decode((&Codec{Keys: [][]byte{key1}}).Encode(tok), "pods/"); err == nil {
		t.Error("a token signed with the replaced key still verifies")
	}
	c.Keys = [][]byte{key1, key2}
	if _, _, err := c.Decode((&Codec{Keys: [][]byte{key2}}).Encode(tok), "pods/"); err != nil {
		t.Errorf("second key after growing Keys: %v", err)
	}
}

// TestConcurrentUse shares one signing Codec between goroutines, as a
// server does: each borrows its own HMAC states, so every token verifies
// (under -race, any sharing of a state is also reported).
func TestConcurrentUse(t *testing.T) {
	c := &Codec{Keys: [][]byte{key2, key1}}
	old := &Codec{Keys: [][]byte{key1}}
	const goroutines, rounds = 4, 200
	errs := make(chan error, goroutines)
	for g := range goroutines {
		go func() {
			for i := range rounds {
				tok := Token{Version: rv.Version(i + 1), Start: "ns/pod-" + strconv.Itoa(g) + "-" + strconv.Itoa(i) + "\x00"}
				issuer := c
				if i%2 == 1 {
					issuer = old // verifies with the second key
				}
				_, got, err := c.Decode(issuer.Encode(tok), "pods/")
				if err == nil && (got.Version != tok.Version || got.Start != tok.Start) {
					err = errors.New("decoded " + got.Start + ", want " + tok.Start)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range goroutines {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestExpired(t *testing.T) {
	const long = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
	const short = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."
	tests := []struct {
		name      string
		codec     *Codec
		tok       Token
		msg       string
		continues bool
	}{
		{"unsigned", &Codec{}, Token{Version: 10245, Start: "ns1/pod-500\x00"}, long, true},
		{"signed", &Codec{Keys: [][]byte{key1}}, Token{Version: 10245, Start: "a\x00"}, long, true},
		{"already inconsistent", &Codec{}, Token{Version: 0, Start: "a\x00"}, long, true},
		{"with max age", &Codec{MaxAge: time.Minute}, Token{Version: 3, Start: "a\x00", IssuedAt: time.Unix(1, 0)}, long, true},
		{"start that cannot be encoded", &Codec{}, Token{Version: 3, Start: "../x"}, short, false},
		{"empty start", &Codec{}, Token{Version: 3}, short, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.codec.Expired(tt.tok)
			if e.Code() != 410 || !status.IsExpired(e) || e.Status.Reason != status.ReasonExpired {
				t.Errorf("Expired: code %d reason %q, want 410 Expired", e.Code(), e.Status.Reason)
			}
			if e.Error() != tt.msg {
				t.Errorf("Expired message %q, want %q", e.Error(), tt.msg)
			}
			next := e.Status.Metadata.Continue
			if !tt.continues {
				if next != "" {
					t.Errorf("Expired continue = %q, want none", next)
				}
				return
			}
			key, got, err := tt.codec.Decode(next, "pods/")
			if err != nil {
				t.Fatalf("decoding the inconsistent token: %v", err)
			}
			if got.Version != 0 || got.Start != tt.tok.Start || key != "pods/"+tt.tok.Start {
				t.Errorf("inconsistent token = %q %+v, want version 0 from %q", key, got, tt.tok.Start)
			}
		})
	}
}

func TestMaxAge(t *testing.T) {
	t0 := time.Date(2026, 7, 24, 10, 0, 0, 0, time.UTC)
	now := t0
	c := &Codec{Keys: [][]byte{key1}, MaxAge: 5 * time.Minute, Now: func() time.Time { return now }}
	first := c.Encode(Token{Version: 100, Start: "a\x00"})

	tests := []struct {
		name    string
		at      time.Duration
		token   string
		expired bool
	}{
		{"fresh", 0, first, false},
		{"at the limit", 5 * time.Minute, first, false},
		{"past the limit", 5*time.Minute + time.Second, first, true},
		{"issued in the future (clock skew)", -time.Hour, first, false},
		{"no issue time", 0, signed(key1, payload(flagSigned, 100, "a\x00")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = t0.Add(tt.at)
			_, tok, err := c.Decode(tt.token, "pods/")
			if !tt.expired {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				return
			}
			if !status.IsExpired(err) {
				t.Fatalf("Decode = %+v, %v; want 410 Expired", tok, err)
			}
			var se *status.Error
			errors.As(err, &se)
			_, next, err := c.Decode(se.Status.Metadata.Continue, "pods/")
			if err != nil || next.Version != 0 || next.Start != "a\x00" || !next.IssuedAt.Equal(now) {
				t.Errorf("inconsistent token %+v, %v; want version 0 from a\\x00 issued now", next, err)
			}
		})
	}

	// Token.Next carries the first page's issue time, so MaxAge bounds the
	// whole list, not the pause between pages.
	now = t0
	_, tok, _ := c.Decode(first, "pods/")
	now = t0.Add(4 * time.Minute)
	second := c.Encode(tok.Next("b\x00"))
	now = t0.Add(6 * time.Minute)
	if _, _, err := c.Decode(second, "pods/"); !status.IsExpired(err) {
		t.Errorf("second page token issued at t0+4m decoded at t0+6m: %v, want 410", err)
	}
}

// TestContinueWithResourceVersion walks the spec's row "limit=<n>,
// continue=<token>" of the get/list table: package rv decides the
// semantics and the 400, then the token it passes through decodes here.
func TestContinueWithResourceVersion(t *testing.T) {
	var c Codec
	token := c.Encode(Token{Version: 10245, Start: "ns1/pod-500\x00"})
	tests := []struct {
		name, resourceVersion string
		ok                    bool
	}{
		{"unset: Continue Token, Exact", "", true},
		{"0: treated as Continue Token, Exact", "0", true},
		{"N: 400", "10245", false},
		{"other N: 400", "1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := rv.ListOptions{Limit: 500, Continue: token, ResourceVersion: tt.resourceVersion}
			read, err := o.ResolveList()
			if !tt.ok {
				if !status.IsBadRequest(err) || err.Error() != "specifying resource version is not allowed when using continue" {
					t.Errorf("ResolveList(rv %q, continue) = %+v, %v; want the 400", tt.resourceVersion, read, err)
				}
				return
			}
			if err != nil || read.Semantics != rv.ContinueExact {
				t.Fatalf("ResolveList(rv %q, continue) = %+v, %v; want ContinueExact", tt.resourceVersion, read, err)
			}
			key, tok, err := c.Decode(read.Continue, "pods/")
			if err != nil || key != "pods/ns1/pod-500\x00" || tok.Version != 10245 {
				t.Errorf("Decode(read.Continue) = %q, %+v, %v", key, tok, err)
			}
		})
	}
}

// TestForeignTokens: a token that is not of this package's format gets
// the detail a cluster gives it, as kube-apiserver 1.37.1 answered GET
// /api/v1/namespaces/demo/configmaps?continue=<token> with 400
// BadRequest `invalid continue token: continue key is not valid:
// <detail>` (the token is the base64 of the JSON shown, or as written).
func TestForeignTokens(t *testing.T) {
	b64 := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tt := range []struct{ token, detail string }{
		{"abc", "invalid character 'i' looking for beginning of value"},
		{b64(`{}`), "server does not recognize this encoded version "},
		{b64(`{"v":"x"}`), "server does not recognize this encoded version x"},
		{b64(`{"V":"x"}`), "server does not recognize this encoded version x"},
		{b64(`  {"v":"y"}`), "server does not recognize this encoded version y"},
		{b64(`null`), "server does not recognize this encoded version "},
		{b64(`{"v":1}`), "json: cannot unmarshal number into Go struct field continueToken.v of type string"},
		{b64(`{"v":"meta.k8s.io/v1","rv":"x","start":"a"}`), "json: cannot unmarshal string into Go struct field continueToken.rv of type int64"},
		{b64(`[]`), "json: cannot unmarshal array into Go value of type storage.continueToken"},
		{b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"a"} x`), "invalid character 'x' after top-level value"},
		{b64(`{"v":"meta.k8s.io/v1","rv":0,"start":"w1\u0000"}`), "incorrect encoded start resourceVersion (version meta.k8s.io/v1)"},
		{b64(`{"v":"meta.k8s.io/v1","rv":5,"start":""}`), "encoded start key empty (version meta.k8s.io/v1)"},
		{b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"../x\u0000"}`), "../x\x00"},
		{b64(`{"v":"meta.k8s.io/v1","rv":5,"start":"w1/"}`), "w1/"},
	} {
		_, _, err := (&Codec{}).Decode(tt.token, "configmaps/demo/")
		if want := invalidPrefix + tt.detail; err == nil || err.Error() != want || !status.IsBadRequest(err) || !errors.Is(err, ErrMalformed) {
			t.Errorf("Decode(%q) = %v; want the 400 %q", tt.token, err, want)
		}
	}
}
