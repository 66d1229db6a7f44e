package crd

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// testdata/reference holds a definition (crd-widgets.json: two versions,
// v1 stored, with the status and scale subresources) and what
// kube-apiserver 1.37.1 (../shared/reference) answered about it: its
// /apis/example.apisem.dev/{v1,v1beta1} and its group's entry in the
// aggregated /apis (aggregated-apis-example.apisem.dev.json).

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile("testdata/reference/" + name)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// The served versions' discovery is the reference's, field for field and
// in order: both versions give the storage version's storageVersionHash,
// verbs are in apiextensions-apiserver's order, and aggregated
// discovery names the group and version of each responseKind.
func TestRecordedDiscovery(t *testing.T) {
	_, c, url := newServer(t)
	b, err := os.ReadFile("testdata/reference/crd-widgets.json")
	if err != nil {
		t.Fatal(err)
	}
	do(t, "POST", url+crdsURL, string(b), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.apisem.dev"); err != nil {
		t.Fatal(err)
	}
	for path, file := range map[string]string{
		"/apis/example.apisem.dev/v1":      "apis-example.apisem.dev-v1.json",
		"/apis/example.apisem.dev/v1beta1": "apis-example.apisem.dev-v1beta1.json",
	} {
		var want, got any
		readJSON(t, file, &want)
		if err := json.Unmarshal([]byte(do(t, "GET", url+path, "", 200).body), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("GET %s\n got %v\nwant %v", path, got, want)
		}
	}
	var want any
	readJSON(t, "aggregated-apis-example.apisem.dev.json", &want)
	var got struct{ Items []map[string]any }
	r := do(t, "GET", url+"/apis", "", 200, "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range got.Items {
		if g["metadata"].(map[string]any)["name"] == "example.apisem.dev" {
			found = true
			if !reflect.DeepEqual(any(g), want) {
				t.Errorf("aggregated /apis\n got %v\nwant %v", g, want)
			}
		}
	}
	if !found {
		t.Errorf("aggregated /apis lacks example.apisem.dev: %s", r.body)
	}
}

// A field selector on a field the resource lacks, recorded with and
// without a namespace, with a watch, and beside a known field.
func TestRecordedUnknownFieldSelector(t *testing.T) {
	_, c, url := newServer(t)
	b, err := os.ReadFile("testdata/reference/crd-widgets.json")
	if err != nil {
		t.Fatal(err)
	}
	do(t, "POST", url+crdsURL, string(b), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.apisem.dev"); err != nil {
		t.Fatal(err)
	}
	const want = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"field label not supported: spec.foo","reason":"BadRequest","code":400}` + "\n"
	for _, path := range []string{
		"/apis/example.apisem.dev/v1/namespaces/default/widgets?fieldSelector=spec.foo=bar",
		"/apis/example.apisem.dev/v1/widgets?fieldSelector=spec.foo=bar",
		"/apis/example.apisem.dev/v1/namespaces/default/widgets?fieldSelector=spec.foo=bar&watch=1",
		"/apis/example.apisem.dev/v1/namespaces/default/widgets?fieldSelector=metadata.name=x,spec.foo=bar",
	} {
		if got := do(t, "GET", url+path, "", 400).body; got != want {
			t.Errorf("GET %s = %s; want %s", path, got, want)
		}
	}
}
