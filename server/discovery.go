package server

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/version"
	"sigs.k8s.io/yaml"
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
	Group        string   `json:"group,omitempty"`
	Version      string   `json:"version,omitempty"`
	Kind         string   `json:"kind"`
	Verbs        []string `json:"verbs"`
	ShortNames   []string `json:"shortNames,omitempty"`
	Categories   []string `json:"categories,omitempty"`
	// StorageVersionHash is given for resources, not subresources; a
	// document read back (discoveryProtobuf) keeps it.
	StorageVersionHash string `json:"storageVersionHash,omitempty"`
}

// StorageVersionHash is the storageVersionHash discovery gives a
// resource whose objects are stored as group/version/kind, computed as
// kube-apiserver computes it (k8s.io/apiserver/pkg/endpoints/discovery,
// StorageVersionHash): the standard base64 of the first 8 bytes of the
// SHA-256 of "<group>/<version>/<kind>". Clients only compare hashes.
func StorageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

type apiResourceList struct {
	Kind         string        `json:"kind"`
	APIVersion   string        `json:"apiVersion,omitempty"`
	GroupVersion string        `json:"groupVersion"`
	Resources    []apiResource `json:"resources"`
}

// versionInfo is what /version answers (k8s.io/apimachinery's version.Info).
type versionInfo struct {
	Major                 string `json:"major"`
	Minor                 string `json:"minor"`
	EmulationMajor        string `json:"emulationMajor,omitempty"`
	EmulationMinor        string `json:"emulationMinor,omitempty"`
	MinCompatibilityMajor string `json:"minCompatibilityMajor,omitempty"`
	MinCompatibilityMinor string `json:"minCompatibilityMinor,omitempty"`
	GitVersion            string `json:"gitVersion"`
	GitCommit             string `json:"gitCommit"`
	GitTreeState          string `json:"gitTreeState"`
	BuildDate             string `json:"buildDate"`
	GoVersion             string `json:"goVersion"`
	Compiler              string `json:"compiler"`
	Platform              string `json:"platform"`
}

// versionWithDefaults is v with its zero fields set to the defaults
// version.Info documents.
func versionWithDefaults(v version.Info) version.Info {
	if v.Major == "" {
		v.Major = "1"
	}
	if v.Minor == "" {
		v.Minor = "37"
	}
	if v.EmulationMajor == "" {
		v.EmulationMajor = v.Major
	}
	if v.EmulationMinor == "" {
		v.EmulationMinor = v.Minor
	}
	if v.MinCompatibilityMajor == "" {
		v.MinCompatibilityMajor = v.EmulationMajor
	}
	if v.MinCompatibilityMinor == "" {
		v.MinCompatibilityMinor = v.EmulationMinor
		if n, err := strconv.Atoi(v.EmulationMinor); err == nil && n > 0 {
			v.MinCompatibilityMinor = strconv.Itoa(n - 1)
		}
	}
	if v.GitVersion == "" {
		v.GitVersion = "v" + v.Major + "." + v.Minor + ".0+apisem"
	}
	if v.GitTreeState == "" {
		v.GitTreeState = "clean"
	}
	if v.BuildDate == "" {
		v.BuildDate = "1970-01-01T00:00:00Z"
	}
	return v
}

// Aggregated discovery (apidiscovery.k8s.io/v2, k8s.io/api/apidiscovery/v2):
// /api and /apis list every group with its versions and resources in one
// document, which saves clients one request per group version. Key order
// and omission rules follow the Go types.

type discoveryList struct {
	Kind       string           `json:"kind"`
	APIVersion string           `json:"apiVersion"`
	Metadata   struct{}         `json:"metadata"`
	Items      []groupDiscovery `json:"items"`
}

type groupDiscovery struct {
	Metadata struct {
		Name string `json:"name,omitempty"`
	} `json:"metadata"`
	Versions []versionDiscovery `json:"versions,omitempty"`
}

type versionDiscovery struct {
	Version   string              `json:"version"`
	Resources []resourceDiscovery `json:"resources,omitempty"`
	// Freshness is "Current": the server's own groups are never stale.
	Freshness string `json:"freshness,omitempty"`
}

