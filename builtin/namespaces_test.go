package builtin

import (
	"encoding/json"
	"testing"

	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// A ResourceClaim or ResourceClaimTemplate asking for admin access to
// devices is taken in a namespace labelled
// resource.kubernetes.io/admin-access: "true" and refused elsewhere, with
// the answers recorded on v1.37.1 (testdata/reference-v1.37.1-multiver.txt),
// when the server's Namespaces are given to the strategies; without
// them every namespace refuses.
func TestAdminAccessNamespaces(t *testing.T) {
	const forbidden = " is invalid: spec.devices.requests[0].adminAccess: Forbidden: admin access to devices requires the " +
		"`resource.kubernetes.io/admin-access: true` label on the containing namespace"
	claim := `{"metadata":{"name":"rc"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"dc","adminAccess":true}}]}}}`
	template := `{"metadata":{"name":"rct"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"dc","adminAccess":true}}]}}}}`
	for _, bound := range []bool{true, false} {
		nsr := &ServerNamespaces{}
		opts := Options{Groups: []string{"resource.k8s.io"}}
		if bound {
			opts.Namespaces = nsr
		}
		res, err := Resources(opts)
		if err != nil {
			t.Fatal(err)
		}
		ns := namespace.New(namespace.Options{})
		s, url := servertest.New(t, server.Options{Resources: append(res, ns.Resource())})
		nsr.Bind(s)
		for _, n := range []string{`{"metadata":{"name":"adm","labels":{"resource.kubernetes.io/admin-access":"true"}}}`,
			`{"metadata":{"name":"adm2","labels":{"resource.kubernetes.io/admin-access":"yes"}}}`,
			`{"metadata":{"name":"default"}}`} {
			if code, body := do(t, "POST", url+"/api/v1/namespaces", n); code != 201 {
				t.Fatalf("namespace %s: %d %s", n, code, body)
			}
		}
		for _, c := range []struct {
			ns, resource, body, want string // want: "" for 201, else the 422's message
		}{
			{"adm", "resourceclaims", claim, ""},
			{"adm2", "resourceclaims", claim, `ResourceClaim.resource.k8s.io "rc"` + forbidden},
			{"default", "resourceclaims", claim, `ResourceClaim.resource.k8s.io "rc"` + forbidden},
			{"adm", "resourceclaimtemplates", template, ""},
			{"default", "resourceclaimtemplates", template, `ResourceClaimTemplate.resource.k8s.io "rct"` + forbidden},
		} {
			want, wantCode := c.want, 422
			if want == "" {
				wantCode = 201
				if !bound {
					want = map[string]string{"resourceclaims": `ResourceClaim.resource.k8s.io "rc"`,
						"resourceclaimtemplates": `ResourceClaimTemplate.resource.k8s.io "rct"`}[c.resource] + forbidden
					wantCode = 422
				}
			}
			code, body := do(t, "POST", url+"/apis/resource.k8s.io/v1/namespaces/"+c.ns+"/"+c.resource, c.body)
			var st struct{ Message string }
			_ = json.Unmarshal([]byte(body), &st)
			if code != wantCode || (wantCode == 422 && st.Message != want) {
				t.Errorf("bound %v, %s in %s: %d %s; want %d %s", bound, c.resource, c.ns, code, body, wantCode, want)
			}
		}
	}
}
