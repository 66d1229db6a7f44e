package connlimit

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/apisem/apisem/auth/certs"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name  string
		lim   Limits
		files int
		want  limits
	}{
		{"defaults, 1024 files", Limits{}, 1024, limits{max: 752, perClient: 188, reserve: 16}},
		{"defaults, 20000 files", Limits{}, 20000, limits{max: 14688, perClient: 3672, reserve: 312}},
		{"defaults, 100 files", Limits{}, 100, limits{max: 67, perClient: 16, reserve: 8}},
		{"defaults, 4 files", Limits{}, 4, limits{max: 1, perClient: 1, reserve: 8}},
		{"max set", Limits{Max: 1000}, 1024, limits{max: 1000, perClient: 250, reserve: 16}},
		{"all set", Limits{Max: 10, MaxPerClient: 3, Reserve: 2}, 1024, limits{max: 10, perClient: 3, reserve: 2}},
		{"no caps", Limits{Max: -1, MaxPerClient: -1, Reserve: -1}, 1024, limits{}},
		{"no total cap", Limits{Max: -1}, 1024, limits{reserve: 16}},
		{"no total cap, per client", Limits{Max: -1, MaxPerClient: 5}, 1024, limits{perClient: 5, reserve: 16}},
	}
	for _, tt := range tests {
		got := tt.lim.resolve(tt.files)
		if got.health == nil {
			t.Errorf("%s: no health check", tt.name)
		}
		if got.max != tt.want.max || got.perClient != tt.want.perClient || got.reserve != tt.want.reserve {
			t.Errorf("%s: %+v.resolve(%d) = %+v; want %+v", tt.name, tt.lim, tt.files, got, tt.want)
		}
	}
}

func TestIsHealthCheck(t *testing.T) {
	tests := []struct {
		method, target string
		want           bool
	}{
		{"GET", "/healthz", true},
		{"GET", "/livez", true},
		{"GET", "/readyz?verbose", true},
		{"HEAD", "/readyz", true},
		{"GET", "/readyz/ping", true},
		{"GET", "/readyz/", false},
		{"GET", "/readyz/ping/x", false},
		{"POST", "/healthz", false},
		{"GET", "/healthzz", false},
		{"GET", "/api/v1/healthz", false},
		{"GET", "/", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.target, nil)
		if got := IsHealthCheck(r); got != tt.want {
			t.Errorf("IsHealthCheck(%s %s) = %v; want %v", tt.method, tt.target, got, tt.want)
		}
	}
}

func TestClientOf(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.ParseIP("10.0.0.1"), Port: 5}, "10.0.0.1/32"},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:10.0.0.1"), Port: 5}, "10.0.0.1/32"},
		{&net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:3:4:5:6"), Port: 5}, "2001:db8:1:2::/64"},
		{&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 5, Zone: "eth0"}, "fe80::/64"},
		{&net.UnixAddr{Name: "/run/s.sock", Net: "unix"}, ""},
	}
	for _, tt := range tests {
		p, ok := clientOf(tt.addr)
		got := ""
		if ok {
			got = p.String()
		}
		if got != tt.want {
			t.Errorf("clientOf(%v) = %q; want %q", tt.addr, got, tt.want)
		}
	}
}

// testServer serves lim on loopback: /slow holds its connection until the
// test ends, every other path answers "ok".
type testServer struct {
	t       *testing.T
	addr    string
	l       *listener
	tls     *tls.Config // of clients; nil for plain HTTP
	entered chan struct{}
}

