package paging

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// Token is what a continue token carries.
type Token struct {
	// Version is the list's snapshot revision: every page after the first
	// is read at it. 0 means "inconsistent": continue at the latest revision
	// (the token a 410 Expired offers; Kubernetes writes it as rv -1).
	Version rv.Version
	// Start is the key the next page starts at, relative to the
	// collection's key prefix (NextStart computes it, ending with a NUL,
	// which Decode requires). It is never an absolute key, so a token
	// cannot name a key outside the collection it is used on.
	Start string
	// IssuedAt is when the list's first page was served. It is zero unless
	// Codec.Now or Codec.MaxAge is in use, and is kept to the second.
	IssuedAt time.Time
}

// Next returns the token for the page after t: same snapshot, same issue
// time, new start. Carrying IssuedAt forward makes Codec.MaxAge bound the
// age of the whole paged list, as compaction bounds the age of its
// snapshot, rather than the pause between two pages.
func (t Token) Next(start string) Token {
	return Token{Version: t.Version, Start: start, IssuedAt: t.IssuedAt}
}

// Codec encodes and decodes continue tokens. The zero value is ready to
// use: unsigned tokens (as Kubernetes issues them) and no maximum age. A
// Codec is safe for concurrent use as long as its fields are not changed
// after first use. A Codec must not be copied after first use (it keeps
// keyed HMAC states for its Keys; go vet reports copies): share a
// *Codec.
type Codec struct {
	// Keys are HMAC-SHA256 keys. Keys[0] signs every token; a token signed
	// with any of the keys verifies, so a new key can be put first while
	// the old one stays second until lists in flight have finished. Use at
	// least 32 random bytes per key. nil means unsigned tokens.
	Keys [][]byte
	// MaxAge, if positive, is how long a paged list may last: a token
	// whose IssuedAt is older, or that has no IssuedAt, is answered with
	// the same 410 Expired as a compacted snapshot. Without Keys a client
	// can rewrite IssuedAt, so MaxAge is then advisory.
	MaxAge time.Duration
	// Now returns the current time; nil means time.Now. It stamps
	// IssuedAt and measures MaxAge.
	Now func() time.Time

	// macs pools *macState values: HMAC states keyed once rather than on
	// every call, which halves the SHA-256 work of a typical signed token.
	macs sync.Pool
}

// The token layout, before URL-safe base64 without padding:
//
//	byte 0     format version (formatV1)
//	byte 1     flags (flagIssuedAt, flagSigned; other bits must be zero)
//	uvarint    Version
//	varint     IssuedAt in Unix seconds, if flagIssuedAt
//	bytes      Start, up to the MAC or the end
//	16 bytes   HMAC-SHA256 of everything before it, truncated, if flagSigned
//
// Varints must be minimal so that every token has exactly one encoding.
// A change of layout takes a new format version; decoders name the version
// they do not know instead of misreading it.
const (
	formatV1     = 1
	flagIssuedAt = 1 << 0
	flagSigned   = 1 << 1
	knownFlags   = flagIssuedAt | flagSigned

	// stackPayload bounds the payloads built without heap allocation; a
	// longer Start still works, with an extra allocation.
	stackPayload = 256
)

// MaxStartLen is the longest relative start key a token may carry. It is
// far above any Kubernetes key (namespace and name together stay under
// 320 bytes) and bounds the work a hostile token can cause.
const MaxStartLen = 4096

// MaxTokenLen is the length of the longest token Decode accepts: the
// base64 length of the largest payload. Longer input is rejected before
// any decoding work.
const MaxTokenLen = (maxPayload*8 + 5) / 6

// maxPayload is the largest payload: header, two varints, start and MAC.
const maxPayload = 2 + 2*binary.MaxVarintLen64 + MaxStartLen + macLen

// b64 encodes tokens: URL-safe alphabet, no padding, so a token needs no
// escaping in a query string. decodeBase64 is its strict inverse.
var b64 = base64.RawURLEncoding

// Sentinel errors, wrapped by the *status.Error values Decode returns, so a
// caller can tell the failures apart with errors.Is.
var (
	// ErrMalformed: the token is not a well-formed token of a format this
	// package knows (bad base64, truncated, unknown version or flags).
	ErrMalformed = errors.New("paging: malformed continue token")
	// ErrSignature: keys are configured and the token is unsigned or its
	// signature verifies with none of them (forged or altered).
	ErrSignature = errors.New("paging: continue token signature does not verify")
	// ErrUnsafeStart: the start key is empty, too long, or could leave or
	// alias the collection ("..", ".", empty segments, absolute, NUL
	// before the end, invalid UTF-8).
	ErrUnsafeStart = errors.New("paging: continue token start key is not a clean relative key")
	// ErrKeyPrefix: a key prefix is not a collection prefix (it must end
	// with "/"), or a key is not under it. These are server bugs (500).
	ErrKeyPrefix = errors.New("paging: key and key prefix do not match")
)