type resourceDiscovery struct {
	Resource         string            `json:"resource"`
	ResponseKind     *groupVersionKind `json:"responseKind,omitempty"`
	Scope            string            `json:"scope"`
	SingularResource string            `json:"singularResource"`
	// Verbs, ShortNames and Categories as in apiResource.
	Verbs      []string `json:"verbs"`
	ShortNames []string `json:"shortNames,omitempty"`
	Categories []string `json:"categories,omitempty"`
	// Subresources are the resource's subresources (status).
	Subresources []subresourceDiscovery `json:"subresources,omitempty"`
}

// subresourceDiscovery is apidiscovery/v2 APISubresourceDiscovery.
type subresourceDiscovery struct {
	Subresource  string            `json:"subresource"`
	ResponseKind *groupVersionKind `json:"responseKind,omitempty"`
	Verbs        []string          `json:"verbs"`
}

// groupVersionKind is metav1.GroupVersionKind, a responseKind.
type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// ownKind is the responseKind of r and of its subresources that answer
// with its objects. kube-apiserver, and every server built on
// k8s.io/apiserver, leaves its group and version empty, which clients
// read as the resource's own (k8s.io/apiserver/pkg/endpoints,
// ConvertGroupVersionIntoToDiscovery copies an APIResource's group and
// version, set only for another group's kind); apiextensions-apiserver
// names them for a custom resource. Behind a cluster's aggregator, a
// server's aggregated discovery is passed on as it is (and one with
// only the unaggregated kind is converted so, group and version empty),
// as the reference's aggregator did with an APIService of each.
func ownKind(r *Resource) *groupVersionKind {
	if r.Custom {
		return &groupVersionKind{r.Group, r.Version, r.Kind}
	}
	return &groupVersionKind{Kind: r.Kind}
}

// subresourceKind is the responseKind of r's subresource whose objects
// are of group/version/kind, "" meaning r's: its group and version are
// left out, as ownKind leaves them, when they are a built-in resource's.
func subresourceKind(r *Resource, group, version, kind string) *groupVersionKind {
	if group == "" && version == "" || group == r.Group && version == r.Version {
		k := *ownKind(r)
		k.Kind = kind
		return &k
	}
	return &groupVersionKind{cmp.Or(group, r.Group), cmp.Or(version, r.Version), kind}
}

// customVerbs are a custom resource's verbs in the order
// apiextensions-apiserver lists them, which is not sorted.
var customVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// statusVerbs are the verbs of the status subresource, sorted as
// discovery lists them.
var statusVerbs = []string{"get", "patch", "update"}

// discovery holds the encoded documents; they never change, so they are
// built once in New.
type discovery struct {
	groups    []byte            // /apis
	group     map[string][]byte // /apis/<group>
	resources map[string][]byte // /api/v1 and /apis/<group>/<version>, by group version
	version   []byte            // /version
	// aggregated /api and /apis, with their ETags.
	aggCore, aggGroups     []byte
	aggCorePB, aggGroupsPB []byte // their protobuf forms
	// protobuf holds the protobuf forms of groups, group and resources,
	// by the document's path (/apis, /apis/<group>, /api/v1,
	// /apis/<group>/<version>).
	protobuf                   map[string][]byte
	aggCoreETag, aggGroupsETag string
	// openAPI builds the OpenAPI documents on first use: only kubectl
	// explain, create and apply ask, and building them would double the
	// server's start-up.
	openAPI func() (*openAPIDocs, error)
	// defs are the OpenAPI definitions, checked when the registry was
	// built, so that a bad schema fails New or AddResource.
	defs *definitions
	// builtin: the groups with a resource that is not Custom, whose
	// paths kube-apiserver's routers answer (custom resources' groups
	// are apiextensions-apiserver's, which leaves what it does not serve
	// to the plain-text 404).
	builtin map[string]bool
}

