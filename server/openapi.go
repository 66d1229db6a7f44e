package server

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/patch"
)

// OpenAPI: the server publishes what it serves, as kube-apiserver does,
// in two forms built from the same description.
//
//   - /openapi/v3 lists one document per group version ("api/v1",
//     "apis/<group>/<version>") with a hash query parameter that changes
//     with the content; each document has the group version's paths and
//     the schemas (components.schemas) its kinds use. kubectl explain reads
//     these, kubectl create and apply look up the fieldValidation parameter
//     of a kind's PATCH operation here (found, they leave validation to the
//     server), and kubectl apply computes strategic merge patches from the
//     schemas of kinds whose PATCH accepts them.
//   - /openapi/v2 is one Swagger 2.0 document of everything, which older
//     clients and kubectl's fallbacks (client-side validation, explain
//     --output plaintext-openapiv2) read.
//
// Every definition carries x-kubernetes-group-version-kind for the kinds
// it is the schema of, which is how clients find a kind's schema.

type openAPIRoot struct {
	Paths map[string]openAPIRef `json:"paths"`
}

type openAPIRef struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

type openAPIInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

// openAPIv3Doc is one group version's OpenAPI 3 document.
type openAPIv3Doc struct {
	OpenAPI    string                  `json:"openapi"`
	Info       openAPIInfo             `json:"info"`
	Paths      map[string]*openAPIPath `json:"paths"`
	Components openAPIComponents       `json:"components"`
}

type openAPIComponents struct {
	Schemas map[string]*schemaJSON `json:"schemas"`
}

// openAPIv2Doc is the Swagger 2.0 document.
type openAPIv2Doc struct {
	Swagger     string                  `json:"swagger"`
	Info        openAPIInfo             `json:"info"`
	Paths       map[string]*openAPIPath `json:"paths"`
	Definitions map[string]*schemaJSON  `json:"definitions"`
}

type openAPIPath struct {
	Get        *openAPIOp     `json:"get,omitempty"`
	Put        *openAPIOp     `json:"put,omitempty"`
	Post       *openAPIOp     `json:"post,omitempty"`
	Delete     *openAPIOp     `json:"delete,omitempty"`
	Patch      *openAPIOp     `json:"patch,omitempty"`
	Parameters []openAPIParam `json:"parameters,omitempty"`
}

type openAPIOp struct {
	Tags        []string                    `json:"tags"`
	Description string                      `json:"description"`
	Consumes    []string                    `json:"consumes,omitempty"` // v2
	Produces    []string                    `json:"produces,omitempty"` // v2
	Schemes     []string                    `json:"schemes,omitempty"`  // v2
	OperationID string                      `json:"operationId"`
	Parameters  []openAPIParam              `json:"parameters,omitempty"`
	RequestBody *openAPIBody                `json:"requestBody,omitempty"` // v3
	Responses   map[string]*openAPIResponse `json:"responses"`
	Action      string                      `json:"x-kubernetes-action"`
	GVK         gvkExt                      `json:"x-kubernetes-group-version-kind"`
}

type openAPIParam struct {
	Name        string      `json:"name"`
	In          string      `json:"in"`
	Description string      `json:"description,omitempty"`
	Required    bool        `json:"required,omitempty"`
	Type        string      `json:"type,omitempty"`   // v2, except body
	Schema      *schemaJSON `json:"schema,omitempty"` // v3; v2 body
	UniqueItems bool        `json:"uniqueItems,omitempty"`
}

type openAPIBody struct {
	Content  map[string]openAPIMedia `json:"content"`
	Required bool                    `json:"required"`
}

type openAPIMedia struct {
	Schema *schemaJSON `json:"schema"`
}

type openAPIResponse struct {
	Description string                  `json:"description"`
	Content     map[string]openAPIMedia `json:"content,omitempty"` // v3
	Schema      *schemaJSON             `json:"schema,omitempty"`  // v2
}

