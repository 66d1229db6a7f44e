package paging

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"hash"
	"unsafe"
)

// macLen is the length of the truncated HMAC-SHA256 tag. A forger never
// sees a tag it could test offline: each guess costs a request to the
// server, so 2^128 guesses are out of reach by any margin (HMAC truncation
// to half the hash is standard practice, e.g. RFC 4868), and the token
// stays 21 characters shorter than with all 32 bytes.
const macLen = 16

// macState is the signing machinery one call borrows from Codec.macs: an
// HMAC per key, keyed once and Reset to its keyed state for every token
// (crypto/hmac then restores precomputed inner and outer SHA-256 states
// instead of hashing the padded key twice), and a buffer the signed bytes
// pass through.
type macState struct {
	// key[i] is the key macs[i] was made with, compared by identity so
	// that a state never signs with a key the Codec no longer holds.
	key  [][]byte
	macs []hash.Hash
	// buf carries the signed bytes to Write. Passing the caller's slice to
	// an interface method would move its buffer, usually on the stack, to
	// the heap on every call; copying a few dozen bytes is cheaper.
	buf [stackPayload]byte
	sum [sha256.Size]byte
}

// getMAC borrows a macState for c.Keys; putMAC returns it.
func (c *Codec) getMAC() *macState {
	m, _ := c.macs.Get().(*macState)
	if m == nil {
		m = new(macState)
	}
	if len(m.macs) != len(c.Keys) {
		m.key = make([][]byte, len(c.Keys))
		m.macs = make([]hash.Hash, len(c.Keys))
	}
	return m
}

func (c *Codec) putMAC(m *macState) { c.macs.Put(m) }

// tag returns the truncated HMAC-SHA256 of p under keys[i] (a Codec's
// Keys).
func (m *macState) tag(keys [][]byte, i int, p []byte) (tag [macLen]byte) {
	k := keys[i]
	h := m.macs[i]
	if h == nil || len(m.key[i]) != len(k) || unsafe.SliceData(m.key[i]) != unsafe.SliceData(k) {
		h = hmac.New(sha256.New, k)
		m.key[i], m.macs[i] = k, h
	}
	h.Reset()
	for len(p) > 0 {
		n := copy(m.buf[:], p)
		h.Write(m.buf[:n])
		p = p[n:]
	}
	copy(tag[:], h.Sum(m.sum[:0]))
	return tag
}

// sign returns the tag of p under Keys[0], which signs every token.
func (c *Codec) sign(p []byte) [macLen]byte {
	m := c.getMAC()
	t := m.tag(c.Keys, 0, p)
	c.putMAC(m)
	return t
}

// verify reports whether tag is the MAC of p under any key. Each
// comparison is constant-time, so a forger learns nothing from how long a
// wrong tag takes; stopping at the first match only reveals, for a
// genuine token, which key signed it, which is no secret.
func (c *Codec) verify(p, tag []byte) bool {
	m := c.getMAC()
	defer c.putMAC(m)
	for i := range c.Keys {
		want := m.tag(c.Keys, i, p)
		if subtle.ConstantTimeCompare(want[:], tag) == 1 {
			return true
		}
	}
	return false
}
