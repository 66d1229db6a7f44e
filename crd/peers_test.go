package crd

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// peersStub are peers that serve what the test says: Reached answers
// serve; every report goes to reports.
type peersStub struct {
	serve   atomic.Bool
	reports chan rv.Version
}

func (p *peersStub) Report(_ context.Context, rev rv.Version) error {
	p.reports <- rev
	return nil
}

func (p *peersStub) Reached(context.Context, rv.Version) (bool, error) { return p.serve.Load(), nil }

// nextReport returns the next report, failing the test if none comes in
// 10 seconds (a guard, not a sync).
func (p *peersStub) nextReport(t *testing.T) rv.Version {
	t.Helper()
	select {
	case rev := <-p.reports:
		return rev
	case <-time.After(10 * time.Second):
		t.Fatal("no report to the peers")
	}
	panic("unreachable")
}

// With peers, a definition is served at once by the server that sees it
// but stays Established False (reason Installing) until the peers report
// that they serve it too; the controller reports when it joins and when a
// definition waits.
func TestEstablishedWaitsForPeers(t *testing.T) {
	p := &peersStub{reports: make(chan rv.Version, 64)}
	opts := Options{Peers: p}
	defs := opts.Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	url := servertest.Start(t, s)
	c := opts.Start(s, defs)
	t.Cleanup(c.Stop)
	p.nextReport(t) // joined

	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	var waiting *CustomResourceDefinition
	waitFor(t, s, "the definition to be Installing", func() bool {
		o, err := c.store().Get(context.Background(), "", "widgets.example.com", rv.Read{Semantics: rv.MostRecent})
		if err != nil {
			t.Fatal(err)
		}
		d := o.(*CustomResourceDefinition)
		est, acc := d.Status.condition(Established), d.Status.condition(NamesAccepted)
		if acc == nil || acc.Status != "True" || est == nil {
			return false
		}
		if est.Status != "False" || est.Reason != "Installing" || est.Message != "the initial names have been accepted" {
			t.Fatalf("Established = %+v while the peers do not serve it", est)
		}
		waiting = d
		return true
	})
	for p.nextReport(t) < version(waiting) {
	}
	do(t, "GET", url+widgetsURL, "", 200) // served here meanwhile

	// The peers serve it; a change (here a label) makes the controller
	// look again, as a peer's report does.
	p.serve.Store(true)
	do(t, "PATCH", url+crdsURL+"/widgets.example.com", `{"metadata":{"labels":{"k":"v"}}}`, 200,
		"Content-Type", "application/merge-patch+json")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a guard
	defer cancel()
	d, err := c.WaitEstablished(ctx, "widgets.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if est := d.Status.condition(Established); est.Reason != "InitialNamesAccepted" {
		t.Errorf("Established = %+v", est)
	}
}
