package demo

import (
	"context"
	"testing"

	"github.com/apisem/apisem/internal/recorded"
)

// TestRecordedApplyUnknownFields replays testdata/applyfields-
// configmaps.json, kube-apiserver's answers for ConfigMaps (the
// ConfigMaps of module builtin's recording): the api package's
// ConfigMap, a Go type with a Schema, answers an applied field its
// schema lacks with the same 500 as a cluster, and duplicate keys and
// POSTs and PUTs the same too.
func TestRecordedApplyUnknownFields(t *testing.T) {
	s, url := newTestServer(t, Options{})
	if err := s.Namespaces().CreateSystemNamespaces(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, e := range recorded.Load(t, "testdata/applyfields-configmaps.json") {
		recorded.Replay(t, url, e)
	}
}
