package demo

import (
	"context"

	"github.com/apisem/apisem/gc"
)

// startCollector runs package gc's garbage collector until ctx is done,
// when Options.GarbageCollection says one runs; gcDone is closed when it
// has returned.
func (d *Server) startCollector(ctx context.Context, on bool) {
	d.gcDone = make(chan struct{})
	if !on {
		close(d.gcDone)
		return
	}
	c := gc.New(d.Server, gc.Options{})
	go func() {
		defer close(d.gcDone)
		c.Run(ctx) // returns when ctx is done
	}()
}
