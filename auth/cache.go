package auth

import (
	"crypto/tls"
	"crypto/x509"
	"runtime"
	"slices"
	"sync"
	"time"
	"weak"
)

// maxCacheEntries bounds a cache's memory: an attacker sending a new
// token on every request must not grow it without limit.
const maxCacheEntries = 4096

// ttlCache remembers answers until they expire. The zero value is an
// empty cache.
type ttlCache[V any] struct {
	mu sync.Mutex
	m  map[string]ttlEntry[V] // guarded by mu; lazily initialized
}

type ttlEntry[V any] struct {
	v       V
	expires time.Time
}

// get returns the answer for key if it has not expired at now.
func (c *ttlCache[V]) get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || !now.Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// put remembers v for key until expires. A full cache first drops its
// expired entries, then arbitrary ones: it is a cache, not a record.
func (c *ttlCache[V]) put(key string, v V, now, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]ttlEntry[V]{}
	}
	if len(c.m) >= maxCacheEntries {
		for k, e := range c.m {
			if !now.Before(e.expires) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < maxCacheEntries {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[key] = ttlEntry[V]{v: v, expires: expires}
}

// maxVerifiedConns bounds the connections a ConnVerifier remembers at
// once. A server's connection caps (package server/connlimit) usually
// keep it far below.
const maxVerifiedConns = 1 << 16

// maxResultsPerConn bounds the pools of roots one connection's answers
// are remembered for: a Chain needs two (front proxy and clients).
const maxResultsPerConn = 4

// A ConnVerifier verifies the client certificates of TLS connections for
// ClientCert and RequestHeader, and remembers the answers: a connection's
// certificate is verified against a pool of roots once, at the
// connection's first request, and the answer, success or failure, reused
// by its later requests for as long as it holds (until a certificate of
// the chain expires, say). Requests of one connection that arrive
// together (HTTP/2) wait for one verification.
//
// Each authenticator has a ConnVerifier of its own unless given one. Give
// the RequestHeader and the ClientCert of a server the same ConnVerifier,
// and a connection is verified once for both when their CA pools are
// equal (as with kube-apiserver's -client-ca-file and
// -requestheader-client-ca-file naming one file), once for each
// otherwise.
//
// Answers are keyed by the connection's *tls.ConnectionState: net/http
// (HTTP/1 and HTTP/2) makes one per connection, at the handshake, and
// hands the same pointer to each of its requests. The key is a weak
// pointer, so a ConnVerifier keeps no connection alive and two
// connections never share an answer, even one whose state was allocated
// where a collected one's was; the answers go when the state is collected,
// that is once the connection is closed and its last request done. At
// most 65,536 connections are remembered at once; beyond, some are
// forgotten, and verified again at their next request.
//
// The zero value is ready to use. A ConnVerifier is safe for concurrent
// use and must not be copied after first use.
type ConnVerifier struct {
	mu    sync.Mutex
	conns map[weak.Pointer[tls.ConnectionState]]*connVerified // guarded by mu; lazily initialized
}

// connVerified is what one connection's verifications answered.
type connVerified struct {
	// mu is held during a verification, so that concurrent requests of
	// one HTTP/2 connection wait for one verification instead of making
	// their own.
	mu sync.Mutex
	// peers is the PeerCertificates the answers are for. A
	// ConnectionState of net/http never changes; one built by hand and
	// changed in place gets fresh answers.
	peers         []*x509.Certificate // guarded by mu
	results       []verifyResult      // guarded by mu; oldest first
	verifications int                 // guarded by mu; for tests
}

// verifyResult is the answer of one verification against roots, which
// holds at times in [from, until).
type verifyResult struct {
	roots       *x509.CertPool
	leaf        *x509.Certificate
	err         error
	from, until time.Time
}

// verify verifies state's client certificate against roots at now, or
// returns the answer of an earlier verification of the same connection
// against equal roots if it still holds at now.
func (v *ConnVerifier) verify(state *tls.ConnectionState, roots *x509.CertPool, now time.Time) (*x509.Certificate, error) {
	c := v.conn(state)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !samePeers(c.peers, state.PeerCertificates) {
		c.peers, c.results = state.PeerCertificates, nil
	}
	for i, r := range c.results {
		if r.roots != roots && !r.roots.Equal(roots) {
			continue
		}
		if !now.Before(r.from) && now.Before(r.until) {
			return r.leaf, r.err
		}
		c.results = slices.Delete(c.results, i, i+1)
		break
	}
	leaf, from, until, err := verifyChain(state.PeerCertificates, roots, now)
	c.verifications++
	if len(c.results) == maxResultsPerConn {
		c.results = slices.Delete(c.results, 0, 1)
	}
	c.results = append(c.results, verifyResult{roots: roots, leaf: leaf, err: err, from: from, until: until})
	return leaf, err
}

// samePeers reports whether a and b are the same slice.
func samePeers(a, b []*x509.Certificate) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// conn returns the entry of state's connection, made if new.
func (v *ConnVerifier) conn(state *tls.ConnectionState) *connVerified {
	key := weak.Make(state)
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.conns[key]; ok {
		return c
	}
	if v.conns == nil {
		v.conns = map[weak.Pointer[tls.ConnectionState]]*connVerified{}
	}
	if len(v.conns) >= maxVerifiedConns {
		// Cleanups may lag behind the collector: drop what is gone, then
		// (more live connections than the bound) arbitrary entries, an
		// eighth, so that the next connections do not sweep again. An
		// evicted connection is verified again at its next request.
		for k := range v.conns {
			if k.Value() == nil {
				delete(v.conns, k)
			}
		}
		for k := range v.conns {
			if len(v.conns) <= maxVerifiedConns*7/8 {
				break
			}
			delete(v.conns, k)
		}
	}
	c := &connVerified{}
	v.conns[key] = c
	runtime.AddCleanup(state, v.forget, key)
	return c
}

// forget drops the entry of a collected connection.
func (v *ConnVerifier) forget(key weak.Pointer[tls.ConnectionState]) {
	v.mu.Lock()
	defer v.mu.Unlock()
	delete(v.conns, key)
}

// len returns the number of connections remembered.
func (v *ConnVerifier) len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.conns)
}

// verificationsOf returns how many times state's certificate was
// verified since the connection was first seen.
func (v *ConnVerifier) verificationsOf(state *tls.ConnectionState) int {
	v.mu.Lock()
	c := v.conns[weak.Make(state)]
	v.mu.Unlock()
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.verifications
}