// Kubernetes' texts (k8s.io/apiserver/pkg/storage/continue.go and
// etcd3/errors.go).
const (
	invalidPrefix = "invalid continue token: continue key is not valid: "
	expiredLong   = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
	expiredShort  = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."
)

// cutShort is the detail of a token cut short: Kubernetes' for its JSON
// tokens (encoding/json's io.ErrUnexpectedEOF text), which a cut token
// always gets from a cluster.
const cutShort = "unexpected end of JSON input"

// errTrailingBits is decodeBase64's error for a last character whose
// unused bits are not zero: never in a token a server issued, so the
// token was cut (Kubernetes, which decodes leniently, then finds its JSON
// cut) or altered.
var errTrailingBits = errors.New("paging: nonzero trailing bits")

func invalid(cause error, detail string) *status.Error {
	return status.NewBadRequest(invalidPrefix + detail).Wrap(cause)
}

func (c *Codec) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// Encode returns t as a continue token. It never fails: a Start that
// Decode would reject (see NextStart; it must end with the NUL NextStart
// appends) yields a token Decode rejects.
func (c *Codec) Encode(t Token) string {
	var buf [stackPayload]byte
	p := c.build(buf[:0], t)
	out := make([]byte, b64.EncodedLen(len(p)))
	b64.Encode(out, p)
	// out is never written again, so it can back the string: one
	// allocation instead of two, as strings.Builder does.
	return unsafe.String(unsafe.SliceData(out), len(out))
}

// AppendToken appends the token for t to dst and returns the extended
// buffer, for servers that write the list metadata into a buffer of their
// own.
func (c *Codec) AppendToken(dst []byte, t Token) []byte {
	var buf [stackPayload]byte
	return b64.AppendEncode(dst, c.build(buf[:0], t))
}

// build appends the payload of t, signed if keys are configured, to b.
func (c *Codec) build(b []byte, t Token) []byte {
	b = c.appendPayload(b, t)
	if len(c.Keys) > 0 {
		tag := c.sign(b)
		b = append(b, tag[:]...)
	}
	return b
}

// appendPayload appends the unsigned payload of t to b.
func (c *Codec) appendPayload(b []byte, t Token) []byte {
	issued := t.IssuedAt
	if issued.IsZero() && (c.MaxAge > 0 || c.Now != nil) {
		issued = c.now()
	}
	var flags byte
	if !issued.IsZero() {
		flags |= flagIssuedAt
	}
	if len(c.Keys) > 0 {
		flags |= flagSigned
	}
	b = append(b, formatV1, flags)
	b = binary.AppendUvarint(b, uint64(t.Version))
	if !issued.IsZero() {
		b = binary.AppendVarint(b, issued.Unix())
	}
	return append(b, t.Start...)
}

