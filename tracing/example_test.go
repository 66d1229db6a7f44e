package tracing_test

import (
	"context"
	"fmt"

	"github.com/apisem/apisem/tracing"
)

// A caller's traceparent, parsed and put in a request's context for the
// Tracer, which starts the request's span from it.
func ExampleParseTraceparent() {
	sc, err := tracing.ParseTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "congo=t61rcWkgMzE")
	if err != nil {
		panic(err)
	}
	fmt.Printf("trace %x\nspan  %x\nsampled %v\nstate %s\n", sc.TraceID, sc.SpanID, sc.Flags&tracing.Sampled != 0, sc.State)

	ctx := tracing.ContextWithRemote(context.Background(), sc, true)
	remote, trusted, _ := tracing.RemoteFrom(ctx)
	fmt.Println(remote.Traceparent(), trusted)

	_, err = tracing.ParseTraceparent("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01", "")
	fmt.Println(err)
	// Output:
	// trace 0af7651916cd43dd8448eb211c80319c
	// span  b7ad6b7169203331
	// sampled true
	// state congo=t61rcWkgMzE
	// 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01 true
	// tracing: invalid traceparent
}
