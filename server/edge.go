package server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/status"
)

// The HTTP edge: what a server does before and around a request's handler
// so that slow or hostile clients cannot hold its memory, goroutines and
// connections. The defaults are kube-apiserver's.
//
//	request kind       limit                                   over it
//	not long-running   RequestTimeout (?timeout= shortens it)  504 Timeout Status
//	                   BodyReadTimeout to read the body        the same 504
//	                   MaxRequestsInFlight (get, list)         429, Retry-After: 1
//	                   MaxMutatingRequestsInFlight (writes)    429, Retry-After: 1
//	                   write deadline: its deadline + WriteTimeout
//	watch              each write: WriteTimeout, and never     the stream ends; the
//	                   past the watch's own timeout            connection is closed
//
// Health checks (/healthz, /livez, /readyz) are not counted in flight, as
// kube-apiserver's priority and fairness exempts its "probes" flow schema:
// they answer while the server is saturated. Watches are long-running:
// neither counted nor timed out as a request (their timeoutSeconds ends
// them). Serve adds the connection limits: ReadHeaderTimeout, IdleTimeout,
// MaxHeaderBytes. Authentication runs under the request's deadline, before
// the in-flight count; authorization inside it (the filter chain,
// server/filters.go). Whether a request is long-running is the request
// value's decision (RequestInfo.LongRunning), which every filter reads.

// Defaults of the edge limits, kube-apiserver's: --request-timeout,
// --max-requests-inflight, --max-mutating-requests-inflight, and the
// http.Server of k8s.io/apiserver/pkg/server/secure_serving.go.
const (
	DefaultRequestTimeout              = 60 * time.Second
	DefaultMaxRequestsInFlight         = 400
	DefaultMaxMutatingRequestsInFlight = 200
	DefaultReadHeaderTimeout           = 32 * time.Second
	DefaultIdleTimeout                 = 90 * time.Second
	DefaultMaxHeaderBytes              = 1 << 20
	// DefaultWriteTimeout is apisem's own: Kubernetes bounds a watch's
	// writes only by closing the connection when the watch ends.
	DefaultWriteTimeout = 10 * time.Second
)

// edge holds the resolved limits and the counters of requests in flight.
type edge struct {
	requestTimeout time.Duration
	bodyTimeout    time.Duration
	writeTimeout   time.Duration
	maxReadOnly    int64 // 0: no limit
	maxMutating    int64 // 0: no limit

	readOnly atomic.Int64 // requests in flight, health and watches excepted
	mutating atomic.Int64
}

func newEdge(o *LimitOptions) *edge {
	e := &edge{
		requestTimeout: orDefault(o.RequestTimeout, DefaultRequestTimeout),
		writeTimeout:   orDefault(o.WriteTimeout, DefaultWriteTimeout),
		maxReadOnly:    limit(o.MaxRequestsInFlight, DefaultMaxRequestsInFlight),
		maxMutating:    limit(o.MaxMutatingRequestsInFlight, DefaultMaxMutatingRequestsInFlight),
	}
	e.bodyTimeout = orDefault(o.BodyReadTimeout, e.requestTimeout)
	return e
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// limit resolves an in-flight cap: 0 is def, negative no limit (0).
func limit(v, def int) int64 {
	switch {
	case v == 0:
		return int64(def)
	case v < 0:
		return 0
	}
	return int64(v)
}

// httpServer returns the http.Server of Serve, with the connection limits.
func (s *Server) httpServer() *http.Server {
	o := &s.opts.Limits
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: orDefault(o.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		IdleTimeout:       orDefault(o.IdleTimeout, DefaultIdleTimeout),
		MaxHeaderBytes:    orDefault(o.MaxHeaderBytes, DefaultMaxHeaderBytes),
		ConnState:         s.conns.track,
	}
}

// errRequestTimeout is Kubernetes' answer to a request that outlived its
// deadline (k8s.io/apiserver/pkg/server/filters/timeout.go). Kubernetes
// writes it as JSON whatever the request accepts; here it is negotiated
// like every other Status.
var errRequestTimeout = status.NewTimeout("request did not complete within the allotted timeout", 0)

// tooManyRequests answers a request over the in-flight cap exactly as
// kube-apiserver's max-in-flight filter does: plain text, not a Status,
// with Retry-After: 1.
func tooManyRequests(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, "Too many requests, please try again later.", http.StatusTooManyRequests)
}

// timeoutOf is the timeout of a request that is not long-running:
// RequestTimeout, or the request's ?timeout= if shorter and positive, as
// k8s.io/apiserver/pkg/endpoints/filters/request_deadline.go decides.
func (e *edge) timeoutOf(rq *request) time.Duration {
	if d := rq.options().timeout; d > 0 && d < e.requestTimeout {
		return d
	}
	return e.requestTimeout
}

