package metrics

import (
	"context"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apisem/apisem/status"
)

// Kubernetes' buckets (k8s.io/apiserver/pkg/endpoints/metrics).
var (
	// durationBuckets are apiserver_request_duration_seconds' (and
	// etcd_request_duration_seconds'), in seconds.
	durationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
		4, 5, 6, 8, 10, 15, 20, 30, 45, 60}
	// sliBuckets are apiserver_request_sli_duration_seconds', whose le
	// values 1, 5 and 30 the SLO rules of kubernetes-mixin read.
	sliBuckets = durationBuckets[2:]
	// sizeBuckets are apiserver_response_sizes': 1 KB to 1 GB by tens.
	sizeBuckets = exponential(1000, 10, 7)
	// watchSizeBuckets are apiserver_watch_events_sizes': 1 KiB to 128 KiB.
	watchSizeBuckets = exponential(1024, 2, 8)
)

func exponential(start, factor float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// Source gives the gauges a Recorder reads at each scrape; *server.Server
// is one.
type Source interface {
	InFlight() (readOnly, mutating int)
	ObjectCounts(ctx context.Context, fn func(gr status.GroupResource, n int64))
}

// Recorder records a server's measurements (it is a Observer) and
// serves them at /metrics (it is an http.Handler). The zero value is
// ready to use; its methods may be called concurrently.
type Recorder struct {
	// Source, if set, gives the gauges read at each scrape (in-flight
	// requests, stored objects). Set it before the server serves.
	Source    Source
	mu        sync.RWMutex // guards the maps; the series in them are atomic
	requests  map[requestKey]*requestSeries
	durations map[durationKey]*histogram
	sli       map[sizeKey]*histogram
	sizes     map[sizeKey]*histogram
	long      map[sizeKey]*atomic.Int64 // no dry_run label, as sizes
	terms     map[termKey]*atomic.Uint64
	events    map[gvr]*watchSeries
	etcd      map[etcdKey]*etcdSeries
}

// etcdKey is etcd_request_duration_seconds' labels.
type etcdKey struct{ operation, group, resource string }

type etcdSeries struct {
	errors   atomic.Uint64
	duration histogram
}

// requestSeries is apiserver_request_total's series of one requestKey,
// with the histograms its requests are also observed in, found once: a
// request costs one map lookup. The histograms are shared with the other
// codes' series (they have no code label) and set on first use.
type requestSeries struct {
	count    atomic.Uint64
	duration atomic.Pointer[histogram]
	sli      atomic.Pointer[histogram]
	size     atomic.Pointer[histogram]
}

// requestKey is apiserver_request_total's labels.
type requestKey struct {
	durationKey
	code int
}

// durationKey is apiserver_request_duration_seconds' labels.
type durationKey struct {
	dryRun string
	sizeKey
}

// sizeKey is apiserver_response_sizes' and
// apiserver_longrunning_requests' labels.
type sizeKey struct {
	verb, group, version, resource, subresource, scope, component string
}

// termKey is apiserver_request_terminations_total's labels: those of
// the request count without dry_run.
type termKey struct {
	sizeKey
	code int
}

type gvr struct{ group, version, resource string }

type watchSeries struct {
	count atomic.Uint64
	sizes histogram
}

var (
	_ Observer     = (*Recorder)(nil)
	_ Terminations = (*Recorder)(nil)
)

// Request records one request.
func (r *Recorder) Request(m Request) {
	k := requestKey{durationKey{m.DryRun, sizeKey{m.Verb, m.Group, m.Version, m.Resource, m.Subresource, m.Scope, m.Component}}, m.Code}
	rs := getOrAdd(r, &r.requests, k, func() *requestSeries { return new(requestSeries) })
	rs.count.Add(1)
	if m.Duration >= 0 {
		h := rs.duration.Load()
		if h == nil {
			h = getOrAdd(r, &r.durations, k.durationKey, func() *histogram { return newHistogram(durationBuckets) })
			rs.duration.Store(h) // the map's one histogram: every store is the same
		}
		h.observe(m.Duration.Seconds())
		// The SLI duration is the duration less the time in webhooks
		// and in priority-and-fairness queues, of which the server has
		// neither; Kubernetes observes it for requests that are not dry
		// runs.
		if m.DryRun == "" {
			h := rs.sli.Load()
			if h == nil {
				h = getOrAdd(r, &r.sli, k.sizeKey, func() *histogram { return newHistogram(sliBuckets) })
				rs.sli.Store(h)
			}
			h.observe(m.Duration.Seconds())
		}
	}
	if m.ResponseSize >= 0 {
		h := rs.size.Load()
		if h == nil {
			h = getOrAdd(r, &r.sizes, k.sizeKey, func() *histogram { return newHistogram(sizeBuckets) })
			rs.size.Store(h)
		}
		h.observe(float64(m.ResponseSize))
	}
}

// Terminated counts a request the server ended early (a 429 of the
// in-flight limits, a 504 of a deadline).
func (r *Recorder) Terminated(m Request) {
	k := termKey{sizeKey{m.Verb, m.Group, m.Version, m.Resource, m.Subresource, m.Scope, m.Component}, m.Code}
	getOrAdd(r, &r.terms, k, func() *atomic.Uint64 { return new(atomic.Uint64) }).Add(1)
}

// LongRunning counts a watch in (+1) or out (-1).
func (r *Recorder) LongRunning(m Request, delta int) {
	sk := sizeKey{m.Verb, m.Group, m.Version, m.Resource, m.Subresource, m.Scope, m.Component}
	getOrAdd(r, &r.long, sk, func() *atomic.Int64 { return new(atomic.Int64) }).Add(int64(delta))
}

// WatchEvent records one event a watch sent.
func (r *Recorder) WatchEvent(group, version, resource string, size int) {
	w := getOrAdd(r, &r.events, gvr{group, version, resource}, func() *watchSeries {
		return &watchSeries{sizes: *newHistogram(watchSizeBuckets)}
	})
	w.count.Add(1)
	w.sizes.observe(float64(size))
}

// EtcdRequest records one etcd request of a resource (an
// etcdstore.Metrics): etcd_request_duration_seconds,
// etcd_requests_total and etcd_request_errors_total.
func (r *Recorder) EtcdRequest(operation string, gr status.GroupResource, d time.Duration, err error) {
	e := getOrAdd(r, &r.etcd, etcdKey{operation, gr.Group, gr.Resource}, func() *etcdSeries {
		return &etcdSeries{duration: *newHistogram(durationBuckets)}
	})
	e.duration.observe(d.Seconds())
	if err != nil {
		e.errors.Add(1)
	}
}

// getOrAdd returns (*m)[k], adding mk() under r.mu if absent. The usual
// case, a series seen before, takes the read lock only.
func getOrAdd[K comparable, V any](r *Recorder, m *map[K]*V, k K, mk func() *V) *V {
	r.mu.RLock()
	v := (*m)[k]
	r.mu.RUnlock()
	if v != nil {
		return v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v = (*m)[k]; v == nil {
		if *m == nil {
			*m = map[K]*V{}
		}
		v = mk()
		(*m)[k] = v
	}
	return v
}

// ServeHTTP writes the metrics in Prometheus' text format.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", ContentType)
	b := r.AppendText(req.Context(), nil)
	if req.Method == http.MethodGet {
		w.Write(b)
	}
}

// ContentType is the media type of Prometheus' text format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// histogram is a Prometheus histogram: counts per bucket (not
// cumulative; the last is +Inf's), their sum and count.
type histogram struct {
	bounds  []float64
	buckets []atomic.Uint64 // len(bounds)+1
	sumBits atomic.Uint64   // float64 bits
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, buckets: make([]atomic.Uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	for {
		old := h.sumBits.Load()
		if h.sumBits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}