// buildDiscovery builds the documents of resources, whose OpenAPI
// definitions are defs (buildDefinitions').
func buildDiscovery(resources []*Resource, defs *definitions, ver version.Info) (*discovery, error) {
	ver = versionWithDefaults(ver)
	d := &discovery{group: map[string][]byte{}, resources: map[string][]byte{}, builtin: map[string]bool{}, defs: defs}
	byGV := map[string]*apiResourceList{}
	var order []string
	var groups []*apiGroup
	byGroup := map[string]*apiGroup{}
	agg := map[string]*groupDiscovery{} // by group name
	custom := map[string]bool{}         // group versions with a custom resource
	for _, r := range resources {
		if !r.Custom {
			d.builtin[r.Group] = true
		}
		gv := r.GroupVersion()
		custom[gv] = custom[gv] || r.Custom
		l, ok := byGV[gv]
		if !ok {
			l = &apiResourceList{Kind: "APIResourceList", GroupVersion: gv, Resources: []apiResource{}}
			gvs := groupVersion{GroupVersion: gv, Version: r.Version}
			if r.Group != "" {
				// Kubernetes strips apiVersion only for the core group.
				l.APIVersion = "v1"
				// Versions are sorted, and the preferred one chosen,
				// below.
				if g := byGroup[r.Group]; g != nil {
					g.Versions = append(g.Versions, gvs)
				} else {
					g = &apiGroup{Name: r.Group, Versions: []groupVersion{gvs}, PreferredVersion: gvs}
					byGroup[r.Group] = g
					groups = append(groups, g)
				}
			}
			byGV[gv] = l
			order = append(order, gv)
			g := agg[r.Group]
			if g == nil {
				g = &groupDiscovery{}
				g.Metadata.Name = r.Group
				agg[r.Group] = g
			}
			g.Versions = append(g.Versions, versionDiscovery{Version: r.Version, Freshness: "Current"})
		}
		verbs := r.verbs()
		if r.Custom && r.Verbs == nil {
			verbs = customVerbs
		}
		hash := r.StorageVersionHash
		if hash == "" && r.Create == nil { // one that stores nothing has none
			hash = StorageVersionHash(r.Group, r.Version, r.Kind)
		}
		l.Resources = append(l.Resources, apiResource{
			Name: r.Plural, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: slices.Clone(verbs), ShortNames: r.ShortNames, Categories: r.Categories,
			StorageVersionHash: hash,
		})
		own := ownKind(r)
		var subs []subresourceDiscovery
		for _, sub := range r.UpdateSubresources {
			l.Resources = append(l.Resources, apiResource{
				Name: r.Plural + "/" + sub, Namespaced: r.Namespaced, Kind: r.Kind, Verbs: []string{"update"},
			})
			subs = append(subs, subresourceDiscovery{Subresource: sub,
				ResponseKind: own, Verbs: []string{"update"}})
		}
		if r.StatusSubresource {
			l.Resources = append(l.Resources, apiResource{
				Name: r.Plural + "/status", Namespaced: r.Namespaced, Kind: r.Kind, Verbs: slices.Clone(statusVerbs),
			})
			subs = append(subs, subresourceDiscovery{Subresource: "status",
				ResponseKind: own, Verbs: slices.Clone(statusVerbs)})
		}
		for _, sub := range r.ObjectSubresources {
			l.Resources = append(l.Resources, apiResource{
				Name: r.Plural + "/" + sub, Namespaced: r.Namespaced, Kind: r.Kind, Verbs: slices.Clone(statusVerbs),
			})
			subs = append(subs, subresourceDiscovery{Subresource: sub,
				ResponseKind: own, Verbs: slices.Clone(statusVerbs)})
		}
		for _, sr := range r.Subresources {
			verbs := slices.Clone(sr.Verbs)
			slices.Sort(verbs)
			kind := apiResource{Name: r.Plural + "/" + sr.Name, Namespaced: r.Namespaced, Group: sr.Group, Version: sr.Version,
				Kind: cmp.Or(sr.Kind, r.Kind), Verbs: verbs}
			l.Resources = append(l.Resources, kind)
			subs = append(subs, subresourceDiscovery{Subresource: sr.Name,
				ResponseKind: subresourceKind(r, sr.Group, sr.Version, kind.Kind), Verbs: slices.Clone(verbs)})
		}
		if r.Scale != nil {
			// The Scale kind is autoscaling/v1's, which discovery says.
			l.Resources = append(l.Resources, apiResource{
				Name: r.Plural + "/scale", Namespaced: r.Namespaced, Group: "autoscaling", Version: "v1",
				Kind: "Scale", Verbs: slices.Clone(scaleVerbs),
			})
			subs = append(subs, subresourceDiscovery{Subresource: "scale",
				ResponseKind: &groupVersionKind{"autoscaling", "v1", "Scale"}, Verbs: slices.Clone(scaleVerbs)})
		}
		if !r.Custom {
			// kube-apiserver lists subresources by name
			// (deployments/scale before deployments/status);
			// apiextensions-apiserver lists status, then scale.
			slices.SortFunc(l.Resources[len(l.Resources)-len(subs):], func(a, b apiResource) int { return strings.Compare(a.Name, b.Name) })
			slices.SortFunc(subs, func(a, b subresourceDiscovery) int { return strings.Compare(a.Subresource, b.Subresource) })
		}
		scope := "Cluster"
		if r.Namespaced {
			scope = "Namespaced"
		}
		g := agg[r.Group]
		v := &g.Versions[slices.IndexFunc(g.Versions, func(v versionDiscovery) bool { return v.Version == r.Version })]
		v.Resources = append(v.Resources, resourceDiscovery{
			Resource: r.Plural, ResponseKind: own, Scope: scope,
			SingularResource: r.Singular, Verbs: slices.Clone(verbs), ShortNames: r.ShortNames, Categories: r.Categories,
			Subresources: subs,
		})
	}
	// A cluster lists a group's versions by Kubernetes' version priority
	// and prefers the first: the custom resource discovery controller
	// sorts them so (k8s.io/apiextensions-apiserver), and aggregated
	// discovery orders versions of equal priority so.
	for _, g := range groups {
		slices.SortStableFunc(g.Versions, func(a, b groupVersion) int { return version.Compare(b.Version, a.Version) })
		g.PreferredVersion = g.Versions[0]
	}
	for _, g := range agg {
		slices.SortStableFunc(g.Versions, func(a, b versionDiscovery) int { return version.Compare(b.Version, a.Version) })
	}
	// kube-apiserver lists its resources by name, subresources after
	// theirs (the paths it installs are sorted); apiextensions-apiserver
	// lists custom resources as it reads them, which is left as given.
	for gv, l := range byGV {
		if custom[gv] {
			continue
		}
		slices.SortStableFunc(l.Resources, func(a, b apiResource) int { return strings.Compare(a.Name, b.Name) })
		group, version, found := strings.Cut(gv, "/")
		if !found {
			group, version = "", gv
		}
		g := agg[group]
		v := &g.Versions[slices.IndexFunc(g.Versions, func(v versionDiscovery) bool { return v.Version == version })]
		slices.SortStableFunc(v.Resources, func(a, b resourceDiscovery) int { return strings.Compare(a.Resource, b.Resource) })
	}
	var err error
	for _, gv := range order {
		if d.resources[gv], err = json.Marshal(byGV[gv]); err != nil {
			return nil, err
		}
	}
	list := make([]apiGroup, 0, len(groups))
	for _, g := range groups {
		list = append(list, *g)
		c := *g
		c.Kind, c.APIVersion = "APIGroup", "v1"
		if d.group[g.Name], err = json.Marshal(c); err != nil {
			return nil, err
		}
	}
	if d.groups, err = json.Marshal(apiGroupList{Kind: "APIGroupList", APIVersion: "v1", Groups: list}); err != nil {
		return nil, err
	}
	d.protobuf = map[string][]byte{}
	docs := map[string][]byte{"/apis": d.groups}
	for g, doc := range d.group {
		docs["/apis/"+g] = doc
	}
	for gv, doc := range d.resources {
		if gv == "v1" {
			docs["/api/v1"] = doc
		} else {
			docs["/apis/"+gv] = doc
		}
	}
	for path, doc := range docs {
		if d.protobuf[path], err = discoveryProtobuf(doc); err != nil {
			return nil, err
		}
	}
	core := []groupDiscovery{}
	if g := agg[""]; g != nil {
		core = append(core, *g)
	}
	named := []groupDiscovery{}
	for _, g := range groups {
		named = append(named, *agg[g.Name])
	}
	if d.aggCore, d.aggCoreETag, err = encodeDiscoveryList(core); err != nil {
		return nil, err
	}
	if d.aggGroups, d.aggGroupsETag, err = encodeDiscoveryList(named); err != nil {
		return nil, err
	}
	if d.aggCorePB, err = aggregatedProtobuf(d.aggCore); err != nil {
		return nil, err
	}
	if d.aggGroupsPB, err = aggregatedProtobuf(d.aggGroups); err != nil {
		return nil, err
	}
	d.openAPI = sync.OnceValues(func() (*openAPIDocs, error) {
		return newOpenAPIDocs(buildOpenAPI(resources, defs, ver.GitVersion))
	})
	// Indented, without a final newline: kube-apiserver's /version route
	// writes it so (go-restful's WriteAsJson), whatever ?pretty says.
	d.version, err = json.MarshalIndent(versionInfo{
		Major: ver.Major, Minor: ver.Minor, EmulationMajor: ver.EmulationMajor, EmulationMinor: ver.EmulationMinor,
		MinCompatibilityMajor: ver.MinCompatibilityMajor, MinCompatibilityMinor: ver.MinCompatibilityMinor,
		GitVersion: ver.GitVersion, GitCommit: ver.GitCommit,
		GitTreeState: ver.GitTreeState, BuildDate: ver.BuildDate,
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}, "", "  ")
	return d, err
}