// withDeadline is the deadline filter: a request that is not long-running
// gets its deadline, its body a read deadline and its response a write
// deadline; past the deadline, a handler that has not begun its response
// is answered with the 504. A watch bounds its own writes (see
// watchDeadline); it is neither timed out nor counted, as in Kubernetes.
func (s *Server) withDeadline(next http.Handler) http.Handler {
	e := s.edge
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := requestOf(r)
		if rq.info.LongRunning {
			next.ServeHTTP(w, r)
			return
		}
		if err := rq.options().timeoutErr; err != nil {
			s.writeError(w, r, nil, err)
			return
		}
		start := time.Now()
		deadline := start.Add(e.timeoutOf(rq))
		// The timeout writer, the body's deadline, the response
		// controller and the wait for the timer's func, in one
		// allocation.
		d := &deadlined{rc: *http.NewResponseController(w)}
		// Every request sets its write deadline: net/http keeps a
		// connection's deadline across requests, and a client that stops
		// reading must not hold the handler past the request's end.
		// (Writers without deadlines, such as httptest.ResponseRecorder,
		// refuse; nothing to bound then.)
		_ = d.rc.SetWriteDeadline(deadline.Add(e.writeTimeout))

		var ctx context.Context
		var cancel context.CancelFunc
		if rq, ok := r.Context().(*request); ok {
			// The request value is the request's context (see request):
			// the deadline goes under it, which saves BenchmarkHTTPGet
			// the copy of the request that r.WithContext makes. This
			// filter runs first, before any other stage reads the
			// context.
			ctx, cancel = context.WithDeadline(rq.Context, deadline)
			rq.Context = ctx
		} else {
			ctx, cancel = context.WithDeadline(r.Context(), deadline)
			r = r.WithContext(ctx)
		}
		defer cancel()
		tw := &d.tw
		*tw = timeoutWriter{w: w, h: w.Header().Clone(), ctx: ctx, s: s, r: r, rq: rq}
		if r.Body != nil && r.Body != http.NoBody {
			_ = d.rc.SetReadDeadline(start.Add(e.bodyTimeout))
			d.body = deadlineBody{ReadCloser: r.Body, rc: &d.rc, tw: tw}
			r.Body = &d.body
		}
		// The 504 is written at the context's deadline (its own, or an
		// earlier one of the request's), by a timer of its own rather
		// than context.AfterFunc: that would add a context, a children
		// map and a Done channel to every request (BenchmarkServeHTTPCreate)
		// to learn of cancellations the 504 does not answer.
		end, _ := ctx.Deadline()
		d.fired.Add(1)
		timer := time.AfterFunc(end.Sub(start), func() {
			defer d.fired.Done()
			tw.timeout()
		})
		next.ServeHTTP(tw, r)
		if timer.Stop() {
			d.fired.Done()
		} else {
			d.fired.Wait() // the 504 may be being written: w is not ours before it is
		}
	})
}

// deadlined is what withDeadline makes of a request, in one allocation.
type deadlined struct {
	tw    timeoutWriter
	body  deadlineBody
	rc    http.ResponseController
	fired sync.WaitGroup // done once the timer's func has returned, or will not run
}

// withInFlightLimit is the in-flight filter: it counts a request in
// flight, reads and writes apart, and refuses one over the cap with the
// 429. Watches and health checks are not counted.
func (s *Server) withInFlightLimit(next http.Handler) http.Handler {
	e := s.edge
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rq := requestOf(r)
		if rq.info.LongRunning || rq.health {
			next.ServeHTTP(w, r)
			return
		}
		n, max := &e.readOnly, e.maxReadOnly
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			n, max = &e.mutating, e.maxMutating
		}
		if c := n.Add(1); max > 0 && c > max {
			n.Add(-1)
			s.recordRefused(r, rq)
			tooManyRequests(w)
			return
		}
		defer n.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// timeoutWriter is the ResponseWriter of a request that has a deadline.
// The handler writes through it until the deadline; then, if the handler
// has written nothing yet, the 504 goes out instead and the handler's
// writes are dropped. A response already begun is left to the write
// deadline. The handler gets its own header map, copied to the response
// when it begins, so that the 504 never races with the handler's headers.
type timeoutWriter struct {
	w   http.ResponseWriter
	h   http.Header     // the handler's
	ctx context.Context // the request's, with its deadline
	// The server, and the request and request value, that write504
	// answers.
	s  *Server
	r  *http.Request
	rq *request

	mu       sync.Mutex // guards the two flags below
	began    bool       // the handler's response began
	timedOut bool       // the 504 was written instead
}

// begin reports whether the handler may write; the first call commits the
// handler's headers. A handler that answers after the deadline (with the
// error its context gave it, typically) is too late: the 504 goes out,
// whether or not the timer has fired yet.
func (t *timeoutWriter) begin() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.began && !t.timedOut && errors.Is(t.ctx.Err(), context.DeadlineExceeded) {
		t.timedOut = true
		t.write504()
	}
	if t.timedOut {
		return false
	}
	if !t.began {
		t.began = true
		dst := t.w.Header()
		for k, v := range t.h {
			dst[k] = v
		}
	}
	return true
}

