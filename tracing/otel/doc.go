// Package otel traces an apisem server with OpenTelemetry, as
// kube-apiserver's --tracing-config-file does: Tracer adapts an
// OpenTelemetry TracerProvider to tracing.Tracer (server's
// Options.Hooks.Tracer, etcdstore's and serverstore's Options.Tracer), and
// ReadConfigFile and NewProvider make the provider kube-apiserver makes
// from an apiserver.config.k8s.io/v1 TracingConfiguration: spans exported
// over OTLP/gRPC, without TLS, to the configured endpoint (localhost:4317
// by default), sampled at samplingRatePerMillion or, unset, only where the
// caller's trace is sampled.
//
// # Usage
//
//	cfg, err := otel.ReadConfigFile(path)
//	tp, err := otel.NewProvider(ctx, cfg, otel.ProviderOptions{})
//	defer tp.Shutdown(ctx)
//	tr := otel.NewTracer(tp)
//	opts.Hooks.Tracer = tr                          // server.Options
//	storage := serverstore.Options{Tracer: tr, ...} // etcd, if used
//
// It is a module of its own so that the core module does not depend on
// OpenTelemetry.
//
// # Non-goals
//
// It does not trace outgoing requests (the server makes none but etcd's,
// which etcdstore traces), nor export anywhere but OTLP/gRPC: a user who
// wants more builds their own TracerProvider and gives it to NewTracer.
package otel
