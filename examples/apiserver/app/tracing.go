package app

import (
	"context"
	"errors"
	"flag"
	"time"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/tracing"
)

// Tracing is the command's tracing and profiling flags, kube-apiserver's
// --tracing-config-file and --profiling. It is not for concurrent use:
// the command reads it as it starts.
type Tracing struct {
	// ConfigFile is -tracing-config-file: an apiserver.config.k8s.io/v1
	// TracingConfiguration. "" means no tracing.
	ConfigFile string
	// Profiling is -profiling: /debug/pprof behind the authorizer. On by
	// default, as kube-apiserver's.
	Profiling bool
	// Provider makes the tracer of a configuration file and the function
	// that flushes and stops it. This module cannot link OpenTelemetry
	// (package app is in the core module): a command in a module that
	// can sets it, to tracing/otel's FromConfigFile. nil refuses
	// -tracing-config-file.
	Provider func(ctx context.Context, configFile string) (tracing.Tracer, func(context.Context) error, error)

	made     bool // Tracer has run
	tracer   tracing.Tracer
	shutdown func(context.Context) error
	err      error
}

// errNoTracing answers -tracing-config-file in a build without an adapter.
var errNoTracing = errors.New("-tracing-config-file: this build of the server has no OpenTelemetry adapter (the one server, or a command that sets app.Tracing.Provider, has)")

// Register adds the flags to fs.
func (t *Tracing) Register(fs *flag.FlagSet) {
	fs.StringVar(&t.ConfigFile, "tracing-config-file", "",
		"file with the tracing configuration (apiserver.config.k8s.io/v1 TracingConfiguration: endpoint, samplingRatePerMillion), as kube-apiserver's; empty: no tracing")
	fs.BoolVar(&t.Profiling, "profiling", true, "serve /debug/pprof, behind authentication and authorization")
}

// Tracer returns the tracer of -tracing-config-file, made on the first
// call; nil without the flag. A command that builds its storage before
// Run calls it to trace the storage with the request's tracer
// (serverstore.Options.Tracer); Run uses the same one.
func (t *Tracing) Tracer(ctx context.Context) (tracing.Tracer, error) {
	if !t.made {
		t.made = true
		switch {
		case t.ConfigFile == "":
		case t.Provider == nil:
			t.err = errNoTracing
		default:
			t.tracer, t.shutdown, t.err = t.Provider(ctx, t.ConfigFile)
		}
	}
	return t.tracer, t.err
}

// apply sets the server options of the flags: the tracer, unless the
// options have one, and profiling.
func (t *Tracing) apply(ctx context.Context, opts *server.Options) error {
	opts.Hooks.DisableProfiling = !t.Profiling
	if opts.Hooks.Tracer != nil {
		return nil
	}
	tr, err := t.Tracer(ctx)
	if err != nil {
		return err
	}
	if tr != nil {
		opts.Hooks.Tracer = tr
	}
	return nil
}

// Shutdown flushes the spans not yet exported and stops the tracer, if
// there is one, waiting at most shutdownWait: a collector that does not
// answer does not hold the command's exit.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t.shutdown == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, shutdownWait)
	defer cancel()
	return t.shutdown(ctx)
}

const shutdownWait = 5 * time.Second
