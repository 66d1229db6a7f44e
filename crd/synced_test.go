package crd

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// Synced is closed once the controller serves the definitions stored
// before it started (a server restarted on durable storage), so that a
// readiness check on it never lets a client see their resources missing.
func TestSynced(t *testing.T) {
	defs := Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	url := servertest.Start(t, s)
	var d CustomResourceDefinition
	if err := json.Unmarshal([]byte(widgetCRD(t)), &d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(context.Background(), defs, &d); err != nil {
		t.Fatal(err)
	}
	c := Start(s, defs)
	t.Cleanup(c.Stop)
	select {
	case <-c.Synced():
	case <-time.After(10 * time.Second): // a guard, not a sync
		t.Fatal("the controller did not finish its first pass")
	}
	do(t, "GET", url+"/apis/example.com/v1/widgets", "", 200)
}
