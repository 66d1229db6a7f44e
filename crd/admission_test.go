package crd

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// TestCreateWhileTerminating refuses creates of a definition's objects
// from its deletion on, as Kubernetes does, while the objects that are
// there may still be changed (their finalizers removed).
func TestCreateWhileTerminating(t *testing.T) {
	s, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w1","finalizers":["example.com/hold"]},"spec":{"color":"red"}}`, 201)
	do(t, "DELETE", url+crdsURL+"/widgets.example.com", "", 200)
	const why = ": create not allowed while custom resource definition is terminating"
	for _, tc := range []struct {
		name, method, url, body, ctype, msg string
	}{
		{"create", "POST", widgetsURL, `{"metadata":{"name":"w2"},"spec":{"color":"red"}}`, "",
			`widgets.example.com "w2" is forbidden` + why},
		{"generateName", "POST", widgetsURL, `{"metadata":{"generateName":"w-"},"spec":{"color":"red"}}`, "",
			`widgets.example.com is forbidden` + why},
		{"apply that creates", "PATCH", widgetsURL + "/w3?fieldManager=m", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w3"},"spec":{"color":"red"}}`,
			"application/apply-patch+yaml", `widgets.example.com "w3" is forbidden` + why},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if tc.ctype != "" {
				hdr = []string{"Content-Type", tc.ctype}
			}
			st := statusOf(t, do(t, tc.method, url+tc.url, tc.body, 403, hdr...).body)
			if st.Message != tc.msg || st.Reason != status.ReasonForbidden || st.Details == nil ||
				st.Details.Group != "example.com" || st.Details.Kind != "widgets" {
				t.Errorf("Status = %+v; want message %q", st, tc.msg)
			}
		})
	}
	// The object there is held by its finalizer; removing it lets the
	// definition go.
	do(t, "PATCH", url+widgetsURL+"/w1", `{"metadata":{"finalizers":null}}`, 200, "Content-Type", "application/merge-patch+json")
	waitFor(t, s, "the definition to go", func() bool {
		_, err := s.StoreOf(c.defs).Get(context.Background(), "", "widgets.example.com", rv.Read{Semantics: rv.MostRecent})
		return status.IsNotFound(err)
	})
}

// TestScalePathsValidation refuses definitions whose scale paths are
// not where Kubernetes wants them, with its messages. The definition has
// one version, whose subresources Kubernetes reports as the definition's
// (spec.subresources), as a kube-apiserver 1.37 does.
func TestScalePathsValidation(t *testing.T) {
	_, _, url := newServer(t)
	const p = "spec.subresources.scale."
	for _, tc := range []struct {
		name  string
		scale map[string]any
		cause string
	}{
		{"no spec path", map[string]any{"statusReplicasPath": ".status.replicas"}, p + "specReplicasPath: Required value"},
		{"no status path", map[string]any{"specReplicasPath": ".spec.replicas"}, p + "statusReplicasPath: Required value"},
		{"not a path", map[string]any{"specReplicasPath": "spec.replicas", "statusReplicasPath": ".status.replicas"},
			p + `specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .`},
		{"spec path outside spec", map[string]any{"specReplicasPath": ".status.replicas", "statusReplicasPath": ".status.replicas"},
			p + `specReplicasPath: Invalid value: ".status.replicas": should be a json path under .spec`},
		{"status path outside status", map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".spec.replicas"},
			p + `statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status`},
		{"selector outside both", map[string]any{"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas", "labelSelectorPath": ".metadata.labels"},
			p + `labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d map[string]any
			if err := json.Unmarshal([]byte(widgetCRD(t)), &d); err != nil {
				t.Fatal(err)
			}
			v := d["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
			v["subresources"].(map[string]any)["scale"] = tc.scale
			st := statusOf(t, do(t, "POST", url+crdsURL, jsonOf(t, d), 422).body)
			if want := `CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: ` + tc.cause; st.Message != want {
				t.Errorf("message %q\nwant    %q", st.Message, want)
			}
		})
	}
}
