package server

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"strings"
)

// OpenAPI v3: kubectl create and apply validate strictly by default, and
// first look in /openapi/v3 for the fieldValidation parameter of the
// resource's PATCH operation; found, they leave validation to the server
// (fieldValidation=Strict), else they download schemas to validate on the
// client. The server publishes its operations and their query parameters,
// without schemas: enough for that check and for any client that lists
// operations. A PATCH operation has no requestBody, which tells kubectl
// apply to compute strategic merge patches from its built-in types.

type openAPIRoot struct {
	Paths map[string]openAPIRef `json:"paths"`
}

type openAPIRef struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

type openAPIDoc struct {
	OpenAPI string                          `json:"openapi"`
	Info    openAPIInfo                     `json:"info"`
	Paths   map[string]map[string]openAPIOp `json:"paths"`
}

type openAPIInfo struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

type openAPIOp struct {
	OperationID string            `json:"operationId"`
	Action      string            `json:"x-kubernetes-action"`
	GVK         map[string]string `json:"x-kubernetes-group-version-kind"`
	Parameters  []openAPIParam    `json:"parameters"`
	Responses   map[string]any    `json:"responses"`
}

type openAPIParam struct {
	Name   string            `json:"name"`
	In     string            `json:"in"`
	Schema map[string]string `json:"schema"`
}

func queryParams(names ...string) []openAPIParam {
	ps := make([]openAPIParam, len(names))
	for i, n := range names {
		typ := "string"
		switch n {
		case "limit", "timeoutSeconds", "gracePeriodSeconds":
			typ = "integer"
		case "watch", "allowWatchBookmarks", "sendInitialEvents", "pretty", "orphanDependents":
			typ = "boolean"
		}
		ps[i] = openAPIParam{Name: n, In: "query", Schema: map[string]string{"type": typ}}
	}
	return ps
}

var (
	listParams   = []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "pretty", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}
	createParams = []string{"dryRun", "fieldManager", "fieldValidation", "pretty"}
	deleteParams = []string{"dryRun", "gracePeriodSeconds", "orphanDependents", "pretty", "propagationPolicy"}
)

// buildOpenAPI returns the /openapi/v3 root and the document of each group
// version, keyed by its path ("api/v1", "apis/<group>/<version>").
func buildOpenAPI(resources []*Resource) (root []byte, docs map[string][]byte, err error) {
	byPath := map[string]*openAPIDoc{}
	for _, r := range resources {
		p := "apis/" + r.GroupVersion()
		if r.Group == "" {
			p = "api/" + r.Version
		}
		d := byPath[p]
		if d == nil {
			d = &openAPIDoc{OpenAPI: "3.0.0", Info: openAPIInfo{Title: "apisem example server", Version: kubeGitVersion},
				Paths: map[string]map[string]openAPIOp{}}
			byPath[p] = d
		}
		gvk := map[string]string{"group": r.Group, "version": r.Version, "kind": r.Kind}
		op := func(verb, action string, params ...[]string) openAPIOp {
			var names []string
			for _, ps := range params {
				names = append(names, ps...)
			}
			return openAPIOp{
				OperationID: verb + r.Kind, Action: action, GVK: gvk, Parameters: queryParams(names...),
				Responses: map[string]any{"200": map[string]string{"description": "OK"}},
			}
		}
		collection := "/" + p + "/" + r.Plural
		if r.Namespaced {
			collection = "/" + p + "/namespaces/{namespace}/" + r.Plural
		}
		d.Paths[collection] = map[string]openAPIOp{
			"get":    op("list", "list", listParams),
			"post":   op("create", "post", createParams),
			"delete": op("deleteCollection", "deletecollection", deleteParams, listParams),
		}
		d.Paths[collection+"/{name}"] = map[string]openAPIOp{
			"get":    op("read", "get", []string{"pretty", "resourceVersion"}),
			"put":    op("replace", "put", createParams),
			"patch":  op("patch", "patch", createParams, []string{"force"}),
			"delete": op("delete", "delete", deleteParams),
		}
	}
	docs = map[string][]byte{}
	rt := openAPIRoot{Paths: map[string]openAPIRef{}}
	for p, d := range byPath {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, nil, err
		}
		docs[p] = b
		sum := sha512.Sum512(b)
		rt.Paths[p] = openAPIRef{ServerRelativeURL: "/openapi/v3/" + p + "?hash=" + strings.ToUpper(hex.EncodeToString(sum[:]))}
	}
	root, err = json.Marshal(rt)
	return root, docs, err
}
