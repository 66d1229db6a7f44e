package metrics

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apisem/apisem/status"
)

// AppendText appends the metrics in Prometheus' text format to dst: the
// recorded series, the Source's gauges, then the Go runtime's and the
// process's. Series are sorted, so equal states print equal text.
func (r *Recorder) AppendText(ctx context.Context, dst []byte) []byte {
	// The series are gathered under the read lock; their values are
	// atomic, read after it.
	r.mu.RLock()
	requests := sorted(r.requests, func(a, b requestKey) int {
		return cmp.Or(compareDuration(a.durationKey, b.durationKey), cmp.Compare(a.code, b.code))
	})
	durations := sorted(r.durations, compareDuration)
	sli := sorted(r.sli, compareSize)
	sizes := sorted(r.sizes, compareSize)
	long := sorted(r.long, compareSize)
	terms := sorted(r.terms, func(a, b termKey) int {
		return cmp.Or(compareSize(a.sizeKey, b.sizeKey), cmp.Compare(a.code, b.code))
	})
	events := sorted(r.events, func(a, b gvr) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.version, b.version), cmp.Compare(a.resource, b.resource))
	})
	etcd := sorted(r.etcd, func(a, b etcdKey) int {
		return cmp.Or(cmp.Compare(a.operation, b.operation), cmp.Compare(a.group, b.group), cmp.Compare(a.resource, b.resource))
	})
	r.mu.RUnlock()

	dst = header(dst, "apiserver_request_total", "counter",
		"Requests answered, by verb, dry run, group, version, resource, subresource, scope, component and status code.")
	for _, e := range requests {
		dst = sample(dst, "apiserver_request_total", requestLabels(e.k), float64(e.v.count.Load()))
	}
	dst = header(dst, "apiserver_request_terminations_total", "counter",
		"Requests the server ended early to protect itself (in-flight limits, timeouts), by verb, group, version, resource, subresource, scope, component and status code.")
	for _, e := range terms {
		dst = sample(dst, "apiserver_request_terminations_total", append(sizeLabels(e.k.sizeKey), "code", strconv.Itoa(e.k.code)), float64(e.v.Load()))
	}
	dst = header(dst, "apiserver_request_duration_seconds", "histogram",
		"Seconds from a request's arrival at the filters to its answer, by verb, dry run, resource and scope.")
	for _, e := range durations {
		dst = e.v.append(dst, "apiserver_request_duration_seconds", durationLabels(e.k))
	}
	dst = header(dst, "apiserver_request_sli_duration_seconds", "histogram",
		"The same request seconds, under the name service-level rules read; this server has no webhooks or fairness queues to leave out.")
	for _, e := range sli {
		dst = e.v.append(dst, "apiserver_request_sli_duration_seconds", sizeLabels(e.k))
	}
	dst = header(dst, "apiserver_response_sizes", "histogram",
		"Bytes in the body of each answer, by verb, resource and scope.")
	for _, e := range sizes {
		dst = e.v.append(dst, "apiserver_response_sizes", sizeLabels(e.k))
	}
	dst = header(dst, "apiserver_longrunning_requests", "gauge",
		"Long-running requests (watches) open now, by verb, resource and scope.")
	for _, e := range long {
		dst = sample(dst, "apiserver_longrunning_requests", sizeLabels(e.k), float64(e.v.Load()))
	}
	dst = header(dst, "apiserver_watch_events_total", "counter", "Watch events sent to clients, by group, version and resource.")
	for _, e := range events {
		dst = sample(dst, "apiserver_watch_events_total", gvrLabels(e.k), float64(e.v.count.Load()))
	}
	dst = header(dst, "apiserver_watch_events_sizes", "histogram", "Bytes of each watch event sent, by group, version and resource.")
	for _, e := range events {
		dst = e.v.sizes.append(dst, "apiserver_watch_events_sizes", gvrLabels(e.k))
	}
	if len(etcd) > 0 {
		dst = header(dst, "etcd_request_duration_seconds", "histogram", "Seconds each etcd request took, by operation and resource.")
		for _, e := range etcd {
			dst = e.v.duration.append(dst, "etcd_request_duration_seconds", etcdLabels(e.k))
		}
		dst = header(dst, "etcd_requests_total", "counter", "Requests sent to etcd, by operation and resource.")
		for _, e := range etcd {
			dst = sample(dst, "etcd_requests_total", etcdLabels(e.k), float64(e.v.duration.total()))
		}
		dst = header(dst, "etcd_request_errors_total", "counter", "etcd requests that failed, by operation and resource.")
		for _, e := range etcd {
			dst = sample(dst, "etcd_request_errors_total", etcdLabels(e.k), float64(e.v.errors.Load()))
		}
	}

	if src := r.Source; src != nil {
		ro, mu := src.InFlight()
		dst = header(dst, "apiserver_current_inflight_requests", "gauge",
			"Requests being served now and counted against the in-flight limits, by kind (readOnly or mutating).")
		dst = sample(dst, "apiserver_current_inflight_requests", []string{"request_kind", "mutating"}, float64(mu))
		dst = sample(dst, "apiserver_current_inflight_requests", []string{"request_kind", "readOnly"}, float64(ro))
		type count struct {
			gr status.GroupResource
			n  int64
		}
		var counts []count
		src.ObjectCounts(ctx, func(gr status.GroupResource, n int64) { counts = append(counts, count{gr, n}) })
		slices.SortFunc(counts, func(a, b count) int {
			return cmp.Or(cmp.Compare(a.gr.Group, b.gr.Group), cmp.Compare(a.gr.Resource, b.gr.Resource))
		})
		dst = header(dst, "apiserver_resource_objects", "gauge",
			"Objects stored per resource when metrics were read.")
		for _, c := range counts {
			dst = sample(dst, "apiserver_resource_objects", []string{"group", c.gr.Group, "resource", c.gr.Resource}, float64(c.n))
		}
		dst = header(dst, "apiserver_storage_objects", "gauge",
			"Objects stored per resource when metrics were read (the older name of apiserver_resource_objects).")
		for _, c := range counts {
			// The resource label is the GroupResource's string, as
			// Kubernetes writes it: "<resource>.<group>".
			dst = sample(dst, "apiserver_storage_objects", []string{"resource", c.gr.String()}, float64(c.n))
		}
	}
	dst = appendRuntime(dst)
	return appendProcess(dst)
}