// Decode checks, decodes and confines a token for the collection
// keyPrefix, which must end with "/". It returns the absolute start key
// (keyPrefix + the token's relative start) and the token.
//
// A malformed, forged or unsafe token is a 400 BadRequest `invalid
// continue token: continue key is not valid: <why>`, wrapping ErrMalformed,
// ErrSignature or ErrUnsafeStart. A token older than MaxAge is the 410 of
// Expired. A keyPrefix without trailing "/" is a 500 wrapping ErrKeyPrefix.
//
// Decode does not check the token against the request's resourceVersion
// (rv.ListOptions.ResolveList answers the 400 for a continue token with a
// resourceVersion other than "" or "0") or against the store's history:
// reading at t.Version, and answering Expired when it has been compacted,
// is the store's part. Without Keys a client can write any revision into a
// token; a store treats one it has not reached like any other read at a
// future revision.
func (c *Codec) Decode(token, keyPrefix string) (startKey string, t Token, err error) {
	if keyPrefix == "" || keyPrefix[len(keyPrefix)-1] != '/' {
		return "", Token{}, status.NewInternalError(ErrKeyPrefix)
	}
	switch {
	case token == "":
		return "", Token{}, invalid(ErrMalformed, "token is empty")
	case len(token) > MaxTokenLen:
		return "", Token{}, invalid(ErrMalformed, "token is longer than "+strconv.Itoa(MaxTokenLen)+" bytes")
	}
	var stack [stackPayload]byte
	buf := stack[:]
	if n := b64.DecodedLen(len(token)); n > len(buf) {
		buf = make([]byte, n)
	}
	n, err := decodeBase64(buf, token)
	if err == errTrailingBits {
		return "", Token{}, invalid(ErrMalformed, cutShort)
	}
	if err != nil {
		return "", Token{}, invalid(ErrMalformed, err.Error())
	}
	p := buf[:n]
	if len(p) < 2 {
		return "", Token{}, invalid(ErrMalformed, cutShort)
	}
	if p[0] != formatV1 {
		// A control character cannot begin JSON: a version of this
		// package's layout, named. Anything else is read as a cluster
		// reads it (the copy keeps buf off the heap).
		if p[0] < ' ' && p[0] != '\t' && p[0] != '\n' && p[0] != '\r' {
			return "", Token{}, invalid(ErrMalformed, "server does not recognize this encoded version "+strconv.Itoa(int(p[0])))
		}
		return "", Token{}, invalid(ErrMalformed, foreignDetail(append([]byte(nil), p...)))
	}
	flags := p[1]
	if flags&^knownFlags != 0 {
		return "", Token{}, invalid(ErrMalformed, "unknown flags 0x"+strconv.FormatUint(uint64(flags), 16)+" (version 1)")
	}
	if flags&flagSigned != 0 {
		if len(p) < 2+macLen {
			return "", Token{}, invalid(ErrMalformed, cutShort)
		}
		tag := p[len(p)-macLen:]
		p = p[:len(p)-macLen]
		// Without keys a signed token is accepted unverified, exactly as an
		// unsigned one would be: signing can be switched off without
		// breaking lists in flight.
		if len(c.Keys) > 0 && !c.verify(p, tag) {
			return "", Token{}, invalid(ErrSignature, "signature does not match")
		}
	} else if len(c.Keys) > 0 {
		return "", Token{}, invalid(ErrSignature, "token is not signed")
	}

	i := 2
	v, w := binary.Uvarint(p[i:])
	if w == 0 {
		return "", Token{}, invalid(ErrMalformed, cutShort)
	}
	if w < 0 || (w > 1 && p[i+w-1] == 0) {
		return "", Token{}, invalid(ErrMalformed, "incorrect encoded start resourceVersion (version 1)")
	}
	t.Version = rv.Version(v)
	i += w
	if flags&flagIssuedAt != 0 {
		s, w := binary.Varint(p[i:])
		if w == 0 {
			return "", Token{}, invalid(ErrMalformed, cutShort)
		}
		// The zero time would re-encode as "no issue time": one token, one
		// spelling.
		t.IssuedAt = time.Unix(s, 0).UTC()
		if w <= 0 || (w > 1 && p[i+w-1] == 0) || t.IssuedAt.IsZero() {
			return "", Token{}, invalid(ErrMalformed, "incorrect encoded issue time (version 1)")
		}
		i += w
	}
	start := p[i:]
	if len(start) == 0 {
		return "", Token{}, invalid(ErrUnsafeStart, "encoded start key empty (version 1)")
	}
	if len(start) > MaxStartLen {
		return "", Token{}, invalid(ErrUnsafeStart, "encoded start key longer than "+strconv.Itoa(MaxStartLen)+" bytes")
	}
	// One allocation: the absolute key. t.Start shares its memory.
	var sb strings.Builder
	sb.Grow(len(keyPrefix) + len(start))
	sb.WriteString(keyPrefix)
	sb.Write(start)
	startKey = sb.String()
	t.Start = startKey[len(keyPrefix):]
	if checkStart(t.Start) != "" {
		// Kubernetes' text: the start itself (at most MaxStartLen
		// bytes), not why it is refused.
		return "", Token{}, invalid(ErrUnsafeStart, t.Start)
	}
	// Every start a server issues ends with the NUL NextStart appends,
	// and the layout has no length: a token cut short (by a client, a
	// proxy, a copy and paste) would otherwise decode to an earlier
	// start and repeat part of the list, where Kubernetes' JSON tokens
	// fail to parse.
	if t.Start[len(t.Start)-1] != 0 {
		return "", Token{}, invalid(ErrMalformed, cutShort)
	}
	if c.MaxAge > 0 && (t.IssuedAt.IsZero() || c.now().Sub(t.IssuedAt) > c.MaxAge) {
		return "", Token{}, c.Expired(t)
	}
	return startKey, t, nil
}

