package builtin

import (
	"strings"
	"testing"
)

// A ConfigMap or Secret update with a bad label is one cause, as
// kube-apiserver v1.37.1 answers (recorded from ../shared/reference: the
// bodies below are its answers but for the names), not one for each time
// Kubernetes' metadata rules check it.
func TestUpdateBadLabelOneCause(t *testing.T) {
	_, url := newClient(t, Options{})
	const (
		label      = `Invalid value: \"-\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
		annotation = `Invalid value: \"-x\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	)
	for _, tc := range []struct{ plural, patch, want string }{
		{"configmaps", `{"metadata":{"labels":{"a":"-"}}}`,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \"x\" is invalid: metadata.labels: ` + label +
				`","reason":"Invalid","details":{"name":"x","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":"` + label + `","field":"metadata.labels"}]},"code":422}`},
		{"secrets", `{"metadata":{"labels":{"a":"-","b":"-"},"annotations":{"-x":"y"}}}`,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Secret \"x\" is invalid: [metadata.labels: ` + label + `, metadata.annotations: ` + annotation +
				`]","reason":"Invalid","details":{"name":"x","kind":"Secret","causes":[{"reason":"FieldValueInvalid","message":"` + label + `","field":"metadata.labels"},` +
				`{"reason":"FieldValueInvalid","message":"` + annotation + `","field":"metadata.annotations"}]},"code":422}`},
	} {
		if code, body := do(t, "POST", url+"/api/v1/namespaces/default/"+tc.plural, `{"metadata":{"name":"x"}}`); code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		code, body := doPatch(t, url+"/api/v1/namespaces/default/"+tc.plural+"/x", tc.patch)
		if code != 422 || strings.TrimSpace(body) != tc.want {
			t.Errorf("%s: %d %s\nwant 422 %s", tc.plural, code, body, tc.want)
		}
	}
}