// entry is one series: its labels and its value.
type entry[K comparable, V any] struct {
	k K
	v *V
}

// sorted returns m's series sorted by their labels.
func sorted[K comparable, V any](m map[K]*V, cmp func(a, b K) int) []entry[K, V] {
	es := make([]entry[K, V], 0, len(m))
	for k, v := range m {
		es = append(es, entry[K, V]{k, v})
	}
	slices.SortFunc(es, func(a, b entry[K, V]) int { return cmp(a.k, b.k) })
	return es
}

func compareSize(a, b sizeKey) int {
	return cmp.Or(cmp.Compare(a.verb, b.verb), cmp.Compare(a.group, b.group), cmp.Compare(a.version, b.version),
		cmp.Compare(a.resource, b.resource), cmp.Compare(a.subresource, b.subresource),
		cmp.Compare(a.scope, b.scope), cmp.Compare(a.component, b.component))
}

func compareDuration(a, b durationKey) int {
	return cmp.Or(compareSize(a.sizeKey, b.sizeKey), cmp.Compare(a.dryRun, b.dryRun))
}

// The label lists are name, value pairs, in Kubernetes' declared order.

func sizeLabels(k sizeKey) []string {
	return []string{"verb", k.verb, "group", k.group, "version", k.version, "resource", k.resource,
		"subresource", k.subresource, "scope", k.scope, "component", k.component}
}

func durationLabels(k durationKey) []string {
	return []string{"verb", k.verb, "dry_run", k.dryRun, "group", k.group, "version", k.version, "resource", k.resource,
		"subresource", k.subresource, "scope", k.scope, "component", k.component}
}

func requestLabels(k requestKey) []string {
	return append(durationLabels(k.durationKey), "code", strconv.Itoa(k.code))
}

func etcdLabels(k etcdKey) []string {
	return []string{"operation", k.operation, "group", k.group, "resource", k.resource}
}

func gvrLabels(k gvr) []string {
	return []string{"group", k.group, "version", k.version, "resource", k.resource}
}

// header appends a metric family's HELP and TYPE lines.
func header(dst []byte, name, typ, help string) []byte {
	dst = append(dst, "# HELP "...)
	dst = append(dst, name...)
	dst = append(dst, ' ')
	for _, c := range []byte(help) {
		switch c {
		case '\\':
			dst = append(dst, `\\`...)
		case '\n':
			dst = append(dst, `\n`...)
		default:
			dst = append(dst, c)
		}
	}
	dst = append(dst, "\n# TYPE "...)
	dst = append(dst, name...)
	dst = append(dst, ' ')
	dst = append(dst, typ...)
	return append(dst, '\n')
}

// sample appends one sample line: name{labels} value.
func sample(dst []byte, name string, labels []string, v float64) []byte {
	return line(dst, name, "", labels, nil, v)
}

// line appends the sample line name+suffix{labels,le="le"} v, without le
// if it is nil; it allocates nothing.
func line(dst []byte, name, suffix string, labels []string, le []byte, v float64) []byte {
	dst = append(dst, name...)
	dst = append(dst, suffix...)
	if len(labels) > 0 || le != nil {
		dst = append(dst, '{')
		for i := 0; i < len(labels); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, labels[i]...)
			dst = append(dst, `="`...)
			dst = appendLabelValue(dst, labels[i+1])
			dst = append(dst, '"')
		}
		if le != nil {
			if len(labels) > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `le="`...)
			dst = append(dst, le...)
			dst = append(dst, '"')
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ' ')
	dst = appendFloat(dst, v)
	return append(dst, '\n')
}

// appendLabelValue escapes a label value as the format requires:
// backslash, double quote and newline.
func appendLabelValue(dst []byte, v string) []byte {
	if !strings.ContainsAny(v, "\\\"\n") {
		return append(dst, v...)
	}
	for _, c := range []byte(v) {
		switch c {
		case '\\':
			dst = append(dst, `\\`...)
		case '"':
			dst = append(dst, `\"`...)
		case '\n':
			dst = append(dst, `\n`...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendFloat writes v as Prometheus' Go client does.
func appendFloat(dst []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(dst, "+Inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-Inf"...)
	case math.IsNaN(v):
		return append(dst, "NaN"...)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
}

// total is the number of observations.
func (h *histogram) total() uint64 {
	var n uint64
	for i := range h.buckets {
		n += h.buckets[i].Load()
	}
	return n
}

// append appends h's _bucket (cumulative, le last), _sum and _count
// samples.
func (h *histogram) append(dst []byte, name string, labels []string) []byte {
	var cum uint64
	var le [32]byte
	for i := range h.buckets {
		cum += h.buckets[i].Load()
		bound := math.Inf(1)
		if i < len(h.bounds) {
			bound = h.bounds[i]
		}
		dst = line(dst, name, "_bucket", labels, appendFloat(le[:0], bound), float64(cum))
	}
	dst = line(dst, name, "_sum", labels, nil, math.Float64frombits(h.sumBits.Load()))
	// The count is the buckets' total, so that it never disagrees with
	// +Inf's under concurrent observations.
	return line(dst, name, "_count", labels, nil, float64(cum))
}
