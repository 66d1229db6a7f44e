package cel

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// An object stored before a rule applied to it keeps its invalid value
// through updates that leave the value alone, and not through those that
// change it. Versions share storage: the object is created through v1,
// which has no rule, and updated through v2, which has one.
func TestRatchetingThroughServer(t *testing.T) {
	opts := crd.Options{Rules: Compiler{}}
	defs := opts.Resource()
	s, url := servertest.New(t, server.Options{Resources: []*server.Resource{defs}})
	c := opts.Start(s, defs)
	t.Cleanup(c.Stop)
	list, err := crd.Parse([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              note: {type: string}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas:
                type: integer
                x-kubernetes-validations:
                - rule: "self <= 10"
              note: {type: string}
`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Install(context.Background(), list...); err != nil {
		t.Fatal(err)
	}
	const v1, v2 = "/apis/example.com/v1/namespaces/default/widgets", "/apis/example.com/v2/namespaces/default/widgets"
	merge := []string{"Content-Type", "application/merge-patch+json"}
	steps := []struct {
		name, method, path, body string
		code                     int
		want                     string
	}{
		{"created without the rule", "POST", v1, `{"metadata":{"name":"w1"},"spec":{"replicas":20}}`, 201, ""},
		{"the rule applies to creates", "POST", v2, `{"metadata":{"name":"w2"},"spec":{"replicas":20}}`, 422,
			`spec.replicas: Invalid value: 20: failed rule: self \u003c= 10`},
		{"unchanged value ratchets", "PATCH", v2 + "/w1", `{"spec":{"note":"x"}}`, 200, ""},
		{"changed value does not", "PATCH", v2 + "/w1", `{"spec":{"replicas":21}}`, 422,
			`spec.replicas: Invalid value: 21: failed rule: self \u003c= 10`},
		{"valid value", "PATCH", v2 + "/w1", `{"spec":{"replicas":5}}`, 200, ""},
	}
	for _, st := range steps {
		var hdr []string
		if st.method == "PATCH" {
			hdr = merge
		} else {
			hdr = []string{"Content-Type", "application/json"}
		}
		r := servertest.Do(t, st.method, url+st.path, st.body, hdr...)
		if r.Code != st.code || !strings.Contains(r.Body, st.want) {
			t.Errorf("%s: %d %s; want %d with %s", st.name, r.Code, r.Body, st.code, st.want)
		}
	}
}
