package server

import (
	"encoding/json"
	"runtime"
	"slices"
	"sync"
)

// Discovery documents, the unaggregated kind kubectl and client-go fall back
// to when the response is not aggregated discovery
// (k8s.io/client-go/discovery/discovery_client.go). Key
// order and omission rules follow metav1's types.

type apiVersions struct {
	Kind                       string          `json:"kind"`
	Versions                   []string        `json:"versions"`
	ServerAddressByClientCIDRs []serverAddress `json:"serverAddressByClientCIDRs"`
}

type serverAddress struct {
	ClientCIDR    string `json:"clientCIDR"`
	ServerAddress string `json:"serverAddress"`
}

type groupVersion struct {
	GroupVersion string `json:"groupVersion"`
	Version      string `json:"version"`
}

type apiGroup struct {
	Kind             string         `json:"kind,omitempty"`
	APIVersion       string         `json:"apiVersion,omitempty"`
	Name             string         `json:"name"`
	Versions         []groupVersion `json:"versions"`
	PreferredVersion groupVersion   `json:"preferredVersion"`
}

type apiGroupList struct {
	Kind       string     `json:"kind"`
	APIVersion string     `json:"apiVersion"`
	Groups     []apiGroup `json:"groups"`
}

type apiResource struct {
	Name         string   `json:"name"`
	SingularName string   `json:"singularName"`
	Namespaced   bool     `json:"namespaced"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
}

type apiResourceList struct {
	Kind         string        `json:"kind"`
	APIVersion   string        `json:"apiVersion,omitempty"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

// versionInfo is what /version answers (k8s.io/apimachinery's version.Info).
type versionInfo struct {
	Major        string `json:"major"`
	Minor        string `json:"minor"`
	GitVersion   string `json:"gitVersion"`
	GitCommit    string `json:"gitCommit"`
	GitTreeState string `json:"gitTreeState"`
	BuildDate    string `json:"buildDate"`
	GoVersion    string `json:"goVersion"`
	Compiler     string `json:"compiler"`
	Platform     string `json:"platform"`
}

// The Kubernetes version the example server says it is: the release whose
// API behaviour apisem follows, so kubectl sees no version skew.
const (
	kubeMajor      = "1"
	kubeMinor      = "37"
	kubeGitVersion = "v1.37.0+apisem"
)

// discovery holds the encoded documents; they never change, so they are
// built once in New.
type discovery struct {
	groups    []byte            // /apis
	group     map[string][]byte // /apis/<group>
	resources map[string][]byte // /api/v1 and /apis/<group>/<version>, by group version
	version   []byte            // /version
	// openAPI builds /openapi/v3 and the documents it lists (keyed "api/v1"
	// or "apis/<group>/<version>") on first use: only kubectl create and
	// apply ask, and building them would double the server's start-up.
	openAPI func() (*openAPIDocs, error)
}

// openAPIDocs are the encoded OpenAPI v3 documents.
type openAPIDocs struct {
	root []byte
	docs map[string][]byte
}

func buildDiscovery(resources []*Resource) (*discovery, error) {
	d := &discovery{group: map[string][]byte{}, resources: map[string][]byte{}}
	byGV := map[string]*apiResourceList{}
	var order []string
	var groups []apiGroup
	for _, r := range resources {
		gv := r.GroupVersion()
		l, ok := byGV[gv]
		if !ok {
			l = &apiResourceList{Kind: "APIResourceList", GroupVersion: gv, Resources: []apiResource{}}
			if r.Group != "" {
				// Kubernetes strips apiVersion only for the core group.
				l.APIVersion = "v1"
				gvs := groupVersion{GroupVersion: gv, Version: r.Version}
				groups = append(groups, apiGroup{Name: r.Group, Versions: []groupVersion{gvs}, PreferredVersion: gvs})
			}
			byGV[gv] = l
			order = append(order, gv)
		}
		l.Resources = append(l.Resources, apiResource{
			Name: r.Plural, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: slices.Clone(Verbs), ShortNames: r.ShortNames, Categories: r.Categories,
		})
	}
	var err error
	for _, gv := range order {
		if d.resources[gv], err = json.Marshal(byGV[gv]); err != nil {
			return nil, err
		}
	}
	for _, g := range groups {
		g.Kind, g.APIVersion = "APIGroup", "v1"
		if d.group[g.Name], err = json.Marshal(g); err != nil {
			return nil, err
		}
	}
	if groups == nil {
		groups = []apiGroup{}
	}
	if d.groups, err = json.Marshal(apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: groups}); err != nil {
		return nil, err
	}
	d.openAPI = sync.OnceValues(func() (*openAPIDocs, error) {
		root, docs, err := buildOpenAPI(resources)
		return &openAPIDocs{root, docs}, err
	})
	d.version, err = json.Marshal(versionInfo{
		Major: kubeMajor, Minor: kubeMinor, GitVersion: kubeGitVersion,
		GitTreeState: "clean", BuildDate: "1970-01-01T00:00:00Z",
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH,
	})
	return d, err
}

// apiVersionsFor is /api, whose serverAddressByClientCIDRs names the address
// the client reached.
func apiVersionsFor(host string) ([]byte, error) {
	return json.Marshal(apiVersions{
		Kind:                       "APIVersions",
		Versions:                   []string{"v1"},
		ServerAddressByClientCIDRs: []serverAddress{{ClientCIDR: "0.0.0.0/0", ServerAddress: host}},
	})
}
