package crd

import (
	"context"
	"strings"
	"testing"
)

// TestApplyCreateIntegerDefault creates an object by server-side apply
// whose spec.replicas, a scale path, takes its schema default: the
// default is an integer (int64) as in a decoded request, so the scale
// check accepts it. The definition's status writes once turned its
// defaults into float64s.
func TestApplyCreateIntegerDefault(t *testing.T) {
	_, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	r := do(t, "PATCH", url+widgetsURL+"/w1?fieldManager=a", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"color":"red"}}`,
		201, "Content-Type", "application/apply-patch+yaml")
	if !strings.Contains(r.body, `"spec":{"color":"red","replicas":1}`) {
		t.Errorf("apply create: %s", r.body)
	}
}