// write504 answers the request with the 504 of its deadline.
func (t *timeoutWriter) write504() {
	t.s.writeError(t.w, t.r, nil, errRequestTimeout)
	t.s.recordTimeout(t.r, t.rq)
}

// timeout writes the 504, at most once, unless the handler's response
// began: that one goes on, bounded by the write deadline, rather than be
// cut into a well-framed but truncated body.
func (t *timeoutWriter) timeout() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timedOut || t.began {
		return
	}
	t.timedOut = true
	t.write504()
}

func (t *timeoutWriter) Header() http.Header { return t.h }

func (t *timeoutWriter) WriteHeader(code int) {
	if t.begin() {
		t.w.WriteHeader(code)
	}
}

func (t *timeoutWriter) Write(b []byte) (int, error) {
	if !t.begin() {
		return 0, http.ErrHandlerTimeout
	}
	return t.w.Write(b)
}

func (t *timeoutWriter) Flush() {
	if t.begin() {
		_ = http.NewResponseController(t.w).Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's deadlines.
func (t *timeoutWriter) Unwrap() http.ResponseWriter { return t.w }

// deadlineBody is a request body read under a deadline. Reading past it
// times the request out with the 504. Once the body has been read to its
// end the deadline is lifted: net/http then reads ahead on the connection
// to notice a client that goes away, and that read must not fail on it.
type deadlineBody struct {
	io.ReadCloser
	rc *http.ResponseController
	tw *timeoutWriter // whose timeout the deadline is
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil:
	case errors.Is(err, os.ErrDeadlineExceeded):
		b.tw.timeout()
		err = http.ErrHandlerTimeout
	default:
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// conns tracks the connections of Serve by state, so that Shutdown can say
// what it had to close. The zero value is ready.
type conns struct {
	mu    sync.Mutex
	state map[net.Conn]http.ConnState // lazily initialized
}

// track is the http.Server's ConnState hook.
func (c *conns) track(conn net.Conn, st http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch st {
	case http.StateClosed, http.StateHijacked:
		delete(c.state, conn)
	default:
		if c.state == nil {
			c.state = map[net.Conn]http.ConnState{}
		}
		c.state[conn] = st
	}
}

// count returns how many connections are open, and how many of those are
// in the middle of a request.
func (c *conns) count() (open, active int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.state {
		if st == http.StateActive {
			active++
		}
	}
	return len(c.state), active
}

// shutdownHTTP stops hs: gracefully until ctx is done, then by closing
// every connection left, which only clients that do not finish (a stuck
// reader, a request that outlives the grace) can cause. That is the
// normal end of a shutdown, logged and not an error; only a failure to
// close is.
func (s *Server) shutdownHTTP(ctx context.Context, hs *http.Server) error {
	err := hs.Shutdown(ctx)
	if err == nil {
		s.log.Info("shutdown: every connection ended gracefully")
		return nil
	}
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return err
	}
	open, active := s.conns.count()
	err = hs.Close()
	s.log.Warn("shutdown: closed the connections still open after the grace period",
		"connections", open, "requests", active, "cause", context.Cause(ctx).Error())
	return err
}

// watchDeadline bounds the writes of a watch stream, so that a client that
// stops reading holds its watch, the events it was being sent and its
// goroutine no longer than WriteTimeout, nor past the watch's timeout: the
// write fails, the handler returns and net/http closes the connection. The
// watcher is dropped as a parked one that fell out of history is, without
// the 410 (nobody would read it).
type watchDeadline struct {
	rc      *http.ResponseController
	end     time.Time // the watch's timeout
	timeout time.Duration
	set     time.Time // the write deadline last set; zero before the first
}

func (s *Server) watchDeadline(w http.ResponseWriter, end time.Time) *watchDeadline {
	return &watchDeadline{rc: http.NewResponseController(w), end: end, timeout: s.edge.writeTimeout}
}

// armSlack is how much earlier than its due time a write deadline may end
// (at most): arm keeps the deadline it set unless the new one would be
// later by armSlack or more. Setting a deadline resets the connection's
// runtime timer, which for 1,000 watchers of a busy object was a tenth of
// the server's work per event (BenchmarkWatchFanOut); a stuck write still
// ends within WriteTimeout, and no earlier than WriteTimeout - armSlack.
func armSlack(timeout time.Duration) time.Duration {
	return min(timeout/10, time.Second)
}

// arm sets the deadline of the next write. Past the watch's end (a
// negative timeoutSeconds), the stream's beginning and end still get
// WriteTimeout.
func (d *watchDeadline) arm() {
	now := time.Now()
	t := now.Add(d.timeout)
	if d.end.After(now) && d.end.Before(t) {
		t = d.end
	}
	if !d.set.IsZero() && !t.Before(d.set) && t.Sub(d.set) < armSlack(d.timeout) {
		return
	}
	d.set = t
	_ = d.rc.SetWriteDeadline(t)
}

// finish gives the end of the response, which net/http writes after the
// handler returns, WriteTimeout.
func (d *watchDeadline) finish() {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.timeout))
}