// encodeDiscoveryList encodes an APIGroupDiscoveryList and its ETag: the
// SHA-512 of the document in upper-case hex, quoted, as kube-apiserver's.
func encodeDiscoveryList(items []groupDiscovery) (doc []byte, etag string, err error) {
	doc, err = json.Marshal(discoveryList{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2", Items: items})
	if err != nil {
		return nil, "", err
	}
	sum := sha512.Sum512(doc)
	return doc, `"` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"`, nil
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

// Media types of discovery documents.
const (
	contentTypeJSON = "application/json"
	// contentTypeAggregated is the Content-Type of aggregated discovery,
	// by which client-go tells it from the unaggregated form.
	contentTypeAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	// contentTypeAggregatedProtobuf is its protobuf form's.
	contentTypeAggregatedProtobuf = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
)

// wantsAggregated reports whether the Accept header prefers aggregated
// discovery, and in protobuf: its most preferred entry the server can
// serve (by quality, then header order) is JSON or protobuf converted to
// apidiscovery.k8s.io/v2 APIGroupDiscoveryList. Entries asking for another
// conversion (v2beta1, which Kubernetes no longer serves, or a Table) are
// skipped, as kube-apiserver skips what it cannot serve; other
// parameters, such as client-go's profile=nopeer, are ignored.
func wantsAggregated(accept string) (aggregated, proto bool) {
	ranges, _ := negotiation.ParseAccept(accept)
	slices.SortStableFunc(ranges, func(a, b negotiation.MediaRange) int { return b.Quality - a.Quality })
	for _, m := range ranges {
		if m.Quality == 0 {
			break
		}
		json := m.Type == "*" || strings.EqualFold(m.Type, "application") && (m.Subtype == "*" || strings.EqualFold(m.Subtype, "json"))
		proto := strings.EqualFold(m.Type, "application") && strings.EqualFold(m.Subtype, "vnd.kubernetes.protobuf")
		g, hasG := m.Param("g")
		v, _ := m.Param("v")
		as, hasAs := m.Param("as")
		if !hasG && !hasAs {
			if json || proto || strings.EqualFold(m.Type, "application") && strings.EqualFold(m.Subtype, "yaml") {
				return false, false
			}
			continue
		}
		if (json || proto) && g == "apidiscovery.k8s.io" && v == "v2" && as == "APIGroupDiscoveryList" {
			return true, proto
		}
	}
	return false, false
}

// serveDiscovery serves the paths that are not resources: /version,
// health, OpenAPI, and the discovery documents of /api and /apis.
func (s *Server) serveDiscovery(w http.ResponseWriter, r *http.Request, segs []string) {
	d := s.reg.Load().disco
	switch {
	case r.Method == http.MethodHead && (len(segs) == 1 && (segs[0] == "version" || segs[0] == "api") ||
		len(segs) == 2 && segs[0] == "api" && segs[1] == "v1" || len(segs) == 3 && segs[0] == "apis" && d.builtin[segs[1]]):
		// kube-apiserver's router (go-restful) serves these, and no HEAD.
		s.writeError(w, r, nil, errMethodNotAllowed())
	case len(segs) == 1 && segs[0] == "version":
		// Its route produces JSON alone, and its router compares the
		// Accept header's types exactly, as routerAccepts does: YAML,
		// protobuf and application/* are the 406 (in the error's
		// negotiated form).
		if a := r.Header.Get("Accept"); a != "" && !mediaListHas(a, "*/*", "application/json") && r.Method == http.MethodGet {
			s.writeError(w, r, nil, routerError(http.StatusNotAcceptable, status.ReasonNotAcceptable, "406: Not Acceptable\n\nAvailable representations: application/json"))
			return
		}
		s.discoveryDoc(w, r, d.version, contentTypeJSON, "")
	case segs[0] == "openapi" && len(segs) >= 2 && (segs[1] == "v2" || segs[1] == "v3"):
		s.serveOpenAPI(w, r, d, segs)
	case len(segs) == 1 && (segs[0] == "api" || segs[0] == "apis"):
		if agg, proto := wantsAggregated(r.Header.Get("Accept")); agg {
			// One ETag for both forms, as kube-apiserver's.
			doc, pb, etag := d.aggGroups, d.aggGroupsPB, d.aggGroupsETag
			if segs[0] == "api" {
				doc, pb, etag = d.aggCore, d.aggCorePB, d.aggCoreETag
			}
			if proto {
				s.discoveryDoc(w, r, pb, contentTypeAggregatedProtobuf, etag)
			} else {
				s.discoveryDoc(w, r, doc, contentTypeAggregated, etag)
			}
			return
		}
		b := d.groups
		if segs[0] == "api" {
			var err error
			if b, err = apiVersionsFor(r.Host); err != nil {
				s.writeError(w, r, nil, err)
				return
			}
		}
		s.discoveryForm(w, r, b, d.protobuf[r.URL.Path], segs[0] == "api")
	case len(segs) == 2 && segs[0] == "api" && segs[1] == "v1" && d.resources["v1"] != nil:
		s.discoveryForm(w, r, d.resources["v1"], d.protobuf["/api/v1"], true)
	case len(segs) == 2 && segs[0] == "apis" && d.group[segs[1]] != nil:
		s.discoveryForm(w, r, d.group[segs[1]], d.protobuf["/apis/"+segs[1]], false)
	case len(segs) == 3 && segs[0] == "apis" && d.resources[segs[1]+"/"+segs[2]] != nil:
		s.discoveryForm(w, r, d.resources[segs[1]+"/"+segs[2]], d.protobuf["/apis/"+segs[1]+"/"+segs[2]], d.builtin[segs[1]])
	default:
		s.notFound(w, r, segs)
	}
}

// notFound answers a path nothing serves as kube-apiserver does: with a
// Status under /api, /version and the groups of built-in resources, where
// its API routers answer, and elsewhere (unknown groups and those of
// custom resources included) with the plain text of its last-resort
// handler, Go's http.NotFound.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request, segs []string) {
	if len(segs) > 0 && (segs[0] == "api" || segs[0] == "version" ||
		segs[0] == "apis" && len(segs) > 1 && s.reg.Load().disco.builtin[segs[1]]) {
		s.writeError(w, r, nil, errNotFound())
		return
	}
	http.NotFound(w, r)
}

// serveRoot answers / (and /index.html), whatever the method, with the
// paths the server serves, sorted and indented as kube-apiserver lists
// them: the API's discovery documents, each health endpoint and check,
// the OpenAPI documents and /version.
func (s *Server) serveRoot(w http.ResponseWriter) {
	d := s.reg.Load().disco
	paths := []string{"/api", "/apis", "/apis/", "/openapi/v2", "/openapi/v3", "/openapi/v3/", "/version"}
	for gv := range d.resources {
		if gv == "v1" {
			paths = append(paths, "/api/v1")
		} else {
			paths = append(paths, "/apis/"+gv)
		}
	}
	for g := range d.group {
		paths = append(paths, "/apis/"+g)
	}
	for ep, checks := range s.health {
		paths = append(paths, "/"+ep)
		for _, c := range checks {
			paths = append(paths, "/"+ep+"/"+c.name)
		}
	}
	slices.Sort(paths)
	b, err := json.MarshalIndent(struct {
		Paths []string `json:"paths"`
	}{paths}, "", "  ")
	if err != nil {
		panic(err) // strings always marshal
	}
	w.Header().Set("Content-Type", contentTypeJSON)
	w.Write(b)
}

// discoveryEndpoint is what an unaggregated discovery document is served
// as: JSON, YAML or protobuf, no conversions.
var discoveryEndpoint = negotiation.Endpoint{NoTable: true, NoPartialMetadata: true}

// discoveryForm serves an unaggregated discovery document (JSON) in the
// form the request negotiates, as kube-apiserver does: YAML or protobuf
// when asked, indented JSON by the pretty rules. routed is set for the documents
// kube-apiserver's router (go-restful) serves, /api, /api/v1 and a
// built-in group's versions, whose Accept check comes first and is
// exact (routerAccepts); the others (/apis, a group, a custom resource
// group's versions) answer the negotiation's 406 alone.
func (s *Server) discoveryForm(w http.ResponseWriter, r *http.Request, doc, pb []byte, routed bool) {
	if r.Method == http.MethodGet && routed {
		if a := r.Header.Get("Accept"); a != "" && !mediaListHas(a, "*/*", "application/json", "application/yaml", "application/vnd.kubernetes.protobuf") {
			s.writeError(w, r, nil, routerError(http.StatusNotAcceptable, status.ReasonNotAcceptable, "406: Not Acceptable\n\nAvailable representations: "+routeProduces))
			return
		}
	}
	if r.Method != http.MethodGet {
		s.discoveryDoc(w, r, doc, contentTypeJSON, "")
		return
	}
	res, err := discoveryEndpoint.Negotiate(r)
	if err != nil {
		s.writeError(w, r, nil, err)
		return
	}
	switch {
	case res.MediaType == negotiation.YAML:
		y, err := yaml.JSONToYAML(doc)
		if err != nil {
			s.writeError(w, r, nil, err)
			return
		}
		s.discoveryDoc(w, r, y, negotiation.ContentTypeYAML, "")
	case res.MediaType == negotiation.Protobuf:
		if pb == nil { // /api, made per request
			if pb, err = discoveryProtobuf(doc); err != nil {
				s.writeError(w, r, nil, err)
				return
			}
		}
		s.discoveryDoc(w, r, pb, negotiation.ContentTypeProtobuf, "")
	case res.MediaType == negotiation.JSON && res.Pretty:
		var b bytes.Buffer
		if err := json.Indent(&b, doc, "", "  "); err != nil {
			s.writeError(w, r, nil, err)
			return
		}
		s.discoveryDoc(w, r, b.Bytes(), contentTypeJSON, "")
	default:
		// Compact JSON ends with a newline, as every object kube-apiserver
		// encodes (indented JSON does not).
		s.writeDoc(w, r, doc, true, contentTypeJSON, "")
	}
}

// discoveryDoc answers a GET with a document. An etag makes the response
// cacheable as kube-apiserver's aggregated discovery is: ETag, Vary:
// Accept (the same URL has two forms) and Cache-Control: public, and 304
// Not Modified to an If-None-Match that names the current ETag.
func (s *Server) discoveryDoc(w http.ResponseWriter, r *http.Request, doc []byte, contentType, etag string) {
	s.writeDoc(w, r, doc, false, contentType, etag)
}

// newlineBytes is what writeDoc adds to a document that ends in a newline.
var newlineBytes = []byte{'\n'}

// writeDoc is discoveryDoc, with a newline after doc if nl is set.
func (s *Server) writeDoc(w http.ResponseWriter, r *http.Request, doc []byte, nl bool, contentType, etag string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		s.writeError(w, r, nil, errMethodNotAllowed())
		return
	}
	h := w.Header()
	if etag != "" {
		h.Set("Etag", etag)
		h.Set("Vary", "Accept")
		h.Set("Cache-Control", "public")
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	n := len(doc)
	if nl {
		n++
	}
	h.Set("Content-Type", contentType)
	h.Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(doc)
		if nl {
			w.Write(newlineBytes)
		}
	}
}
