//go:build ignore

// Command record-applyfields records what a kube-apiserver answers a
// server-side apply, a POST and a PUT (in YAML) of an object with a field
// its type lacks or a key given twice, under each fieldValidation, for
// the custom resources of crd/testdata/applyfields/definitions.yaml
// (installed first), ConfigMaps and Deployments. From the repository's
// root, with the reference of ../shared/reference running:
//
//	API=https://127.0.0.1:6443 go run internal/recorded/record-applyfields.go
//
// It writes crd/testdata/applyfields/answers.json,
// builtin/testdata/reference/applyfields.json and
// examples/apiserver/demo/testdata/applyfields-configmaps.json (the
// ConfigMaps again). Objects are named r1, r2, ... in namespace default
// and deleted after each request.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/apisem/apisem/internal/recorder"
)

// exchange is recorded.Exchange.
type exchange struct {
	Name        string          `json:"name"`
	Kind        string          `json:"kind"`
	Before      string          `json:"before,omitempty"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	ContentType string          `json:"contentType"`
	Body        string          `json:"body"`
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings,omitempty"`
	Answer      json.RawMessage `json:"answer"`
}

type answer struct {
	code     int
	warnings []string
	body     []byte
}

// do sends one request to the reference (recorder.Do) and gives its answer.
func do(method, path, ctype, body string) answer {
	s := recorder.Step{Method: method, Path: path, ContentType: ctype, Body: body}
	recorder.Do(&s)
	return answer{s.Code, s.Warnings, s.Answer}
}

// A kind's valid configuration (NAME and VALUE to fill in) and its
// variants: the text old replaced by new.
type variant struct{ name, old, new string }

type kind struct {
	kind, collection, config string
	variants                 []variant
}

const customConfig = `apiVersion: example.com/v1
kind: KIND
metadata:
  name: NAME
  namespace: default
spec:
  size: VALUE
  items:
  - name: a
    value: x
`

var customVariants = []variant{
	{"top", "spec:\n", "extra: 1\nspec:\n"},
	{"spec", "  size: VALUE\n", "  size: VALUE\n  extra: 1\n"},
	{"list", "    value: x\n", "    value: x\n    extra: 1\n"},
	{"metadata", "  namespace: default\n", "  namespace: default\n  extra: 1\n"},
	{"duplicate", "  size: VALUE\n", "  size: 7\n  size: VALUE\n"},
	{"unknown+duplicate", "  size: VALUE\n", "  extra: 1\n  size: 7\n  size: VALUE\n"},
}

