package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// The discovery documents of testdata/reference, recorded from
// kube-apiserver 1.37.1 (../shared/reference) with the custom resource
// definition of testdata/reference/crd-widgets.json installed: /api/v1,
// /apis/apps/v1, /apis/example.apisem.dev/{v1,v1beta1} and the
// aggregated /api and /apis. referenceResources declares a few of the
// resources in them, as builtin and crd declare theirs; each of their
// entries must be the reference's, field for field.

// referenceResources are Pods (a built-in kind with selectable fields),
// ConfigMaps (one without; declared after Pods, which a cluster lists
// after them) and Deployments (with a scale subresource), and widgets, a
// custom resource in two versions stored as v1.
func referenceResources() []*Resource {
	scale := &ScaleSubresource{SpecReplicasPath: ".spec.replicas"} // discovery only: never read
	node := func(Object) string { return "" }
	widget := func(version string) *Resource {
		return UnstructuredResource(Resource{Group: "example.apisem.dev", Version: version, Kind: "Widget", ListKind: "WidgetList",
			Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Categories: []string{"all"}, Namespaced: true,
			Custom: true, StorageVersionHash: StorageVersionHash("example.apisem.dev", "v1", "Widget")})
	}
	w1, w1beta1 := widget("v1"), widget("v1beta1")
	w1.StatusSubresource, w1.Scale = true, scale
	return []*Resource{
		{Version: "v1", Kind: "Pod", ListKind: "PodList", Plural: "pods", Singular: "pod",
			ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true, StatusSubresource: true,
			Fields: map[string]func(Object) string{"spec.nodeName": node}, New: func() Object { return &gadget{} }},
		{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps", Singular: "configmap",
			ShortNames: []string{"cm"}, Namespaced: true, New: func() Object { return &gadget{} }},
		{Group: "apps", Version: "v1", Kind: "Deployment", ListKind: "DeploymentList", Plural: "deployments", Singular: "deployment",
			ShortNames: []string{"deploy"}, Categories: []string{"all"}, Namespaced: true, StatusSubresource: true, Scale: scale,
			New: func() Object { return &gadget{} }},
		w1, w1beta1,
	}
}

func readReference(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// entries are the members of a JSON array of objects, by the value of
// their key.
func entries(t *testing.T, list []map[string]any, key string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, e := range list {
		out[e[key].(string)] = e
	}
	return out
}

// /api/v1 and /apis/<group>/<version>: every entry, storageVersionHash
// included (given for resources, of the storage version, and not for
// subresources), and a custom resource's verbs in apiextensions-apiserver's
// order.
func TestRecordedResourceLists(t *testing.T) {
	s := newTestServer(t, Options{Resources: referenceResources()})
	for path, file := range map[string]string{
		"/api/v1":                          "api-v1.json",
		"/apis/apps/v1":                    "apis-apps-v1.json",
		"/apis/example.apisem.dev/v1":      "apis-example.apisem.dev-v1.json",
		"/apis/example.apisem.dev/v1beta1": "apis-example.apisem.dev-v1beta1.json",
	} {
		type list struct {
			Resources []map[string]any `json:"resources"`
		}
		var want, got list
		readReference(t, file, &want)
		w := get(s, path)
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
			t.Fatalf("GET %s: %d %v", path, w.Code, err)
		}
		ref := entries(t, want.Resources, "name")
		var order, wantOrder []string // ours, and the reference's of them
		for _, e := range got.Resources {
			name := e["name"].(string)
			order = append(order, name)
			if r, ok := ref[name]; !ok {
				t.Errorf("GET %s: %s is not the reference's", path, name)
			} else if !reflect.DeepEqual(e, r) {
				t.Errorf("GET %s: %s\n got %v\nwant %v", path, name, e, r)
			}
		}
		for _, r := range want.Resources {
			if slices.Contains(order, r["name"].(string)) {
				wantOrder = append(wantOrder, r["name"].(string))
			}
		}
		if !slices.Equal(order, wantOrder) {
			t.Errorf("GET %s: order %v; want %v", path, order, wantOrder)
		}
	}
}

// The aggregated /api and /apis: kube-apiserver leaves a responseKind's
// group and version empty for its own resources and their subresources
// of the same kind, and names them for a custom resource's (and for
// another group's kind, autoscaling/v1 Scale).
func TestRecordedAggregatedDiscovery(t *testing.T) {
	s := newTestServer(t, Options{Resources: referenceResources()})
	type doc struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Versions []struct {
				Version   string           `json:"version"`
				Resources []map[string]any `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	// byPath indexes a document's resources by group/version/resource,
	// and lists them in order.
	byPath := func(d doc) (map[string]map[string]any, []string) {
		out := map[string]map[string]any{}
		var order []string
		for _, g := range d.Items {
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					name := g.Metadata.Name + "/" + v.Version + "/" + r["resource"].(string)
					out[name] = r
					order = append(order, name)
				}
			}
		}
		return out, order
	}
	n := 0
	for path, file := range map[string]string{"/api": "aggregated-api.json", "/apis": "aggregated-apis.json"} {
		var want, got doc
		readReference(t, file, &want)
		w := get(s, path, "Accept", acceptAggregated)
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
			t.Fatalf("GET %s: %d %v", path, w.Code, err)
		}
		ref, refOrder := byPath(want)
		ours, order := byPath(got)
		if want := slices.DeleteFunc(refOrder, func(name string) bool { return ours[name] == nil }); !slices.Equal(order, want) {
			t.Errorf("GET %s: order %v; want %v", path, order, want)
		}
		for name, r := range ours {
			n++
			wr, ok := ref[name]
			if !ok {
				t.Errorf("GET %s: %s is not the reference's", path, name)
				continue
			}
			// The reference serves more subresources (a Pod's log,
			// exec...); compare those we serve.
			if subs, ok := wr["subresources"].([]any); ok {
				var kept []any
				for _, sub := range subs {
					for _, ours := range r["subresources"].([]any) {
						if ours.(map[string]any)["subresource"] == sub.(map[string]any)["subresource"] {
							kept = append(kept, sub)
						}
					}
				}
				wr["subresources"] = kept
			}
			if !reflect.DeepEqual(r, wr) {
				t.Errorf("GET %s: %s\n got %v\nwant %v", path, name, r, wr)
			}
		}
	}
	if n != 5 {
		t.Errorf("compared %d resources, want 5", n)
	}
}

// StorageVersionHash against hashes the reference gives
// (testdata/reference/api-v1.json, apis-apps-v1.json).
func TestStorageVersionHash(t *testing.T) {
	for _, tt := range []struct{ group, version, kind, want string }{
		{"", "v1", "ConfigMap", "qFsyl6wFWjQ="},
		{"", "v1", "Pod", "xPOwRZ+Yhw8="},
		{"apps", "v1", "Deployment", "8aSe+NMegvE="},
		{"example.apisem.dev", "v1", "Widget", "xAgbw+S4sYA="},
	} {
		if got := StorageVersionHash(tt.group, tt.version, tt.kind); got != tt.want {
			t.Errorf("StorageVersionHash(%q, %q, %q) = %q; want %q", tt.group, tt.version, tt.kind, got, tt.want)
		}
	}
}