func newTestServer(t *testing.T, lim Limits, withTLS bool) *testServer {
	t.Helper()
	release := make(chan struct{})
	ts := &testServer{t: t, entered: make(chan struct{}, 16)}
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ts.entered <- struct{}{}
		<-release
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	hs := &http.Server{Handler: mux, ErrorLog: log.New(io.Discard, "", 0)}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = inner.Addr().String()
	l := lim.resolve(1024).wrap(inner, hs)
	ts.l = l.(*listener)
	done := make(chan error, 1)
	if withTLS {
		ca, err := certs.NewCA("test-ca")
		if err != nil {
			t.Fatal(err)
		}
		cert, err := ca.IssueServing("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
		ts.tls = &tls.Config{RootCAs: ca.Pool(), ServerName: "127.0.0.1"}
		go func() { done <- hs.ServeTLS(l, "", "") }()
	} else {
		go func() { done <- hs.Serve(l) }()
	}
	t.Cleanup(func() {
		close(release)
		hs.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return ts
}

// dial connects from the loopback address from.
func (ts *testServer) dial(from string) net.Conn {
	ts.t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", ts.addr)
	if err != nil {
		ts.t.Fatal(err)
	}
	// A guard against a hung test, not a measure: every read here is
	// answered or closed promptly.
	c.SetDeadline(time.Now().Add(time.Minute))
	if ts.tls != nil {
		c = tls.Client(c, ts.tls)
	}
	ts.t.Cleanup(func() { c.Close() })
	return c
}

// do sends an HTTP/1.1 request on c and reads the response.
func (ts *testServer) do(c net.Conn, method, path, extra string) (code int, body string, header http.Header) {
	ts.t.Helper()
	if _, err := io.WriteString(c, method+" "+path+" HTTP/1.1\r\nHost: test\r\n"+extra+"\r\n"); err != nil {
		ts.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		ts.t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatal(err)
	}
	if resp.Close {
		resp.Header.Set("Connection", "close")
	}
	return resp.StatusCode, string(b), resp.Header
}

// hold starts a request to /slow on a connection from from, which the
// connection keeps until the test ends.
func (ts *testServer) hold(from string) net.Conn {
	ts.t.Helper()
	c := ts.dial(from)
	if _, err := io.WriteString(c, "GET /slow HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		ts.t.Fatal(err)
	}
	<-ts.entered
	return c
}

// idle opens a connection from from that sends nothing, and waits until
// the listener counts it.
func (ts *testServer) idle(from string) net.Conn {
	ts.t.Helper()
	before := ts.open()
	c := ts.dial(from)
	ts.waitOpen(before + 1)
	return c
}

// open returns how many connections the listener counts.
func (ts *testServer) open() int {
	ts.l.mu.Lock()
	defer ts.l.mu.Unlock()
	return ts.l.served + ts.l.reserve
}

// waitOpen waits until the listener counts n connections.
func (ts *testServer) waitOpen(n int) {
	ts.t.Helper()
	for range 10000 {
		if ts.open() == n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	ts.t.Fatalf("the listener counts %d connections; want %d", ts.open(), n)
}

// wantClosed checks that the server closes c without an answer.
func (ts *testServer) wantClosed(c net.Conn, what string) {
	ts.t.Helper()
	io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
	n, err := c.Read(make([]byte, 1))
	var ne net.Error
	if n != 0 || err == nil || errors.As(err, &ne) && ne.Timeout() {
		ts.t.Errorf("%s: read %d bytes, %v; want the connection closed", what, n, err)
	}
}

// wantAnswer checks that c is answered code and body, and then closed
// if closed.
func (ts *testServer) wantAnswer(c net.Conn, method, path, extra string, code int, body string, closed bool) {
	ts.t.Helper()
	gotCode, gotBody, h := ts.do(c, method, path, extra)
	if gotCode != code || gotBody != body {
		ts.t.Errorf("%s %s = %d %q; want %d %q", method, path, gotCode, gotBody, code, body)
	}
	if code == http.StatusTooManyRequests && h.Get("Retry-After") != "1" {
		ts.t.Errorf("%s %s: Retry-After %q; want 1", method, path, h.Get("Retry-After"))
	}
	if closed {
		if h.Get("Connection") != "close" {
			ts.t.Errorf("%s %s: Connection %q; want close", method, path, h.Get("Connection"))
		}
		if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
			ts.t.Errorf("%s %s: after the answer, read %d bytes, %v; want the connection closed", method, path, n, err)
		}
	}
}

const tooMany = "Too many requests, please try again later.\n"

// TestZones walks a server through its zones: served, reserve (health
// checks only) and closed at once, by total and per-address caps.
func TestZones(t *testing.T) {
	for _, withTLS := range []bool{false, true} {
		name := "HTTP"
		if withTLS {
			name = "HTTPS"
		}
		t.Run(name, func(t *testing.T) {
			ts := newTestServer(t, Limits{Max: 2, MaxPerClient: 1, Reserve: 2}, withTLS)
			const attacker, other, probe = "127.0.0.2", "127.0.0.3", "127.0.0.4"

			ts.hold(attacker) // the attacker's one served connection

			// Over its address's cap, the attacker is in the reserve: health
			// checks only, one request per connection.
			ts.wantAnswer(ts.dial(attacker), "GET", "/api/v1/pods", "", 429, tooMany, true)
			ts.wantAnswer(ts.dial(attacker), "GET", "/healthz", "", 200, "ok", true)
			ts.wantAnswer(ts.dial(attacker), "GET", "/readyz/ping", "", 200, "ok", true)
			// A slow body is not waited for.
			ts.wantAnswer(ts.dial(attacker), "POST", "/api/v1/pods", "Content-Length: 100000\r\n", 429, tooMany, true)
			ts.waitOpen(1)

			// With the reserve full, the attacker's connections are closed
			// at once; another address is still served.
			r1, r2 := ts.idle(attacker), ts.idle(attacker)
			ts.wantClosed(ts.dial(attacker), "attacker over the reserve")
			ts.wantAnswer(ts.dial(other), "GET", "/api/v1/pods", "", 200, "ok", false)
			ts.waitOpen(4) // the other's connection stays open: Max served

			// Full everywhere: closed at once.
			ts.wantClosed(ts.dial(probe), "probe over the total and the reserve")
			if n := ts.l.closed.Load(); n != 2 {
				t.Errorf("the listener closed %d connections at once; want 2", n)
			}

			// The reserve freed, a probe from a new address is served from
			// it, and only a probe.
			ts.l.mu.Lock()
			reserved := ts.l.reserve
			ts.l.mu.Unlock()
			if reserved != 2 {
				t.Fatalf("%d reserve connections; want 2", reserved)
			}
			r1.Close()
			r2.Close()
			ts.waitOpen(2)
			ts.wantAnswer(ts.dial(probe), "GET", "/livez", "", 200, "ok", true)
			ts.wantAnswer(ts.dial(probe), "DELETE", "/api/v1/pods", "", 429, tooMany, true)
		})
	}
}

// TestReservePerClient: one address holds at most ReservePerClient
// reserve connections; other addresses get the rest of the reserve.
func TestReservePerClient(t *testing.T) {
	ts := newTestServer(t, Limits{Max: 1, Reserve: 10}, false)
	ts.hold("127.0.0.2")
	for range ReservePerClient {
		ts.idle("127.0.0.2")
	}
	ts.wantClosed(ts.dial("127.0.0.2"), "over the address's share of the reserve")
	ts.wantAnswer(ts.dial("127.0.0.3"), "GET", "/healthz", "", 200, "ok", true)
}

// TestNoPerClientCap: with no per-client cap, one address may use the
// whole of Max.
func TestNoPerClientCap(t *testing.T) {
	ts := newTestServer(t, Limits{Max: 3, MaxPerClient: -1, Reserve: -1}, false)
	for range 3 {
		ts.hold("127.0.0.2")
	}
	ts.wantClosed(ts.dial("127.0.0.3"), "over the total, no reserve")
}

// TestUncounted: closed connections are uncounted and their addresses
// forgotten.
func TestUncounted(t *testing.T) {
	ts := newTestServer(t, Limits{Max: 1, MaxPerClient: 1, Reserve: 1}, false)
	for range 3 {
		c := ts.dial("127.0.0.2")
		ts.wantAnswer(c, "GET", "/api", "", 200, "ok", false)
		c.Close()
		ts.waitOpen(0)
	}
	ts.l.mu.Lock()
	defer ts.l.mu.Unlock()
	if len(ts.l.clients) != 0 || ts.l.served != 0 || ts.l.reserve != 0 {
		t.Errorf("after every connection closed: %d addresses, %d served, %d reserve; want none", len(ts.l.clients), ts.l.served, ts.l.reserve)
	}
}

// deadlines is a net.Conn that records its deadlines.
type deadlines struct {
	net.Conn
	read, write time.Time
}

func (d *deadlines) SetDeadline(t time.Time) error      { d.read, d.write = t, t; return nil }
func (d *deadlines) SetReadDeadline(t time.Time) error  { d.read = t; return nil }
func (d *deadlines) SetWriteDeadline(t time.Time) error { d.write = t; return nil }

// TestReserveDeadline: a reserve connection's deadlines never pass the end
// of its life, whatever net/http sets; a served one's are as set.
func TestReserveDeadline(t *testing.T) {
	end := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	before, after := end.Add(-time.Second), end.Add(time.Hour)
	tests := []struct {
		reserve   bool
		set, want time.Time
	}{
		{true, time.Time{}, end},
		{true, after, end},
		{true, before, before},
		{false, time.Time{}, time.Time{}},
		{false, after, after},
	}
	for _, tt := range tests {
		d := &deadlines{}
		c := &conn{Conn: d, reserve: tt.reserve, until: end}
		c.SetReadDeadline(tt.set)
		c.SetWriteDeadline(tt.set)
		if d.read != tt.want || d.write != tt.want {
			t.Errorf("reserve %v, deadline %v: set %v, %v; want %v", tt.reserve, tt.set, d.read, d.write, tt.want)
		}
		c.SetDeadline(tt.set)
		if d.read != tt.want || d.write != tt.want {
			t.Errorf("reserve %v, SetDeadline(%v): set %v, %v; want %v", tt.reserve, tt.set, d.read, d.write, tt.want)
		}
	}
}

// TestReserveHTTP2: over HTTP/2 too, a reserve connection serves health
// checks only.
func TestReserveHTTP2(t *testing.T) {
	ts := newTestServer(t, Limits{Max: 1, Reserve: 2}, true)
	ts.hold("127.0.0.2")
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.3")}}
	tr := &http.Transport{DialContext: d.DialContext, TLSClientConfig: ts.tls, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	for _, tt := range []struct {
		path string
		code int
		body string
	}{
		{"/api/v1/pods", 429, tooMany},
		{"/healthz", 200, "ok"},
	} {
		resp, err := c.Get("https://" + ts.addr + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.ProtoMajor != 2 || resp.StatusCode != tt.code || string(b) != tt.body {
			t.Errorf("GET %s = %s %d %q; want HTTP/2 %d %q", tt.path, resp.Proto, resp.StatusCode, b, tt.code, tt.body)
		}
	}
	// Each answer ended its connection (a GOAWAY), the client's pool
	// notwithstanding.
	ts.waitOpen(1)
}

// fakeConn is a connection from a fixed address that does nothing.
type fakeConn struct {
	net.Conn
	remote net.Addr
}

func (f *fakeConn) RemoteAddr() net.Addr               { return f.remote }
func (f *fakeConn) SetDeadline(t time.Time) error      { return nil }
func (f *fakeConn) SetReadDeadline(t time.Time) error  { return nil }
func (f *fakeConn) SetWriteDeadline(t time.Time) error { return nil }
func (f *fakeConn) Close() error                       { return nil }

// BenchmarkAdmit is the listener's cost per connection: placed, counted,
// closed and uncounted (served), or refused at once (closed).
func BenchmarkAdmit(b *testing.B) {
	for _, bc := range []struct {
		name string
		lim  limits
	}{
		{"served", limits{max: 1 << 30, perClient: 1 << 30}},
		{"closed", limits{max: 1, perClient: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := &listener{lim: bc.lim}
			held := l.admit(&fakeConn{remote: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 1}})
			defer held.Close()
			c := &fakeConn{remote: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 2), Port: 2}}
			b.ReportAllocs()
			for b.Loop() {
				if lc := l.admit(c); lc != nil {
					lc.Close()
				}
			}
		})
	}
}
