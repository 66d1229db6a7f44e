package crd

import (
	"context"
	"strings"
	"testing"
)

// TestPrinterColumnsJSONPath: columns with kubectl's full JSONPath
// (filters, wildcards, recursive descent) are accepted and printed as a
// cluster prints them; a column whose path does not parse is accepted
// too, and the Table stops before it, as Kubernetes' table convertor
// does.
func TestPrinterColumnsJSONPath(t *testing.T) {
	tests := []struct {
		name    string
		columns string
		cells   []string // the rows' cells
		headers []string // column names in the Table
	}{
		{"filters and wildcards", `[
			{"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"},
			{"name":"Containers","type":"string","jsonPath":".spec.containers[*].name"},
			{"name":"Ports","type":"integer","jsonPath":"..containerPort"},
			{"name":"Labels","type":"string","jsonPath":".metadata.labels"},
			{"name":"Since","type":"date","jsonPath":".status.conditions[?(@.type=='Ready')].lastTransitionTime"},
			{"name":"Missing","type":"string","jsonPath":".status.conditions[?(@.type==\"Gone\")].status"},
			{"name":"Kind","type":"string","jsonPath":".kind"},
			{"name":"APIVersion","type":"string","jsonPath":".apiVersion"}]`,
			[]string{`"cells":["w1","True","app",8080,"{\"tier\":\"web\"}","`, `",null,"Widget","example.com/v1"]`,
				`"cells":["w2",null,null,null,null,null,null,"Widget","example.com/v1"]`},
			[]string{"Name", "Ready", "Containers", "Ports", "Labels", "Since", "Missing", "Kind", "APIVersion"}},
		{"a path that does not parse ends the columns", `[
			{"name":"First","type":"string","jsonPath":".spec.containers[0].name"},
			{"name":"Bad","type":"string","jsonPath":".spec.containers[x]"},
			{"name":"After","type":"string","jsonPath":".spec.containers[1].name"}]`,
			[]string{`"cells":["w1","app"]`, `"cells":["w2",null]`},
			[]string{"Name", "First"}},
		{"a first path that does not parse leaves the name alone", `[
			{"name":"Bad","type":"string","jsonPath":".a{"}]`,
			[]string{`"cells":["w1"]`, `"cells":["w2"]`},
			[]string{"Name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, url := newServer(t)
			def := `{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
				"names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
				"versions":[{"name":"v1","served":true,"storage":true,"additionalPrinterColumns":` + tt.columns + `,
				"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
			do(t, "POST", url+crdsURL, def, 201)
			if _, err := c.WaitEstablished(context.Background(), "widgets.example.com"); err != nil {
				t.Fatal(err)
			}
			do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w1","labels":{"tier":"web"}},
				"spec":{"containers":[{"name":"app","ports":[{"containerPort":8080}]},{"name":"proxy"}]},
				"status":{"conditions":[{"type":"Synced","status":"False"},{"type":"Ready","status":"True","lastTransitionTime":"2020-01-02T03:04:05Z"}]}}`, 201)
			do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w2"},"spec":{}}`, 201)
			r := do(t, "GET", url+widgetsURL, "", 200, "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
			for _, want := range tt.cells {
				if !strings.Contains(r.body, want) {
					t.Errorf("Table lacks %s: %s", want, r.body)
				}
			}
			var names []string
			for _, h := range strings.Split(r.body, `{"name":"`)[1:] {
				if name, _, ok := strings.Cut(h, `"`); ok && strings.Contains(h, `"type":`) {
					names = append(names, name)
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.headers, ",") {
				t.Errorf("columns = %q; want %q", names, tt.headers)
			}
		})
	}
}
