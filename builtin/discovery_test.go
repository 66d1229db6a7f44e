package builtin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// The resources a kube-apiserver v1.37.1 lists by default
// (testdata/reference/discovery-*.json: its aggregated discovery of
// /api and /apis, recorded from the reference cluster of
// ../shared/reference with no flags beyond its defaults) are the ones
// a server of every built-in kind (and package namespace's Namespaces)
// lists, with the same verbs, short names, categories, scope, kinds and
// subresources, but for the differences listed here with their reasons.

// notServed are the reference's resources a server of this module does
// not list, by group/version/resource, with the reason.
var notServed = map[string]string{
	// Not stored: each answers a create from what the apiserver knows.
	"/v1/componentstatuses":                             "deprecated; reports the health of the cluster's control plane, which a server of this module is not",
	"apiextensions.k8s.io/v1/customresourcedefinitions": "served by package crd, not by this module",
	"apiregistration.k8s.io/v1/apiservices":             "kube-aggregator's: a server of this module aggregates no other apiserver",
}

// subresourcesNotServed are the reference's subresources a server of
// this module does not list, by group/version/resource/subresource.
var subresourcesNotServed = map[string]string{}

// resourceDifferences are the fields of a listed resource that differ
// on purpose, by group/version/resource.
var resourceDifferences = map[string]string{}

// discovered is what the test compares of a resource in discovery.
type discovered struct {
	Kind, Singular, Scope         string
	Verbs, ShortNames, Categories []string
	Subresources                  map[string]string // subresource: kind and verbs
}

