package connlimit

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limits are the caps of Wrap. The zero value means the defaults, derived
// from the process's limit on open files (RLIMIT_NOFILE, which Go raises
// to the hard limit at start; 4096 where there is none): the defaults
// leave a quarter of that limit for everything else a server opens
// (files, connections to etcd or a host cluster).
type Limits struct {
	// Max is how many connections are served at once. 0 means three
	// quarters of the file limit, less the reserve; negative, no cap.
	Max int
	// MaxPerClient is how many of those may come from one client address
	// (an IPv4 address or an IPv6 /64). 0 means a quarter of Max;
	// negative, no cap.
	MaxPerClient int
	// Reserve is how many connections over the caps are kept open for
	// health checks (see the package doc), each client address having at
	// most ReservePerClient of them. 0 means 1/64 of the file limit, at
	// least 8; negative, none: over the caps, connections are closed at
	// once.
	Reserve int
	// Health reports whether a request is a health check, served on a
	// reserve connection. nil means IsHealthCheck.
	Health func(r *http.Request) bool
	// Refused, if set, is called with each request a reserve connection
	// refuses with the 429, before the answer, for a metric (package
	// server counts them as it counts the 429s of its in-flight limits).
	// nil means nothing is called.
	Refused func(r *http.Request)
}

// ReservePerClient is how many reserve connections one client address
// may hold: enough for a kubelet's liveness, readiness and startup probes
// at once.
const ReservePerClient = 4

// ReserveTimeout is the longest a reserve connection lives, handshake
// included: a health check takes milliseconds, and a connection that
// sends nothing must not hold the reserve for the server's
// ReadHeaderTimeout.
const ReserveTimeout = 5 * time.Second

// rejectLinger is how long a reserve connection whose request was refused
// may still be read from, as net/http's own delay before closing a
// connection whose request it did not read to the end.
const rejectLinger = 500 * time.Millisecond

// unknownFileLimit stands for the file limit where the system has none.
const unknownFileLimit = 4096

// limits are Limits resolved: a cap of 0 is none.
type limits struct {
	max, perClient, reserve int
	health                  func(*http.Request) bool
	refused                 func(*http.Request) // nil: none
}

// resolve fills in the defaults of lim for a file limit of files.
func (lim Limits) resolve(files int) limits {
	l := limits{health: lim.Health, refused: lim.Refused}
	if l.health == nil {
		l.health = IsHealthCheck
	}
	switch {
	case lim.Reserve < 0:
	case lim.Reserve == 0:
		l.reserve = max(8, files/64)
	default:
		l.reserve = lim.Reserve
	}
	switch {
	case lim.Max < 0:
	case lim.Max == 0:
		l.max = max(1, files*3/4-l.reserve)
	default:
		l.max = lim.Max
	}
	switch {
	case lim.MaxPerClient < 0:
	case lim.MaxPerClient == 0:
		if l.max > 0 {
			l.perClient = max(1, l.max/4)
		}
	default:
		l.perClient = lim.MaxPerClient
	}
	return l
}

// IsHealthCheck reports whether r is a GET or HEAD of a Kubernetes health
// endpoint: /healthz, /livez or /readyz, or one check of one
// (/readyz/ping).
func IsHealthCheck(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p, ok := strings.CutPrefix(r.URL.Path, "/")
	if !ok {
		return false
	}
	endpoint, check, sub := strings.Cut(p, "/")
	if sub && (check == "" || strings.Contains(check, "/")) {
		return false
	}
	switch endpoint {
	case "healthz", "livez", "readyz":
		return true
	}
	return false
}

// Wrap returns l capped by lim for hs, which must then serve it (Serve or
// ServeTLS): it chains hs.ConnContext, to mark reserve connections, and
// hs.Handler, to answer their requests other than health checks. With no
// cap at all it returns l and leaves hs alone.
func (lim Limits) Wrap(l net.Listener, hs *http.Server) net.Listener {
	files, ok := fileLimit()
	if !ok {
		files = unknownFileLimit
	}
	return lim.resolve(files).wrap(l, hs)
}

func (lim limits) wrap(l net.Listener, hs *http.Server) net.Listener {
	if lim.max == 0 && lim.perClient == 0 {
		return l
	}
	cl := &listener{Listener: l, lim: lim}
	prev := hs.ConnContext
	hs.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prev != nil {
			ctx = prev(ctx, c)
		}
		if lc := unwrap(c); lc != nil && lc.reserve {
			ctx = context.WithValue(ctx, reserveKey{}, true)
		}
		return ctx
	}
	next := hs.Handler
	if next == nil {
		next = http.DefaultServeMux
	}
	hs.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reserve, _ := r.Context().Value(reserveKey{}).(bool); reserve {
			// Closes the connection after the response, in HTTP/2 too
			// (a GOAWAY).
			w.Header().Set("Connection", "close")
			if !lim.health(r) {
				if lim.refused != nil {
					lim.refused(r)
				}
				tooManyRequests(w)
				// net/http reads what is left of a small body before
				// it closes: no longer than a moment, which keeps the
				// answer from being lost to a reset.
				_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(rejectLinger))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
	return cl
}

