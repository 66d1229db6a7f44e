package builtin

import (
	"encoding/json"
	"testing"

	"github.com/apisem/apisem/server/servertest"
)

// A field that refers to a definition keeps its patch strategy beside
// the reference, as kube-apiserver v1.37 publishes DeploymentSpec.strategy
// (the values below are its documents'): kubectl's client-side strategic
// merge reads retainKeys there.
func TestOpenAPIPatchStrategyBesideReference(t *testing.T) {
	_, url := newClient(t, Options{Groups: []string{"apps"}})
	const desc = "The deployment strategy to use to replace existing pods with new ones."
	for _, tc := range []struct {
		path, defs, want string
	}{
		{"/openapi/v3/apis/apps/v1", "components.schemas",
			`{"allOf":[{"$ref":"#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}],"default":{},"description":"` + desc + `","x-kubernetes-patch-strategy":"retainKeys"}`},
		{"/openapi/v2", "definitions",
			`{"$ref":"#/definitions/io.k8s.api.apps.v1.DeploymentStrategy","description":"` + desc + `","x-kubernetes-patch-strategy":"retainKeys"}`},
	} {
		r := servertest.Do(t, "GET", url+tc.path, "", "Accept", "application/json")
		if r.Code != 200 {
			t.Fatalf("GET %s: %d %.300s", tc.path, r.Code, r.Body)
		}
		var doc struct {
			Components struct {
				Schemas map[string]struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"schemas"`
			} `json:"components"`
			Definitions map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"definitions"`
		}
		if err := json.Unmarshal([]byte(r.Body), &doc); err != nil {
			t.Fatal(err)
		}
		got := doc.Definitions["io.k8s.api.apps.v1.DeploymentSpec"].Properties["strategy"]
		if tc.defs == "components.schemas" {
			got = doc.Components.Schemas["io.k8s.api.apps.v1.DeploymentSpec"].Properties["strategy"]
		}
		if string(got) != tc.want {
			t.Errorf("GET %s: DeploymentSpec.strategy\n%s\nwant\n%s", tc.path, got, tc.want)
		}
	}
}
