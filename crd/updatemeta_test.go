package crd

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
)

// An update's metadata errors are three equal causes for a custom
// resource and for a CustomResourceDefinition, in the order of
// kube-apiserver 1.37.1's answers (../shared/reference) to a merge patch
// adding the label a=-bad- and the annotation -x=y: labels, annotations,
// three times (the generic create and update rules, then
// apiextensions-apiserver's update rules once more).
func TestUpdateMetaThrice(t *testing.T) {
	_, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	do(t, "POST", url+widgetsURL, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"}}`, 201)
	const bad = `{"metadata":{"labels":{"a":"-bad-"},"annotations":{"-x":"y"}}}`
	want := strings.Repeat("metadata.labels metadata.annotations ", 3)
	for _, path := range []string{widgetsURL + "/w", crdsURL + "/widgets.example.com"} {
		r := do(t, "PATCH", url+path, bad, 422, "Content-Type", "application/merge-patch+json")
		var st status.Status
		if err := json.Unmarshal([]byte(r.body), &st); err != nil || st.Details == nil {
			t.Fatalf("%s: %v %s", path, err, r.body)
		}
		var fields []string
		for _, c := range st.Details.Causes {
			fields = append(fields, c.Field)
		}
		if got := strings.Join(fields, " ") + " "; got != want {
			t.Errorf("%s: causes %v; want %s", path, fields, want)
		}
	}
}
