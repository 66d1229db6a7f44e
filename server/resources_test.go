package server_test

import (
	"testing"

	"github.com/apisem/apisem/server"
)

// ResourcesChanged's channel is closed by AddResource and RemoveResource,
// and only by them.
func TestResourcesChanged(t *testing.T) {
	knobs := &server.Resource{Version: "v1", Kind: "Knob", ListKind: "KnobList", Plural: "knobs", Singular: "knob",
		New: func() server.Object { return &knob{} }}
	s, _ := newServer(t, server.Options{})
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	c := s.ResourcesChanged()
	if closed(c) {
		t.Fatal("closed before any change")
	}
	if err := s.AddResource(knobs); err != nil {
		t.Fatal(err)
	}
	if !closed(c) || len(s.Resources()) != 1 {
		t.Fatalf("AddResource: closed %v, resources %d", closed(c), len(s.Resources()))
	}
	c = s.ResourcesChanged()
	if err := s.AddResource(knobs); err == nil || closed(c) {
		t.Errorf("a failed AddResource (%v) closed the channel: %v", err, closed(c))
	}
	if err := s.RemoveResource(knobs); err != nil || !closed(c) {
		t.Errorf("RemoveResource (%v): closed %v", err, closed(c))
	}
}
