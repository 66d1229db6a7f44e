//go:build ignore

// Command record-uid records what a kube-apiserver answers writes whose
// body names a metadata.uid other than the stored object's: updates of
// a ConfigMap, a Deployment and a custom resource, of their status and
// scale subresources, patches and server-side applies of each, and
// deletions whose preconditions name another uid. A body's "SELF" is the
// object's own uid, read just before. It creates the definition of
// testdata/uid-crds (not recorded: apisemtest.Start installs it). From
// apisemtest/, with the reference of ../shared/reference running:
//
//	API=https://127.0.0.1:6443 go run record-uid.go
//
// It writes testdata/reference/uid.json, which TestRecordedForeignUID
// replays.
package main

import (
	"encoding/json"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/internal/recorder"
)

type step = recorder.Step

const (
	crds        = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	configmaps  = "/api/v1/namespaces/default/configmaps"
	deployments = "/apis/apps/v1/namespaces/default/deployments"
	gizmos      = "/apis/example.com/v1/namespaces/default/gizmos"
	other       = "00000000-0000-4000-8000-0000000000aa" // no object's
)

func put(name, path, body string) step {
	return step{Name: name, Method: "PUT", Path: path, ContentType: "application/json", Body: body}
}

func patch(name, path, contentType, body string) step {
	return step{Name: name, Method: "PATCH", Path: path, ContentType: contentType, Body: body}
}

func del(name, path, body string) step {
	return step{Name: name, Method: "DELETE", Path: path, ContentType: "application/json", Body: body}
}

// meta is a metadata with name and the extra fields of more (JSON).
func meta(name, more string) string {
	return `"metadata":{"name":"` + name + `"` + more + `}`
}

func configMap(name, more, data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap",` + meta(name, more) + `,"data":{"k":"` + data + `"}}`
}

const deploySpec = `"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}`

func deployment(name, more string) string {
	return `{"apiVersion":"apps/v1","kind":"Deployment",` + meta(name, more) + `,` + deploySpec + `}`
}

func gizmo(name, more string, replicas int) string {
	return `{"apiVersion":"example.com/v1","kind":"Gizmo",` + meta(name, more) + `,"spec":{"replicas":` + strconv.Itoa(replicas) + `}}`
}

func scale(name, more string, replicas int) string {
	return `{"apiVersion":"autoscaling/v1","kind":"Scale",` + meta(name, `,"namespace":"default"`+more) + `,"spec":{"replicas":` + strconv.Itoa(replicas) + `}}`
}

const (
	otherUID  = `,"uid":"` + other + `"`
	selfUID   = `,"uid":"SELF"`
	staleRV   = `,"resourceVersion":"1"`
	merge     = "application/merge-patch+json"
	strategic = "application/strategic-merge-patch+json"
	jsonPatch = "application/json-patch+json"
	apply     = "application/apply-patch+yaml"
	uidPatch  = `{"metadata":{"uid":"` + other + `"}}`
	uidOps    = `[{"op":"replace","path":"/metadata/uid","value":"` + other + `"}]`
	uidPre    = `{"preconditions":{"uid":"` + other + `"}}`
)

