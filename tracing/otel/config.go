package otel

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/tracing"
)

// Configuration is kube-apiserver's tracing configuration
// (apiserver.config.k8s.io/v1 TracingConfiguration, the file of
// --tracing-config-file; k8s.io/component-base/tracing/api/v1).
type Configuration struct {
	// Endpoint is the OTLP/gRPC collector's address, reached without
	// TLS; nil means localhost:4317.
	Endpoint *string `json:"endpoint,omitempty"`
	// SamplingRatePerMillion is how many traces in a million the server
	// begins are sampled; nil (or 0) means none: only those whose
	// caller's span is sampled are.
	SamplingRatePerMillion *int32 `json:"samplingRatePerMillion,omitempty"`
}

// The group and kind of a configuration file; v1beta1 and v1alpha1 are
// read as v1, as kube-apiserver reads them.
const (
	configGroup = "apiserver.config.k8s.io"
	configKind  = "TracingConfiguration"
)

// ReadConfigFile reads and validates a TracingConfiguration file, in YAML
// or JSON.
func ReadConfigFile(path string) (*Configuration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read tracing configuration from %q: %w", path, err)
	}
	return ParseConfig(data)
}

// ParseConfig parses and validates a TracingConfiguration, in YAML or
// JSON, with kube-apiserver's rules and messages.
func ParseConfig(data []byte) (*Configuration, error) {
	var doc struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Configuration
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("unable to decode tracing configuration data: %w", err)
	}
	group, version, _ := strings.Cut(doc.APIVersion, "/")
	if group != configGroup || (version != "v1" && version != "v1beta1" && version != "v1alpha1") || doc.Kind != configKind {
		return nil, fmt.Errorf("unable to decode tracing configuration data: apiVersion %q, kind %q; want %s/v1, %s",
			doc.APIVersion, doc.Kind, configGroup, configKind)
	}
	c := doc.Configuration
	return &c, c.Validate()
}

// Validate checks c as kube-apiserver does
// (k8s.io/component-base/tracing/api/v1.ValidateTracingConfiguration).
func (c *Configuration) Validate() error {
	var errs []error
	if r := c.SamplingRatePerMillion; r != nil {
		switch {
		case *r < 0:
			errs = append(errs, fmt.Errorf("samplingRatePerMillion: Invalid value: %d: sampling rate must be positive", *r))
		case *r > 1000000:
			errs = append(errs, fmt.Errorf("samplingRatePerMillion: Invalid value: %d: sampling rate per million must be less than or equal to one million", *r))
		}
	}
	if c.Endpoint != nil {
		ep := *c.Endpoint
		if !strings.Contains(ep, "//") {
			ep = "dns://" + ep
		}
		u, err := url.Parse(ep)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("endpoint: Invalid value: %q: %v", ep, err))
		case u.Scheme != "dns" && u.Scheme != "unix" && u.Scheme != "unix-abstract":
			errs = append(errs, fmt.Errorf("endpoint: Invalid value: %q: unsupported scheme: %v.  Options are none, dns, unix, or unix-abstract.  See https://github.com/grpc/grpc/blob/master/doc/naming.md", ep, u.Scheme))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("failed to validate tracing configuration: %w", errors.Join(errs...))
	}
	return nil
}

// Sampler is the sampler of c: the caller's decision where there is a
// caller's span, else SamplingRatePerMillion in a million, else none.
func (c *Configuration) Sampler() sdktrace.Sampler {
	s := sdktrace.NeverSample()
	if r := c.SamplingRatePerMillion; r != nil && *r > 0 {
		s = sdktrace.TraceIDRatioBased(float64(*r) / 1e6)
	}
	return sdktrace.ParentBased(s)
}

// ProviderOptions configure NewProvider. The zero value means
// kube-apiserver's choices.
type ProviderOptions struct {
	// ServiceName is the service.name of the spans; "" means
	// "apiserver", kube-apiserver's.
	ServiceName string
	// InstanceID is the service.instance.id, which tells the replicas
	// of a server apart (kube-apiserver's is its lease identity); ""
	// leaves it out.
	InstanceID string
	// Exporter replaces the OTLP/gRPC exporter (for a test, an
	// in-memory one). nil means OTLP/gRPC to c.Endpoint.
	Exporter sdktrace.SpanExporter
}

// NewProvider returns the TracerProvider kube-apiserver makes from c
// (k8s.io/component-base/tracing.NewProvider): c's Sampler, a batching
// span processor, and an OTLP/gRPC exporter without TLS to c.Endpoint.
// The exporter connects lazily: an unreachable collector does not fail
// it. The caller shuts it down, which exports the spans left.
func NewProvider(ctx context.Context, c *Configuration, o ProviderOptions) (*sdktrace.TracerProvider, error) {
	exp := o.Exporter
	if exp == nil {
		opts := []otlptracegrpc.Option{otlptracegrpc.WithInsecure()}
		if c.Endpoint != nil {
			opts = append(opts, otlptracegrpc.WithEndpoint(*c.Endpoint))
		}
		var err error
		if exp, err = otlptracegrpc.New(ctx, opts...); err != nil {
			return nil, err
		}
	}
	name := o.ServiceName
	if name == "" {
		name = "apiserver"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if o.InstanceID != "" {
		attrs = append(attrs, attribute.String("service.instance.id", o.InstanceID))
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithSampler(c.Sampler()),
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attrs...)),
	), nil
}

// FromConfigFile makes the tracer of a TracingConfiguration file as
// kube-apiserver's --tracing-config-file does (ReadConfigFile, then
// NewProvider with kube-apiserver's choices), and returns it with the
// provider's Shutdown, which flushes the spans left. Its signature is that
// of the example server's app.Tracing.Provider.
func FromConfigFile(ctx context.Context, path string) (tracing.Tracer, func(context.Context) error, error) {
	c, err := ReadConfigFile(path)
	if err != nil {
		return nil, nil, err
	}
	tp, err := NewProvider(ctx, c, ProviderOptions{})
	if err != nil {
		return nil, nil, err
	}
	return NewTracer(tp), tp.Shutdown, nil
}