// decodeBase64 decodes URL-safe unpadded base64 into dst, which must have
// room for b64.DecodedLen(len(s)) bytes. Unlike encoding/base64 it reads
// the string without converting it to []byte, and it rejects CR and LF
// (which encoding/base64 skips) and nonzero unused bits in the last
// character (errTrailingBits), so every token has one spelling.
func decodeBase64(dst []byte, s string) (int, error) {
	n := 0
	// Whole groups of four characters decode to three bytes.
	i := 0
	for ; i+4 <= len(s); i += 4 {
		a, b, c, d := b64val[s[i]], b64val[s[i+1]], b64val[s[i+2]], b64val[s[i+3]]
		if a|b|c|d == 0xff {
			return 0, corruptAt(s, i)
		}
		v := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(d)
		dst[n], dst[n+1], dst[n+2] = byte(v>>16), byte(v>>8), byte(v)
		n += 3
	}
	switch len(s) - i {
	case 0:
	case 1:
		// One character carries six bits: not a byte.
		return 0, base64.CorruptInputError(i)
	case 2:
		a, b := b64val[s[i]], b64val[s[i+1]]
		if a|b == 0xff {
			return 0, corruptAt(s, i)
		}
		if b&0x0f != 0 {
			return 0, errTrailingBits
		}
		dst[n] = a<<2 | b>>4
		n++
	case 3:
		a, b, c := b64val[s[i]], b64val[s[i+1]], b64val[s[i+2]]
		if a|b|c == 0xff {
			return 0, corruptAt(s, i)
		}
		if c&0x03 != 0 {
			return 0, errTrailingBits
		}
		v := uint32(a)<<12 | uint32(b)<<6 | uint32(c)
		dst[n], dst[n+1] = byte(v>>10), byte(v>>2)
		n += 2
	}
	return n, nil
}

// corruptAt returns the error for the first invalid character at or after
// i.
func corruptAt(s string, i int) error {
	for ; i < len(s); i++ {
		if b64val[s[i]] == 0xff {
			break
		}
	}
	return base64.CorruptInputError(i)
}

// b64val maps a character of the URL-safe alphabet to its six bits and
// every other byte to 0xff. Valid values are below 64, so OR-ing several
// equals 0xff only if one of them is invalid.
var b64val = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range t {
		t[i] = 0xff
	}
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// Expired returns the 410 Expired for a token whose snapshot has been
// compacted (or that is older than MaxAge), with Kubernetes' message. Its
// metadata.continue carries a new inconsistent token (Version 0) that
// continues from the same Start at the latest revision, so a client may
// choose an inconsistent remainder over relisting. If t.Start could not be
// decoded again, the error has Kubernetes' short message and no token.
func (c *Codec) Expired(t Token) *status.Error {
	if checkStart(t.Start) != "" {
		return status.NewExpired(expiredShort)
	}
	// A fresh IssuedAt: the inconsistent remainder is a new list as far as
	// MaxAge is concerned.
	return status.NewExpired(expiredLong).WithContinue(c.Encode(Token{Start: t.Start}))
}

// quoteShort quotes s for an error message, cut to 64 bytes so a hostile
// token cannot make the server echo kilobytes.
func quoteShort(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "..."
	}
	return strconv.Quote(s)
}

// continueToken is Kubernetes' token, JSON before base64 (its name is
// in encoding/json's type errors, which a cluster passes on).
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// foreignDetail is why a payload that is not of this package's format
// is refused, in the words a cluster uses for it: Kubernetes reads every
// token as its JSON form, so garbage gets encoding/json's error and
// another version its "does not recognize". A well-formed token of
// Kubernetes' own form, which this package does not issue, is refused
// as an unknown version too, after the checks Kubernetes makes of it.
func foreignDetail(p []byte) string {
	var k continueToken
	if err := json.Unmarshal(p, &k); err != nil {
		// The type's package is named too: Kubernetes' is storage.
		return strings.Replace(err.Error(), " paging.continueToken", " storage.continueToken", 1)
	}
	const version = "meta.k8s.io/v1"
	switch {
	case k.APIVersion != version:
	case k.ResourceVersion == 0:
		return "incorrect encoded start resourceVersion (version " + version + ")"
	case k.StartKey == "":
		return "encoded start key empty (version " + version + ")"
	case !strings.HasPrefix(k.StartKey, "/") && path.Clean("/"+k.StartKey) != "/"+k.StartKey,
		strings.HasPrefix(k.StartKey, "/") && path.Clean(k.StartKey) != k.StartKey:
		return k.StartKey
	}
	return "server does not recognize this encoded version " + k.APIVersion
}