var kinds = []kind{
	{"Gizmo", "/apis/example.com/v1/namespaces/default/gizmos", strings.Replace(customConfig, "KIND", "Gizmo", 1), customVariants},
	{"Blob", "/apis/example.com/v1/namespaces/default/blobs", strings.Replace(customConfig, "KIND", "Blob", 1), customVariants},
	{"ConfigMap", "/api/v1/namespaces/default/configmaps", `apiVersion: v1
kind: ConfigMap
metadata:
  name: NAME
  namespace: default
data:
  a: "VALUE"
`, []variant{
		{"top", "\ndata:\n", "\nextra: 1\ndata:\n"},
		{"list", "  namespace: default\n", "  namespace: default\n  ownerReferences:\n  - apiVersion: v1\n    kind: ConfigMap\n    name: owner\n    uid: 11111111-2222-3333-4444-555555555555\n    extra: 1\n"},
		{"metadata", "  namespace: default\n", "  namespace: default\n  extra: 1\n"},
		{"duplicate", "  a: \"VALUE\"\n", "  a: \"7\"\n  a: \"VALUE\"\n"},
		{"unknown+duplicate", "data:\n  a: \"VALUE\"\n", "extra: 1\ndata:\n  a: \"7\"\n  a: \"VALUE\"\n"},
	}},
	{"Deployment", "/apis/apps/v1/namespaces/default/deployments", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: NAME
  namespace: default
spec:
  replicas: VALUE
  selector:
    matchLabels:
      app: x
  template:
    metadata:
      labels:
        app: x
    spec:
      containers:
      - name: c
        image: nginx
`, []variant{
		{"top", "spec:\n", "extra: 1\nspec:\n"},
		{"spec", "  replicas: VALUE\n", "  replicas: VALUE\n  extra: 1\n"},
		{"list", "        image: nginx\n", "        image: nginx\n        extra: 1\n"},
		{"metadata", "  namespace: default\n", "  namespace: default\n  extra: 1\n"},
		{"duplicate", "  replicas: VALUE\n", "  replicas: 7\n  replicas: VALUE\n"},
		{"unknown+duplicate", "  replicas: VALUE\n", "  extra: 1\n  replicas: 7\n  replicas: VALUE\n"},
	}},
}

func main() {
	defs, err := os.ReadFile("crd/testdata/applyfields/definitions.yaml")
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range strings.Split(string(defs), "\n---\n") {
		if a := do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/yaml", d); a.code != 201 && a.code != 409 {
			log.Fatalf("installing a definition: %d %s", a.code, a.body)
		}
	}
	// Wait until the definitions are served: a first request would 404.
	for do("GET", "/apis/example.com/v1/namespaces/default/blobs", "", "").code != 200 ||
		do("GET", "/apis/example.com/v1/namespaces/default/gizmos", "", "").code != 200 {
		time.Sleep(100 * time.Millisecond)
	}
	files := map[string][]exchange{}
	n := 0
	for _, k := range kinds {
		for _, v := range k.variants {
			if !strings.Contains(k.config, v.old) {
				log.Fatalf("%s %s: %q is not in the configuration", k.kind, v.name, v.old)
			}
			for _, fv := range []string{"", "Ignore", "Warn", "Strict"} {
				for _, op := range []string{"apply create", "apply update", "post", "put"} {
					n++
					e := record(k, v, fv, op, fmt.Sprintf("r%d", n))
					switch k.kind {
					case "Gizmo", "Blob":
						files["crd/testdata/applyfields/answers.json"] = append(files["crd/testdata/applyfields/answers.json"], e)
					case "ConfigMap":
						files["examples/apiserver/demo/testdata/applyfields-configmaps.json"] = append(files["examples/apiserver/demo/testdata/applyfields-configmaps.json"], e)
						fallthrough
					default:
						files["builtin/testdata/reference/applyfields.json"] = append(files["builtin/testdata/reference/applyfields.json"], e)
					}
				}
			}
		}
	}
	for f, es := range files {
		recorder.Write(f, es)
	}
}

// record sends one request (after creating the object for an update) and
// deletes the object.
func record(k kind, v variant, fv, op, name string) exchange {
	fill := func(s, value string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "NAME", name), "VALUE", value)
	}
	good, bad := fill(k.config, "1"), fill(strings.Replace(k.config, v.old, v.new, 1), "2")
	query := "?fieldManager=test"
	if fv != "" {
		query += "&fieldValidation=" + fv
	}
	object := k.collection + "/" + name
	e := exchange{Name: k.kind + " " + v.name + " " + op + " fieldValidation=" + fv, Kind: k.kind, Body: bad}
	sent := bad
	switch op {
	case "apply create", "apply update":
		e.Method, e.Path, e.ContentType = "PATCH", object+query, "application/apply-patch+yaml"
		if op == "apply update" {
			e.Before = good
			if a := do("PATCH", object+"?fieldManager=test", "application/apply-patch+yaml", good); a.code != 201 {
				log.Fatalf("%s: before: %d %s", e.Name, a.code, a.body)
			}
		}
	case "post":
		e.Method, e.Path, e.ContentType = "POST", k.collection+query, "application/yaml"
	case "put":
		e.Method, e.Path, e.ContentType = "PUT", object+query, "application/yaml"
		e.Before = good
		a := do("POST", k.collection+"?fieldManager=test", "application/yaml", good)
		if a.code != 201 {
			log.Fatalf("%s: before: %d %s", e.Name, a.code, a.body)
		}
		var o struct {
			Metadata struct{ ResourceVersion string }
		}
		if err := json.Unmarshal(a.body, &o); err != nil {
			log.Fatal(err)
		}
		e.Body = strings.Replace(bad, "  name: "+name+"\n", "  name: "+name+"\n  resourceVersion: \"RV\"\n", 1)
		sent = strings.Replace(e.Body, `"RV"`, `"`+o.Metadata.ResourceVersion+`"`, 1)
	}
	pre := do("GET", object, "", "")
	a := do(e.Method, e.Path, e.ContentType, sent)
	post := do("GET", object, "", "")
	// What recorded.Replay checks instead of a recorded stored object: a
	// success stores what it answers, a failure nothing.
	if a.code < 300 && string(post.body) != string(a.body) || a.code >= 300 && string(post.body) != string(pre.body) {
		log.Fatalf("%s: stored %s after %d %s", e.Name, post.body, a.code, a.body)
	}
	do("DELETE", object, "", "")
	e.Code, e.Warnings, e.Answer = a.code, a.warnings, a.body
	return e
}