// reserveKey marks the context of a reserve connection's requests.
type reserveKey struct{}

// tooManyRequests answers as kube-apiserver's max-in-flight filter does,
// so that clients retry as they would there.
func tooManyRequests(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
}

// unwrap returns the connection of a listener under c, which may be a
// *tls.Conn or another wrapper with NetConn.
func unwrap(c net.Conn) *conn {
	for {
		switch x := c.(type) {
		case *conn:
			return x
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return nil
		}
	}
}

// listener places each connection it accepts in a zone (see the package
// doc) and counts the open ones.
type listener struct {
	net.Listener
	lim limits

	mu      sync.Mutex
	served  int                      // guarded by mu
	reserve int                      // guarded by mu
	clients map[netip.Prefix]*counts // guarded by mu; lazily initialized, no zero entries
	closed  atomic.Int64             // connections closed at once
}

// counts are the open connections of one client address.
type counts struct{ served, reserve int }

// Accept returns the next connection to serve, closing those over the
// caps as they come.
func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if lc := l.admit(c); lc != nil {
			return lc, nil
		}
		l.closed.Add(1)
		c.Close()
	}
}

// admit places c and counts it, or returns nil if it is to be closed.
func (l *listener) admit(c net.Conn) *conn {
	key, keyed := clientOf(c.RemoteAddr())
	l.mu.Lock()
	defer l.mu.Unlock()
	var cc *counts
	if keyed {
		cc = l.clients[key]
	}
	var mine counts // the client's open connections
	if cc != nil {
		mine = *cc
	}
	reserve := false
	switch {
	case (l.lim.max == 0 || l.served < l.lim.max) && (l.lim.perClient == 0 || mine.served < l.lim.perClient):
	case l.reserve < l.lim.reserve && mine.reserve < ReservePerClient:
		reserve = true
	default:
		return nil
	}
	if cc == nil {
		cc = &counts{}
		if keyed {
			if l.clients == nil {
				l.clients = map[netip.Prefix]*counts{}
			}
			l.clients[key] = cc
		}
	}
	lc := &conn{Conn: c, l: l, client: cc, key: key, keyed: keyed, reserve: reserve}
	if reserve {
		l.reserve++
		cc.reserve++
		lc.until = time.Now().Add(ReserveTimeout)
		_ = c.SetDeadline(lc.until)
	} else {
		l.served++
		cc.served++
	}
	return lc
}

// release uncounts c.
func (l *listener) release(c *conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.reserve {
		l.reserve--
		c.client.reserve--
	} else {
		l.served--
		c.client.served--
	}
	if c.keyed && *c.client == (counts{}) {
		delete(l.clients, c.key)
	}
}

// clientOf returns the client address of a connection from addr: an IPv4
// address, or the /64 of an IPv6 one; false for other addresses.
func clientOf(addr net.Addr) (netip.Prefix, bool) {
	var ip netip.Addr
	switch a := addr.(type) {
	case *net.TCPAddr:
		ip, _ = netip.AddrFromSlice(a.IP)
	default:
		ap, err := netip.ParseAddrPort(addr.String())
		if err != nil {
			return netip.Prefix{}, false
		}
		ip = ap.Addr()
	}
	ip = ip.Unmap()
	switch {
	case ip.Is4():
		return netip.PrefixFrom(ip, 32), true
	case ip.Is6():
		p, _ := ip.WithZone("").Prefix(64)
		return p, true
	}
	return netip.Prefix{}, false
}

// conn is a connection the listener counts until it is closed. A reserve
// connection's deadlines never pass until, the end of its life.
type conn struct {
	net.Conn
	l       *listener
	client  *counts // the client's counts; guarded by l.mu
	key     netip.Prefix
	keyed   bool // key is the client's address
	reserve bool
	until   time.Time // of a reserve connection
	done    atomic.Bool
}

// Close closes the connection and uncounts it, once.
func (c *conn) Close() error {
	if c.done.CompareAndSwap(false, true) {
		c.l.release(c)
	}
	return c.Conn.Close()
}

func (c *conn) SetDeadline(t time.Time) error      { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *conn) SetReadDeadline(t time.Time) error  { return c.Conn.SetReadDeadline(c.clamp(t)) }
func (c *conn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.clamp(t)) }

// clamp returns the deadline t, or the end of the connection's life if
// that comes first.
func (c *conn) clamp(t time.Time) time.Time {
	if c.reserve && (t.IsZero() || t.After(c.until)) {
		return c.until
	}
	return t
}

// CloseWrite half-closes the connection if it can: net/http does it
// before closing one whose request it did not read to the end, so that
// the response is not lost to a reset.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom lets io.Copy to the connection use the TCP connection's
// sendfile and splice.
func (c *conn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }
