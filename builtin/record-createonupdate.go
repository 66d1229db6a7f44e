//go:build ignore

// Command record-createonupdate records what a kube-apiserver answers a
// PUT of an object that does not exist: kinds whose strategy allows
// create-on-update (a Lease, a RoleBinding) create it with 201, others (a
// ConfigMap) answer 404. It records a dry run of such a create, one whose
// body carries a resourceVersion, one naming a uid, one that fails
// validation, one in a namespace that does not exist, and the update of
// the object created. From builtin/, with the reference of
// ../shared/reference running:
//
//	API=https://127.0.0.1:6443 go run record-createonupdate.go
//
// It writes testdata/reference/createonupdate.json, which
// TestRecordedCreateOnUpdate replays in order.
package main

import (
	"log"

	"github.com/apisem/apisem/internal/recorder"
)

type step = recorder.Step

const (
	leases       = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
	configmaps   = "/api/v1/namespaces/default/configmaps"
	rolebindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings"
)

func put(name, path, body string) step {
	return step{Name: name, Method: "PUT", Path: path, ContentType: "application/json", Body: body}
}

func lease(name, more string) string {
	return `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"` + name + `"` + more + `},"spec":{"holderIdentity":"me","leaseDurationSeconds":15}}`
}

const roleBinding = `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"rb"},` +
	`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},` +
	`"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"jane"}]}`

var steps = []step{
	put("dry-run put of a missing lease", leases+"/dry?dryRun=All", lease("dry", "")),
	recorder.Get("the dry-run lease is not stored", leases+"/dry"),
	put("put of a missing lease", leases+"/a", lease("a", "")),
	recorder.Get("the lease created", leases+"/a"),
	put("put of the lease created", leases+"/a", lease("a", `,"labels":{"x":"y"}`)),
	put("put of a missing lease with a resourceVersion", leases+"/rv", lease("rv", `,"resourceVersion":"12345"`)),
	put("put of a missing lease naming a uid", leases+"/uid", lease("uid", `,"uid":"00000000-0000-4000-8000-0000000000aa"`)),
	put("put of a missing lease with a creationTimestamp", leases+"/ts", lease("ts", `,"creationTimestamp":"2020-01-01T00:00:00Z"`)),
	put("put of a missing lease that is invalid", leases+"/bad", `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"bad"},"spec":{"leaseDurationSeconds":-1}}`),
	put("put of a missing lease with generateName", leases+"/gen", lease("gen", `,"generateName":"g-"`)),
	put("put of a missing lease in a missing namespace", "/apis/coordination.k8s.io/v1/namespaces/nowhere/leases/a", lease("a", "")),
	put("put of a missing lease with another name", leases+"/other", lease("b", "")),
	put("put of a missing configmap", configmaps+"/none", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"none"},"data":{"k":"v"}}`),
	put("put of a missing rolebinding", rolebindings+"/rb", roleBinding),
	recorder.Delete("delete the lease", leases+"/a"),
	recorder.Delete("delete the lease with a resourceVersion", leases+"/rv"),
	recorder.Delete("delete the lease with a creationTimestamp", leases+"/ts"),
	recorder.Delete("delete the lease with generateName", leases+"/gen"),
	recorder.Delete("delete the rolebinding", rolebindings+"/rb"),
}

func main() {
	for i := range steps {
		recorder.Do(&steps[i])
		log.Printf("%s: %d %s", steps[i].Name, steps[i].Code, steps[i].Answer)
	}
	recorder.Write("testdata/reference/createonupdate.json", steps)
}