var steps = []step{
	// A ConfigMap: updates are unconditional without a resourceVersion.
	{Name: "configmap", Method: "POST", Path: configmaps, ContentType: "application/json", Body: configMap("a", "", "v")},
	put("update naming another uid", configmaps+"/a", configMap("a", otherUID, "w")),
	put("update naming another uid and an old resourceVersion", configmaps+"/a", configMap("a", otherUID+staleRV, "w")),
	put("update naming another uid and an invalid label", configmaps+"/a", configMap("a", otherUID+`,"labels":{"a b":"c"}`, "w")),
	put("dry-run update naming another uid", configmaps+"/a?dryRun=All", configMap("a", otherUID, "w")),
	put("update naming another uid and another name", configmaps+"/a", configMap("b", otherUID, "w")),
	put("update of a missing object naming a uid", configmaps+"/none", configMap("none", otherUID, "w")),
	put("update naming an old resourceVersion", configmaps+"/a", configMap("a", staleRV, "w")),
	put("update naming its own uid", configmaps+"/a", configMap("a", selfUID, "w")),
	patch("merge patch of the uid", configmaps+"/a", merge, uidPatch),
	patch("strategic merge patch of the uid", configmaps+"/a", strategic, uidPatch),
	patch("json patch of the uid", configmaps+"/a", jsonPatch, uidOps),
	patch("apply naming another uid", configmaps+"/a?fieldManager=applier", apply, configMap("a", otherUID, "w")),
	del("dry-run delete with another uid", configmaps+"/a?dryRun=All", uidPre),
	del("delete with another uid", configmaps+"/a", uidPre),
	del("delete", configmaps+"/a", ""),

	// A Deployment and its status and scale subresources.
	{Name: "deployment", Method: "POST", Path: deployments, ContentType: "application/json", Body: deployment("d", "")},
	put("deployment update naming another uid", deployments+"/d", deployment("d", otherUID)),
	put("status update naming another uid", deployments+"/d/status", deployment("d", otherUID)),
	put("scale naming another uid", deployments+"/d/scale", scale("d", otherUID, 3)),
	put("scale naming another uid and an old resourceVersion", deployments+"/d/scale", scale("d", otherUID+staleRV, 3)),
	put("scale naming an old resourceVersion", deployments+"/d/scale", scale("d", staleRV, 3)),
	put("scale naming another name", deployments+"/d/scale", scale("e", "", 3)),
	put("scale naming another name and uid", deployments+"/d/scale", scale("e", otherUID, 3)),
	put("dry-run scale naming another uid", deployments+"/d/scale?dryRun=All", scale("d", otherUID, 3)),
	patch("scale merge patch of the uid", deployments+"/d/scale", merge, uidPatch),
	patch("scale json patch of the uid", deployments+"/d/scale", jsonPatch, uidOps),
	patch("scale apply naming another uid", deployments+"/d/scale?fieldManager=applier&force=true", apply, scale("d", otherUID, 3)),
	put("scale naming its own uid", deployments+"/d/scale", scale("d", selfUID, 2)),
	del("deployment delete with another uid", deployments+"/d", uidPre),
	del("deployment delete", deployments+"/d", ""),

	// A custom resource: updates need a resourceVersion.
	{Name: "gizmo", Method: "POST", Path: gizmos, ContentType: "application/json", Body: gizmo("g", "", 1)},
	put("gizmo update naming another uid", gizmos+"/g", gizmo("g", otherUID, 2)),
	put("gizmo update naming another uid and an old resourceVersion", gizmos+"/g", gizmo("g", otherUID+staleRV, 2)),
	put("dry-run gizmo update naming another uid", gizmos+"/g?dryRun=All", gizmo("g", otherUID, 2)),
	put("gizmo status naming another uid", gizmos+"/g/status", gizmo("g", otherUID, 2)),
	patch("gizmo status merge patch of the uid", gizmos+"/g/status", merge, uidPatch),
	put("gizmo scale naming another uid", gizmos+"/g/scale", scale("g", otherUID, 3)),
	put("gizmo scale naming another uid and an old resourceVersion", gizmos+"/g/scale", scale("g", otherUID+staleRV, 3)),
	put("gizmo scale naming an old resourceVersion", gizmos+"/g/scale", scale("g", staleRV, 3)),
	put("gizmo scale naming another name", gizmos+"/g/scale", scale("h", "", 3)),
	put("dry-run gizmo scale naming another uid", gizmos+"/g/scale?dryRun=All", scale("g", otherUID, 3)),
	patch("gizmo merge patch of the uid", gizmos+"/g", merge, uidPatch),
	patch("gizmo scale merge patch of the uid", gizmos+"/g/scale", merge, uidPatch),
	patch("gizmo apply naming another uid", gizmos+"/g?fieldManager=applier", apply, gizmo("g", otherUID, 2)),
	put("gizmo scale naming its own uid", gizmos+"/g/scale", scale("g", selfUID, 2)),
	put("gizmo update naming its own uid", gizmos+"/g", gizmo("g", selfUID, 4)),
	del("gizmo delete with another uid", gizmos+"/g", uidPre),
	del("gizmo delete", gizmos+"/g", ""),
}

// ownUID returns the uid of the object the path of s names.
func ownUID(s step) string {
	p, _, _ := strings.Cut(s.Path, "?")
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/scale"), "/status")
	g := recorder.Get("uid", p)
	recorder.Do(&g)
	var o struct{ Metadata struct{ UID string } }
	if err := json.Unmarshal(g.Answer, &o); err != nil || o.Metadata.UID == "" {
		log.Fatalf("%s: no uid: %d %s", s.Name, g.Code, g.Answer)
	}
	return o.Metadata.UID
}

func main() {
	b, err := os.ReadFile("testdata/uid-crds/gizmos.yaml")
	if err != nil {
		log.Fatal(err)
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		log.Fatal(err)
	}
	crd := step{Name: "crd", Method: "POST", Path: crds, ContentType: "application/json", Body: string(j)}
	recorder.Do(&crd)
	log.Printf("crd: %d", crd.Code)
	for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
		probe := recorder.Get("probe", gizmos)
		recorder.Do(&probe)
		if probe.Code == 200 {
			break
		}
		if time.Since(start) > time.Minute {
			log.Fatalf("gizmos are not served after a minute: %d %s", probe.Code, probe.Answer)
		}
	}
	var out []step
	for _, s := range steps {
		sent := s
		if strings.Contains(s.Body, "SELF") {
			sent.Body = strings.ReplaceAll(s.Body, "SELF", ownUID(s))
		}
		recorder.Do(&sent)
		log.Printf("%s: %d %s", s.Name, sent.Code, sent.Answer)
		sent.Body = s.Body
		out = append(out, sent)
	}
	recorder.Write("testdata/reference/uid.json", out)
}
