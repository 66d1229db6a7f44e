package app

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/tracing"
)

type fakeTracer struct{ file string }

func (fakeTracer) Start(ctx context.Context, _ string, _ tracing.Kind, _ ...slog.Attr) (context.Context, tracing.Span) {
	return ctx, nil
}

func TestTracingFlags(t *testing.T) {
	var made []string // the files the provider was asked for
	shutdowns := 0
	provider := func(_ context.Context, file string) (tracing.Tracer, func(context.Context) error, error) {
		made = append(made, file)
		if file == "bad.yaml" {
			return nil, nil, errors.New("bad file")
		}
		return fakeTracer{file}, func(context.Context) error { shutdowns++; return nil }, nil
	}
	for _, tt := range []struct {
		name     string
		args     []string
		provider bool
		tracer   tracing.Tracer // of the server's options
		noPprof  bool
		err      error
	}{
		{"defaults: no tracing, profiling", nil, true, nil, false, nil},
		{"-profiling=false", []string{"-profiling=false"}, true, nil, true, nil},
		{"a configuration file", []string{"-tracing-config-file=t.yaml"}, true, fakeTracer{"t.yaml"}, false, nil},
		{"a bad one", []string{"-tracing-config-file=bad.yaml"}, true, nil, false, errors.New("bad file")},
		{"a build without an adapter", []string{"-tracing-config-file=t.yaml"}, false, nil, false, errNoTracing},
	} {
		t.Run(tt.name, func(t *testing.T) {
			made, shutdowns = nil, 0
			var c Config
			fs := flag.NewFlagSet("apiserver", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.Register(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if tt.provider {
				c.Tracing.Provider = provider
			}
			// The storage's tracer, asked for first, is the server's.
			st, _ := c.Tracing.Tracer(context.Background())
			var opts server.Options
			err := c.Tracing.apply(context.Background(), &opts)
			if (err == nil) != (tt.err == nil) || err != nil && err.Error() != tt.err.Error() {
				t.Fatalf("apply: %v; want %v", err, tt.err)
			}
			if opts.Hooks.Tracer != tt.tracer || st != tt.tracer || opts.Hooks.DisableProfiling != tt.noPprof {
				t.Errorf("tracer %v (storage's %v), DisableProfiling %v; want %v, %v", opts.Hooks.Tracer, st, opts.Hooks.DisableProfiling, tt.tracer, tt.noPprof)
			}
			if len(made) > 1 {
				t.Errorf("the provider made %d tracers; want one, shared", len(made))
			}
			c.Tracing.Shutdown(context.Background())
			if want := map[bool]int{true: 1, false: 0}[tt.tracer != nil]; shutdowns != want {
				t.Errorf("%d shutdowns; want %d", shutdowns, want)
			}
		})
	}
}