// queryParams documents the query parameters of each kind of operation.
var queryParams = map[string]struct{ typ, desc string }{
	"allowWatchBookmarks":  {"boolean", "Asks for BOOKMARK events on a watch."},
	"continue":             {"string", "The continue token of the previous page of a list."},
	"dryRun":               {"string", "\"All\" processes the request without persisting it."},
	"fieldManager":         {"string", "The name of the actor making the change, for managedFields."},
	"fieldSelector":        {"string", "Restricts the result to objects whose fields match."},
	"fieldValidation":      {"string", "What to do with unknown or duplicate fields in the body: Ignore, Warn or Strict."},
	"force":                {"boolean", "Takes ownership of conflicting fields in an apply patch."},
	"gracePeriodSeconds":   {"integer", "Seconds before the object is deleted."},
	"labelSelector":        {"string", "Restricts the result to objects whose labels match."},
	"limit":                {"integer", "The maximum number of objects in one page of a list."},
	"orphanDependents":     {"boolean", "Deprecated: use propagationPolicy."},
	"pretty":               {"string", "Indents the JSON output when true."},
	"propagationPolicy":    {"string", "How dependents are garbage collected: Orphan, Background or Foreground."},
	"resourceVersion":      {"string", "Which version of the data a read may return; see the API concepts."},
	"resourceVersionMatch": {"string", "How resourceVersion applies to a list: Exact or NotOlderThan."},
	"sendInitialEvents":    {"boolean", "Starts a watch with the current objects, ended by a bookmark."},
	"timeoutSeconds":       {"integer", "Ends a list or watch after this many seconds."},
	"watch":                {"boolean", "Watches for changes instead of listing."},
}

var (
	listParams   = []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}
	writeParams  = []string{"dryRun", "fieldManager", "fieldValidation"}
	deleteParams = []string{"dryRun", "gracePeriodSeconds", "orphanDependents", "propagationPolicy"}
)

func params(v3 bool, names ...string) []openAPIParam {
	ps := make([]openAPIParam, len(names))
	for i, n := range names {
		q := queryParams[n]
		ps[i] = openAPIParam{Name: n, In: "query", Description: q.desc}
		if v3 {
			// OpenAPI 3 has uniqueItems in the schema only.
			ps[i].Schema = &schemaJSON{Type: q.typ, UniqueItems: true}
		} else {
			ps[i].Type, ps[i].UniqueItems = q.typ, true
		}
	}
	return ps
}

func pathParam(v3 bool, name, desc string) openAPIParam {
	p := openAPIParam{Name: name, In: "path", Description: desc, Required: true}
	if v3 {
		p.Schema = &schemaJSON{Type: "string", UniqueItems: true}
	} else {
		p.Type, p.UniqueItems = "string", true
	}
	return p
}

// camel joins the words of s (split at dots and dashes) capitalized:
// "example.apisem.dev" is "ExampleApisemDev".
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == '-' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// docPath is the key of r's group version in /openapi/v3.
func docPath(r *Resource) string {
	if r.Group == "" {
		return "api/" + r.Version
	}
	return "apis/" + r.Group + "/" + r.Version
}

