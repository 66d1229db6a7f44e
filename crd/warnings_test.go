package crd

import (
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// A request to a deprecated version gets its Warning, errors included.
// kube-apiserver 1.37.1 answered, for a definition with v1 (storage),
// v1beta1 and v2beta1 deprecated, v1alpha1 deprecated with
// deprecationWarning "custom: do not use v1alpha1":
//
//	POST /apis/example.com/v1beta1/namespaces/default/widgets => 201,
//	  Warning: 299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"
//	GET .../v1alpha1/namespaces/default/widgets => 200, Warning: 299 - "custom: do not use v1alpha1"
//	GET .../v2beta1/namespaces/default/widgets/a => 200,
//	  Warning: 299 - "example.com/v2beta1 Widget is deprecated; use example.com/v1 Widget"
//	DELETE .../v1beta1/namespaces/default/widgets/a => 200, the same Warning as the POST
//	GET .../v1/namespaces/default/widgets/a => 200, no Warning
//
// and for one with v1 (storage) deprecated, v1beta1 not, v1alpha1
// deprecated (only versions of a higher priority are proposed):
//
//	GET /apis/example.com/v1/gadgets => 429 (storage initializing), Warning: 299 - "example.com/v1 Gadget is deprecated"
//	GET /apis/example.com/v1/gadgets?watch=1 => 200, the same Warning
//	PUT /apis/example.com/v1/gadgets => 400 "name must be provided", the same Warning
//	GET /apis/example.com/v1alpha1/gadgets => 200,
//	  Warning: 299 - "example.com/v1alpha1 Gadget is deprecated; use example.com/v1beta1 Gadget"
//	GET /apis/example.com/v1beta1/gadgets => 200, no Warning
func TestDeprecationWarningRecorded(t *testing.T) {
	s, c, url := newServer(t)
	v := func(name string, storage bool, extra string) string {
		return `{"name":"` + name + `","served":true,"storage":` + map[bool]string{true: "true", false: "false"}[storage] + extra +
			`,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`
	}
	define := func(plural, kind, scope string, versions ...string) {
		def := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"` + plural + `.example.com"},` +
			`"spec":{"group":"example.com","scope":"` + scope + `","names":{"plural":"` + plural + `","singular":"` + strings.ToLower(kind) +
			`","kind":"` + kind + `","listKind":"` + kind + `List"},"versions":[` + strings.Join(versions, ",") + `]}}`
		do(t, "POST", url+"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", def, 201)
		waitFor(t, s, "established", func() bool {
			d, err := c.WaitEstablished(t.Context(), plural+".example.com")
			return err == nil && d.IsEstablished()
		})
	}
	dep := `,"deprecated":true`
	define("widgets", "Widget", "Namespaced", v("v1", true, ""), v("v1beta1", false, dep),
		v("v1alpha1", false, dep+`,"deprecationWarning":"custom: do not use v1alpha1"`), v("v2beta1", false, dep))
	define("gadgets", "Gadget", "Cluster", v("v1", true, dep), v("v1beta1", false, ""), v("v1alpha1", false, dep))

	const (
		beta1  = `299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"`
		gadget = `299 - "example.com/v1 Gadget is deprecated"`
	)
	ns := url + "/apis/example.com/%s/namespaces/default/widgets"
	at := func(format, version string) string { return strings.Replace(format, "%s", version, 1) }
	for _, tt := range []struct {
		method, url, body string
		code              int
		warning           string
	}{
		{"POST", at(ns, "v1beta1"), `{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"a"}}`, 201, beta1},
		{"GET", at(ns, "v1alpha1"), "", 200, `299 - "custom: do not use v1alpha1"`},
		{"GET", at(ns, "v2beta1") + "/a", "", 200, `299 - "example.com/v2beta1 Widget is deprecated; use example.com/v1 Widget"`},
		{"GET", at(ns, "v1") + "/a", "", 200, ""},
		{"DELETE", at(ns, "v1beta1") + "/a", "", 200, beta1},
		{"GET", url + "/apis/example.com/v1/gadgets", "", 200, gadget},
		{"GET", url + "/apis/example.com/v1/gadgets?watch=1&timeoutSeconds=1", "", 200, gadget},
		{"PUT", url + "/apis/example.com/v1/gadgets/x", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"y"}}`, 400, gadget},
		{"GET", url + "/apis/example.com/v1alpha1/gadgets", "", 200, `299 - "example.com/v1alpha1 Gadget is deprecated; use example.com/v1beta1 Gadget"`},
		{"GET", url + "/apis/example.com/v1beta1/gadgets", "", 200, ""},
	} {
		r := do(t, tt.method, tt.url, tt.body, tt.code)
		if got := strings.Join(r.header.Values("Warning"), " | "); got != tt.warning {
			t.Errorf("%s %s: Warning %q; want %q", tt.method, tt.url, got, tt.warning)
		}
	}
	// The discovery documents carry none.
	if r := do(t, "GET", url+"/apis/example.com/v1alpha1", "", 200); r.header.Get("Warning") != "" {
		t.Errorf("discovery: Warning %q", r.header.Get("Warning"))
	}
}

// Without a rule compiler, a definition's rules are kept but not
// enforced: its create and updates say so in a Warning (our wording; a
// cluster always enforces them). With one, nothing is said.
func TestRulesNotEnforcedWarning(t *testing.T) {
	withRule := strings.Replace(widgetCRD(t), `"openAPIV3Schema":{`,
		`"openAPIV3Schema":{"x-kubernetes-validations":[{"rule":"self.size() > 0"}],`, 1)
	if withRule == widgetCRD(t) {
		t.Fatal("the test's definition has no rule")
	}
	for _, tt := range []struct {
		name    string
		opts    Options
		def     string
		warning string
	}{
		{"no compiler, rules", Options{}, withRule, `299 - "` + RulesNotEnforced + `"`},
		{"no compiler, no rules", Options{}, widgetCRD(t), ""},
		{"compiler, rules", Options{Rules: &stubRules{}}, withRule, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defs := tt.opts.Resource()
			s, err := server.New(server.Options{Resources: []*server.Resource{defs}})
			if err != nil {
				t.Fatal(err)
			}
			url := servertest.Start(t, s)
			c := tt.opts.Start(s, defs)
			t.Cleanup(c.Stop)
			r := do(t, "POST", url+crdsURL, tt.def, 201)
			if got := r.header.Get("Warning"); got != tt.warning {
				t.Errorf("create: Warning %q; want %q", got, tt.warning)
			}
			r = do(t, "PATCH", url+crdsURL+"/widgets.example.com", `{"metadata":{"labels":{"a":"b"}}}`, 200,
				"Content-Type", "application/merge-patch+json")
			if got := r.header.Get("Warning"); got != tt.warning {
				t.Errorf("update: Warning %q; want %q", got, tt.warning)
			}
		})
	}
}
