// Package metrics records what a server measures in process and serves it
// at /metrics in Prometheus' text exposition format (version 0.0.4), with
// kube-apiserver's metric names, labels and buckets, so that the
// dashboards and alerts written for a cluster (kube-prometheus's apiserver
// rules among them) work against a server built on package server.
//
// # Usage
//
// A Recorder is server.Options.Hooks.Metrics; the server serves it at /metrics
// behind its authorizer and reports each request to it. Its Source (the
// server) gives the gauges read at each scrape:
//
//	rec := &metrics.Recorder{}
//	srv, err := server.New(server.Options{Metrics: rec, ...})
//	rec.Source = srv // before serving
//
// # What it serves
//
// From the server's reports, as k8s.io/apiserver/pkg/endpoints/metrics
// names them: apiserver_request_total, apiserver_request_terminations_total
// (the requests the server ended early: 429 of the in-flight and
// connection limits, 504 of a deadline), apiserver_request_duration_seconds,
// apiserver_request_sli_duration_seconds (the duration itself: the
// server has no webhooks or priority-and-fairness queues to subtract),
// apiserver_response_sizes, apiserver_longrunning_requests,
// apiserver_watch_events_total and apiserver_watch_events_sizes. From an
// etcd backend's reports (etcdstore.Options.Metrics, to which a Recorder
// can be given too): etcd_request_duration_seconds, etcd_requests_total
// and etcd_request_errors_total, as k8s.io/apiserver/pkg/storage/etcd3
// names them. Read at
// each scrape from the Source: apiserver_current_inflight_requests,
// apiserver_storage_objects and apiserver_resource_objects. Of the
// process: go_* (runtime.ReadMemStats, debug.ReadGCStats) and, on Linux,
// process_* (from /proc), as Prometheus' Go client names them.
//
// # Non-goals
//
// It is not a general metrics library: the series are the ones above,
// and a user who wants more (or prometheus/client_golang) implements
// Observer themselves. apiserver_registered_watchers is not served:
// kube-apiserver 1.37 no longer has it; watches are counted by
// apiserver_longrunning_requests{verb="WATCH"}. The text format is
// written by hand because prometheus/client_golang would add fifteen
// modules to the core module's build list for one page of output.
package metrics