// addPaths adds r's operations to paths, in the form of OpenAPI 3 or
// Swagger 2.0.
func addPaths(paths map[string]*openAPIPath, r *Resource, v3 bool) {
	group := "Core"
	if r.Group != "" {
		group = camel(r.Group)
	}
	first := []rune(group)
	tag := string(unicode.ToLower(first[0])) + string(first[1:]) + "_" + r.Version
	scope := ""
	if r.Namespaced {
		scope = "Namespaced"
	}
	id := group + camel(r.Version) + scope + r.Kind
	gvk := gvkExt{r.Group, r.Kind, r.Version}
	obj := &openapi.Schema{Ref: r.schemaName()}
	list := &openapi.Schema{Ref: r.listSchemaName()}
	status := &openapi.Schema{Ref: openapi.StatusSchema}
	produces := []string{"application/json", "application/yaml"}
	if r.Protobuf() {
		produces = append(produces, "application/vnd.kubernetes.protobuf")
	}
	patchTypes := []string{applyPatchType, patch.JSONPatchType, patch.MergePatchType}
	if r.PatchSchema != nil {
		patchTypes = append(patchTypes, patch.StrategicMergePatchType)
	}
	responsesIn := func(produces []string, body *openapi.Schema, codes ...string) map[string]*openAPIResponse {
		m := map[string]*openAPIResponse{"401": {Description: "Unauthorized"}}
		for _, c := range codes {
			desc := map[string]string{"200": "OK", "201": "Created", "202": "Accepted"}[c]
			resp := &openAPIResponse{Description: desc}
			if v3 {
				resp.Content = map[string]openAPIMedia{}
				for _, mt := range produces {
					resp.Content[mt] = openAPIMedia{encodeSchema(body, true)}
				}
			} else {
				resp.Schema = encodeSchema(body, false)
			}
			m[c] = resp
		}
		return m
	}
	responses := func(body *openapi.Schema, codes ...string) map[string]*openAPIResponse {
		return responsesIn(produces, body, codes...)
	}
	op := func(verb, action, desc string, consumes []string, body *openapi.Schema, ps []openAPIParam, resp map[string]*openAPIResponse) *openAPIOp {
		o := &openAPIOp{
			Tags: []string{tag}, Description: desc, OperationID: verb + id,
			Parameters: ps, Responses: resp, Action: action, GVK: gvk,
		}
		if !v3 {
			o.Consumes, o.Produces, o.Schemes = []string{"*/*"}, produces, []string{"https"}
		}
		if body != nil {
			if v3 {
				o.RequestBody = &openAPIBody{Content: map[string]openAPIMedia{}, Required: true}
				for _, mt := range consumes {
					o.RequestBody.Content[mt] = openAPIMedia{encodeSchema(body, true)}
				}
			} else {
				o.Consumes = consumes
				o.Parameters = append([]openAPIParam{{Name: "body", In: "body", Required: true, Schema: encodeSchema(body, false)}}, o.Parameters...)
			}
		}
		return o
	}
	base := "/" + docPath(r)
	collection := base + "/" + r.Plural
	common := []openAPIParam{}
	if r.Namespaced {
		collection = base + "/namespaces/{namespace}/" + r.Plural
		common = append(common, pathParam(v3, "namespace", "The object name and auth scope, such as for teams and projects."))
	}
	common = append(common, params(v3, "pretty")...)
	paths[collection] = &openAPIPath{
		Get: op("list", "list", "list or watch objects of kind "+r.Kind, nil, nil,
			params(v3, listParams...), responses(list, "200")),
		Post: op("create", "post", "create a "+r.Kind, []string{"*/*"}, obj,
			params(v3, writeParams...), responses(obj, "200", "201", "202")),
		Delete: op("deleteCollection", "deletecollection", "delete collection of "+r.Kind, []string{"*/*"}, &openapi.Schema{Ref: openapi.DeleteOptionsSchema},
			params(v3, append(slices.Clone(listParams), deleteParams...)...), responses(status, "200")),
		Parameters: common,
	}
	// A custom resource (no strategic merge patch) is documented as
	// kube-apiserver documents a CustomResourceDefinition's: its patches
	// answer 200 alone and its reads take a resourceVersion; a built-in
	// type's patches may answer 201 too.
	patchCodes, readParams := []string{"200", "201"}, []openAPIParam(nil)
	if r.PatchSchema == nil {
		patchCodes, readParams = []string{"200"}, params(v3, "resourceVersion")
	}
	named := append([]openAPIParam{pathParam(v3, "name", "name of the "+r.Kind)}, common...)
	paths[collection+"/{name}"] = &openAPIPath{
		Get: op("read", "get", "read the specified "+r.Kind, nil, nil, readParams, responses(obj, "200")),
		Put: op("replace", "put", "replace the specified "+r.Kind, []string{"*/*"}, obj,
			params(v3, writeParams...), responses(obj, "200", "201")),
		Patch: op("patch", "patch", "partially update the specified "+r.Kind, patchTypes, &openapi.Schema{Ref: openapi.PatchSchema},
			params(v3, append(slices.Clone(writeParams), "force")...), responses(obj, patchCodes...)),
		Delete: op("delete", "delete", "delete a "+r.Kind, []string{"*/*"}, &openapi.Schema{Ref: openapi.DeleteOptionsSchema},
			params(v3, deleteParams...), responses(status, "200", "202")),
		Parameters: named,
	}
	if r.StatusSubresource {
		p := &openAPIPath{
			Get: op("read", "get", "read status of the specified "+r.Kind, nil, nil, readParams, responses(obj, "200")),
			Put: op("replace", "put", "replace status of the specified "+r.Kind, []string{"*/*"}, obj,
				params(v3, writeParams...), responses(obj, "200", "201")),
			Patch: op("patch", "patch", "partially update status of the specified "+r.Kind, patchTypes, &openapi.Schema{Ref: openapi.PatchSchema},
				params(v3, append(slices.Clone(writeParams), "force")...), responses(obj, patchCodes...)),
			Parameters: named,
		}
		for _, o := range []*openAPIOp{p.Get, p.Put, p.Patch} {
			o.OperationID += "Status"
		}
		paths[collection+"/{name}/status"] = p
	}
	if r.Scale != nil {
		// The Scale is JSON and YAML only. A custom resource's scale
		// operations name the resource's kind, as kube-apiserver's
		// CustomResourceDefinition documents do, and its patches answer
		// 200 alone; a built-in type's name autoscaling/v1 Scale.
		scale := &openapi.Schema{Ref: scaleSchemaName}
		gvkOf := scaleGVK
		if r.PatchSchema == nil {
			gvkOf = gvk
		}
		scaleTypes := []string{"application/json", "application/yaml"}
		scaleResp := func(codes ...string) map[string]*openAPIResponse {
			return responsesIn(scaleTypes, scale, codes...)
		}
		p := &openAPIPath{
			Get: op("read", "get", "read scale of the specified "+r.Kind, nil, nil, nil, scaleResp("200")),
			Put: op("replace", "put", "replace scale of the specified "+r.Kind, []string{"*/*"}, scale,
				params(v3, writeParams...), scaleResp("200", "201")),
			Patch: op("patch", "patch", "partially update scale of the specified "+r.Kind, patchTypes, &openapi.Schema{Ref: openapi.PatchSchema},
				params(v3, append(slices.Clone(writeParams), "force")...), scaleResp(patchCodes...)),
			Parameters: named,
		}
		for _, o := range []*openAPIOp{p.Get, p.Put, p.Patch} {
			o.OperationID += "Scale"
			o.GVK = gvkOf
			if !v3 {
				o.Produces = scaleTypes
			}
		}
		paths[collection+"/{name}/scale"] = p
	}
	// Only the operations of the verbs served, as a cluster documents
	// the routes it has: no deletecollection of namespaces, the POST
	// alone of bindings.
	coll, item := paths[collection], paths[collection+"/{name}"]
	for _, o := range []struct {
		op **openAPIOp
		v  verb
	}{{&coll.Get, verbList}, {&coll.Post, verbCreate}, {&coll.Delete, verbDeleteCollection},
		{&item.Get, verbGet}, {&item.Put, verbUpdate}, {&item.Patch, verbPatch}, {&item.Delete, verbDelete}} {
		if !r.serves(o.v) {
			*o.op = nil
		}
	}
	for p, ops := range map[string]*openAPIPath{collection: coll, collection + "/{name}": item} {
		if ops.Get == nil && ops.Put == nil && ops.Post == nil && ops.Delete == nil && ops.Patch == nil {
			delete(paths, p)
		}
	}
	if r.Namespaced && r.serves(verbList) {
		paths[base+"/"+r.Plural] = &openAPIPath{
			Get: op("list", "list", "list or watch objects of kind "+r.Kind, nil, nil,
				params(v3, listParams...), responses(list, "200")),
			Parameters: params(v3, "pretty"),
		}
		paths[base+"/"+r.Plural].Get.OperationID = "list" + group + camel(r.Version) + r.Kind + "ForAllNamespaces"
	}
}

