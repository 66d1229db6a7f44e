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
	r.mu.RLock()
	requests := sortedKeys(r.requests, func(a, b requestKey) int {
		return cmp.Or(compareDuration(a.durationKey, b.durationKey), cmp.Compare(a.code, b.code))
	})
	durations := sortedKeys(r.durations, compareDuration)
	sizes := sortedKeys(r.sizes, compareSize)
	long := sortedKeys(r.long, compareSize)
	events := sortedKeys(r.events, func(a, b gvr) int {
		return cmp.Or(cmp.Compare(a.group, b.group), cmp.Compare(a.version, b.version), cmp.Compare(a.resource, b.resource))
	})
	etcd := sortedKeys(r.etcd, func(a, b etcdKey) int {
		return cmp.Or(cmp.Compare(a.operation, b.operation), cmp.Compare(a.group, b.group), cmp.Compare(a.resource, b.resource))
	})
	es := make([]*etcdSeries, len(etcd))
	for i, k := range etcd {
		es[i] = r.etcd[k]
	}
	r.mu.RUnlock()

	// The request maps only grow, so the series of the keys read above
	// are still there; reading them again takes the read lock per series.
	get := func(f func()) { r.mu.RLock(); f(); r.mu.RUnlock() }

	dst = header(dst, "apiserver_request_total", "counter",
		"Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.")
	for _, k := range requests {
		var n uint64
		get(func() { n = r.requests[k].Load() })
		dst = sample(dst, "apiserver_request_total", requestLabels(k), float64(n))
	}
	dst = header(dst, "apiserver_request_duration_seconds", "histogram",
		"Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.")
	for _, k := range durations {
		var h *histogram
		get(func() { h = r.durations[k] })
		dst = h.append(dst, "apiserver_request_duration_seconds", durationLabels(k))
	}
	dst = header(dst, "apiserver_response_sizes", "histogram",
		"Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.")
	for _, k := range sizes {
		var h *histogram
		get(func() { h = r.sizes[k] })
		dst = h.append(dst, "apiserver_response_sizes", sizeLabels(k))
	}
	dst = header(dst, "apiserver_longrunning_requests", "gauge",
		"Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.")
	for _, k := range long {
		var n int64
		get(func() { n = r.long[k].Load() })
		dst = sample(dst, "apiserver_longrunning_requests", sizeLabels(k), float64(n))
	}
	dst = header(dst, "apiserver_watch_events_total", "counter", "Number of events sent in watch clients")
	var ws []*watchSeries
	for _, k := range events {
		var w *watchSeries
		get(func() { w = r.events[k] })
		ws = append(ws, w)
		dst = sample(dst, "apiserver_watch_events_total", gvrLabels(k), float64(w.count.Load()))
	}
	dst = header(dst, "apiserver_watch_events_sizes", "histogram", "Watch event size distribution in bytes")
	for i, k := range events {
		dst = ws[i].sizes.append(dst, "apiserver_watch_events_sizes", gvrLabels(k))
	}

	if len(etcd) > 0 {
		dst = header(dst, "etcd_request_duration_seconds", "histogram", "Etcd request latency in seconds for each operation and object type.")
		for i, k := range etcd {
			dst = es[i].duration.append(dst, "etcd_request_duration_seconds", etcdLabels(k))
		}
		dst = header(dst, "etcd_requests_total", "counter", "Etcd request counts for each operation and object type.")
		for i, k := range etcd {
			dst = sample(dst, "etcd_requests_total", etcdLabels(k), float64(es[i].duration.total()))
		}
		dst = header(dst, "etcd_request_errors_total", "counter", "Etcd failed request counts for each operation and object type.")
		for i, k := range etcd {
			dst = sample(dst, "etcd_request_errors_total", etcdLabels(k), float64(es[i].errors.Load()))
		}
	}

	if src := r.Source; src != nil {
		ro, mu := src.InFlight()
		dst = header(dst, "apiserver_current_inflight_requests", "gauge",
			"Maximal number of currently used inflight request limit of this apiserver per request kind in last second.")
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
			"Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.")
		for _, c := range counts {
			dst = sample(dst, "apiserver_resource_objects", []string{"group", c.gr.Group, "resource", c.gr.Resource}, float64(c.n))
		}
		dst = header(dst, "apiserver_storage_objects", "gauge",
			"[DEPRECATED, consider using apiserver_resource_objects instead] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.")
		for _, c := range counts {
			// The resource label is the GroupResource's string, as
			// Kubernetes writes it: "<resource>.<group>".
			dst = sample(dst, "apiserver_storage_objects", []string{"resource", c.gr.String()}, float64(c.n))
		}
	}
	dst = appendRuntime(dst)
	return appendProcess(dst)
}

func sortedKeys[K comparable, V any](m map[K]V, cmp func(a, b K) int) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp)
	return keys
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
	dst = append(dst, name...)
	if len(labels) > 0 {
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
	ls := append(slices.Clip(labels), "le", "")
	var cum uint64
	for i := range h.buckets {
		cum += h.buckets[i].Load()
		le := "+Inf"
		if i < len(h.bounds) {
			le = string(appendFloat(nil, h.bounds[i]))
		}
		ls[len(ls)-1] = le
		dst = sample(dst, name+"_bucket", ls, float64(cum))
	}
	dst = sample(dst, name+"_sum", labels, math.Float64frombits(h.sumBits.Load()))
	// The count is the buckets' total, so that it never disagrees with
	// +Inf's under concurrent observations.
	return sample(dst, name+"_count", labels, float64(cum))
}