// flatten lists the resources of aggregated discovery documents by
// group/version/resource, and the group versions in order. A kind is
// written group/version/kind, as the responseKind gives it: a built-in
// resource's own kind has an empty group and version.
func flatten(t *testing.T, docs ...[]byte) (map[string]discovered, []string) {
	t.Helper()
	out := map[string]discovered{}
	var versions []string
	for _, doc := range docs {
		var l apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(doc, &l); err != nil {
			t.Fatal(err)
		}
		for _, g := range l.Items {
			for _, v := range g.Versions {
				versions = append(versions, g.Name+"/"+v.Version)
				for _, r := range v.Resources {
					d := discovered{Singular: r.SingularResource, Scope: string(r.Scope),
						Verbs: sorted(r.Verbs), ShortNames: r.ShortNames, Categories: r.Categories,
						Subresources: map[string]string{}}
					if rk := r.ResponseKind; rk != nil {
						d.Kind = rk.Group + "/" + rk.Version + "/" + rk.Kind
					}
					for _, s := range r.Subresources {
						k := ""
						if rk := s.ResponseKind; rk != nil {
							k = rk.Group + "/" + rk.Version + "/" + rk.Kind
						}
						d.Subresources[s.Subresource] = k + " " + strings.Join(sorted(s.Verbs), ",")
					}
					out[g.Name+"/"+v.Version+"/"+r.Resource] = d
				}
			}
		}
	}
	return out, versions
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// aggregated returns our server's aggregated discovery of path.
func aggregated(t *testing.T, url, path string) []byte {
	t.Helper()
	req, err := http.NewRequest("GET", url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatalf("%s: %d %v", path, resp.StatusCode, err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json;g=apidiscovery.k8s.io;v=v2") {
		t.Fatalf("%s: Content-Type %q", path, ct)
	}
	return raw
}

func TestDiscoveryMatchesReference(t *testing.T) {
	var docs [][]byte
	for _, f := range []string{"discovery-api.json", "discovery-apis.json"} {
		b, err := os.ReadFile("testdata/reference/" + f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, b)
	}
	want, wantVersions := flatten(t, docs...)

	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := namespace.New(namespace.Options{})
	_, url := servertest.New(t, server.Options{Resources: append(res, ns.Resource())})
	got, gotVersions := flatten(t, aggregated(t, url, "/api"), aggregated(t, url, "/apis"))

	// Every group version we serve is the reference's.
	for _, v := range gotVersions {
		if !slices.Contains(wantVersions, v) {
			t.Errorf("we serve %s, which the reference does not", v)
		}
	}
	for name, w := range want {
		g, ok := got[name]
		if reason, known := notServed[name]; known {
			if ok {
				t.Errorf("%s is served: remove it from notServed (%s)", name, reason)
			}
			continue
		}
		if !ok {
			t.Errorf("%s (%s) is not served", name, w.Kind)
			continue
		}
		for sub := range w.Subresources {
			key := name + "/" + sub
			if reason, known := subresourcesNotServed[key]; known {
				if _, ok := g.Subresources[sub]; ok {
					t.Errorf("%s is served: remove it from subresourcesNotServed (%s)", key, reason)
				}
				delete(w.Subresources, sub)
			}
		}
		if _, known := resourceDifferences[name]; known {
			continue
		}
		if diff := cmpDiscovered(w, g); diff != "" {
			t.Errorf("%s differs (reference, ours):\n%s", name, diff)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("we serve %s, which the reference does not", name)
		}
	}
	for name := range notServed {
		if _, ok := want[name]; !ok {
			t.Errorf("notServed lists %s, which the reference does not serve", name)
		}
	}
}

// cmpDiscovered describes the differences of two resources' discovery.
func cmpDiscovered(want, got discovered) string {
	var b strings.Builder
	field := func(name string, w, g any) {
		if fmt.Sprint(w) != fmt.Sprint(g) {
			fmt.Fprintf(&b, "  %s: %v, %v\n", name, w, g)
		}
	}
	field("kind", want.Kind, got.Kind)
	field("singular", want.Singular, got.Singular)
	field("scope", want.Scope, got.Scope)
	field("verbs", want.Verbs, got.Verbs)
	field("shortNames", want.ShortNames, got.ShortNames)
	field("categories", want.Categories, got.Categories)
	field("subresources", want.Subresources, got.Subresources)
	return b.String()
}

// The APIResourceLists of /api/v1 and /apis/<group>/<version> are the
// reference's (testdata/reference/resources.json, recorded from the same
// kube-apiserver), entry for entry and in order, for every resource and
// subresource served: storageVersionHash included, the hash of the
// version kube-apiserver 1.37 stores the objects in (v1beta1 for
// ClusterTrustBundles, core v1 for events.k8s.io Events...).
func TestResourceListsMatchReference(t *testing.T) {
	b, err := os.ReadFile("testdata/reference/resources.json")
	if err != nil {
		t.Fatal(err)
	}
	type list struct {
		Resources []map[string]any `json:"resources"`
	}
	var ref map[string]list
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ns := namespace.New(namespace.Options{})
	_, url := servertest.New(t, server.Options{Resources: append(res, ns.Resource())})
	hashes := 0
	for gv, want := range ref {
		path := "/apis/" + gv
		if gv == "v1" {
			path = "/api/v1"
		}
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		var got list
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			continue // a group version we do not serve: TestDiscoveryMatchesReference says why
		}
		if err != nil {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		byName := map[string]map[string]any{}
		for _, e := range want.Resources {
			byName[e["name"].(string)] = e
		}
		var order, wantOrder []string
		for _, e := range got.Resources {
			name := e["name"].(string)
			order = append(order, name)
			w, ok := byName[name]
			if !ok {
				t.Errorf("GET %s: %s is not the reference's", path, name)
				continue
			}
			if _, ok := e["storageVersionHash"]; ok {
				hashes++
			}
			if fmt.Sprint(e) != fmt.Sprint(w) {
				t.Errorf("GET %s: %s differs\n got %v\nwant %v", path, name, e, w)
			}
		}
		for _, e := range want.Resources {
			if slices.Contains(order, e["name"].(string)) {
				wantOrder = append(wantOrder, e["name"].(string))
			}
		}
		if !slices.Equal(order, wantOrder) {
			t.Errorf("GET %s: order\n got %v\nwant %v", path, order, wantOrder)
		}
	}
	if hashes < 50 {
		t.Errorf("compared %d storageVersionHash values, want them all", hashes)
	}
}