// buildOpenAPI returns the /openapi/v3 root, the document of each group
// version keyed by its path ("api/v1", "apis/<group>/<version>"), and
// the /openapi/v2 document.
func buildOpenAPI(resources []*Resource, defs *definitions, version string) (root []byte, docs map[string][]byte, v2 []byte, err error) {
	info := openAPIInfo{Title: "Kubernetes", Version: version}
	byPath := map[string]*openAPIv3Doc{}
	roots := map[string][]string{}
	gvs := map[string]gvkExt{}
	swagger := &openAPIv2Doc{Swagger: "2.0", Info: info, Paths: map[string]*openAPIPath{}}
	for _, r := range resources {
		p := docPath(r)
		d := byPath[p]
		if d == nil {
			d = &openAPIv3Doc{OpenAPI: "3.0.0", Info: info, Paths: map[string]*openAPIPath{}}
			byPath[p] = d
			gvs[p] = gvkExt{Group: r.Group, Version: r.Version}
			roots[p] = []string{openapi.StatusSchema, openapi.DeleteOptionsSchema, openapi.WatchEventSchema, openapi.PatchSchema}
		}
		roots[p] = append(roots[p], r.schemaName())
		if r.serves(verbList) {
			roots[p] = append(roots[p], r.listSchemaName())
		}
		if r.Scale != nil {
			roots[p] = append(roots[p], scaleSchemaName)
		}
		addPaths(d.Paths, r, true)
		addPaths(swagger.Paths, r, false)
	}
	docs = map[string][]byte{}
	rt := openAPIRoot{Paths: map[string]openAPIRef{}}
	for _, p := range slices.Sorted(maps.Keys(byPath)) {
		d, gv := byPath[p], gvs[p]
		d.Components.Schemas = defs.encode(defs.closure(roots[p]...), true, func(g gvkExt) bool {
			// A document names the kinds of its own group version, and
			// Status, which every group version returns, and the Scale
			// of scale subresources.
			return g.Group == gv.Group && g.Version == gv.Version || g.Kind == "Status" || g == scaleGVK
		})
		b, err := json.Marshal(d)
		if err != nil {
			return nil, nil, nil, err
		}
		docs[p] = b
		sum := sha512.Sum512(b)
		rt.Paths[p] = openAPIRef{ServerRelativeURL: "/openapi/v3/" + p + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:]))}
	}
	if root, err = json.Marshal(rt); err != nil {
		return nil, nil, nil, err
	}
	swagger.Definitions = defs.encode(slices.Sorted(maps.Keys(defs.schemas)), false, nil)
	v2, err = json.Marshal(swagger)
	return root, docs, v2, err
}
