package crd

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// stubRules is a schema.RuleCompiler that refuses schemas with a rule "bad",
// fails to compile those with a rule "uncompilable" (which Check passes,
// as a definition stored by a server with other limits), and whose
// validators refuse objects whose spec.color is "green", and records
// what they were given.
type stubRules struct {
	mu       sync.Mutex
	seen     []string // "obj name/old name" of each Validate
	compiled int      // calls of Compile
}

func (r *stubRules) Check(path string, root *schema.JSONSchemaProps) []status.FieldError {
	var errs []status.FieldError
	schema.Walk(root, func(s *schema.JSONSchemaProps) {
		for _, v := range s.XValidations {
			if v.Rule == "bad" {
				errs = append(errs, status.InvalidValue(path+".x-kubernetes-validations[0].rule", v.Rule, "compilation failed"))
			}
		}
	})
	return errs
}

func (r *stubRules) Compile(root *schema.JSONSchemaProps) (schema.RuleValidator, error) {
	r.mu.Lock()
	r.compiled++
	r.mu.Unlock()
	var err error
	schema.Walk(root, func(s *schema.JSONSchemaProps) {
		for _, v := range s.XValidations {
			if v.Rule == "uncompilable" {
				err = errors.New("too much work")
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return stubValidator{r}, nil
}

func (r *stubRules) compilations() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.compiled
}

type stubValidator struct{ r *stubRules }

func (v stubValidator) Validate(obj, old map[string]any) []status.FieldError {
	name := func(o map[string]any) string {
		if o == nil {
			return "<none>"
		}
		m, _ := o["metadata"].(map[string]any)
		n, _ := m["name"].(string)
		k, _ := o["kind"].(string)
		return n + "," + k
	}
	seen := name(obj) + "/" + name(old)
	v.r.mu.Lock()
	v.r.seen = append(v.r.seen, seen)
	v.r.mu.Unlock()
	if spec, _ := obj["spec"].(map[string]any); spec["color"] == "green" {
		return []status.FieldError{status.InvalidValue("spec", status.OmitValue, "no green")}
	}
	return nil
}

// Options.Rules is consulted for definitions (their rules' errors are a
// 422) and for objects, whose rules run only when the schema found no
// blocking error.
func TestRules(t *testing.T) {
	rules := &stubRules{}
	opts := Options{Rules: rules}
	defs := opts.Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}, Rand: rand.NewChaCha8([32]byte{1})})
	if err != nil {
		t.Fatal(err)
	}
	c := opts.Start(s, defs)
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		c.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		hs.Close()
	})

	withRule := func(rule string) string {
		return strings.Replace(widgetCRD(t), `"openAPIV3Schema":{`,
			`"openAPIV3Schema":{"x-kubernetes-validations":[{"rule":"`+rule+`"}],`, 1)
	}
	bad := withRule("bad")
	if !strings.Contains(bad, "x-kubernetes-validations") {
		t.Fatal("the test's definition has no rule")
	}
	r := do(t, "POST", hs.URL+crdsURL, bad, 422)
	// One version: Kubernetes reports its schema at spec.validation.
	if !strings.Contains(r.body, `spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: \"bad\": compilation failed`) {
		t.Errorf("bad rule: %s", r.body)
	}
	list, err := Parse([]byte(withRule("good")))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Install(context.Background(), list...); err != nil {
		t.Fatal(err)
	}
	// Served, yet compiled only when an object is written.
	if n := rules.compilations(); n != 0 {
		t.Errorf("rules compiled %d times by the installation; want 0", n)
	}

	tests := []struct {
		name, method, url, body string
		code                    int
		want                    string
	}{
		{"valid", "POST", widgetsURL, `{"metadata":{"name":"w1"},"spec":{"color":"red"}}`, 201, ""},
		{"rule fails", "POST", widgetsURL, `{"metadata":{"name":"w2"},"spec":{"color":"green"}}`, 422,
			`"message":"Widget.example.com \"w2\" is invalid: spec: Invalid value: no green"`},
		{"blocking error", "POST", widgetsURL, `{"metadata":{"name":"w3"},"spec":{"color":"pink"}}`, 422,
			`\u003cnil\u003e: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`},
		{"update sees old", "PATCH", widgetsURL + "/w1", `{"spec":{"color":"blue"}}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.method == "PATCH" {
				hdr = []string{"Content-Type", "application/merge-patch+json"}
			}
			r := do(t, tt.method, hs.URL+tt.url, tt.body, tt.code, hdr...)
			if !strings.Contains(r.body, tt.want) {
				t.Errorf("body %s; want %s", r.body, tt.want)
			}
		})
	}
	if n := rules.compilations(); n != 1 {
		t.Errorf("rules compiled %d times by the writes; want once", n)
	}
	rules.mu.Lock()
	defer rules.mu.Unlock()
	want := []string{"w1,Widget/<none>", "w2,Widget/<none>", "w1,Widget/w1,Widget"}
	if strings.Join(rules.seen, " ") != strings.Join(want, " ") {
		t.Errorf("validators saw %v; want %v", rules.seen, want)
	}
}

// A definition whose rules do not compile (stored by a server with other
// limits: Check passed them) is served, and each write of its objects
// fails with the compiler's error, as Kubernetes reports a rule's
// compilation error on every object it applies to.
func TestRulesUncompilable(t *testing.T) {
	rules := &stubRules{}
	opts := Options{Rules: rules}
	defs := opts.Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}})
	if err != nil {
		t.Fatal(err)
	}
	c := opts.Start(s, defs)
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		c.Stop()
		if err := s.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		hs.Close()
	})
	list, err := Parse([]byte(strings.Replace(widgetCRD(t), `"openAPIV3Schema":{`,
		`"openAPIV3Schema":{"x-kubernetes-validations":[{"rule":"uncompilable"}],`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard
	defer cancel()
	if err := c.Install(ctx, list...); err != nil {
		t.Fatal(err) // installed, not Established for a compilation error
	}
	for range 2 {
		r := do(t, "POST", hs.URL+widgetsURL, `{"metadata":{"name":"w1"},"spec":{"color":"red"}}`, 422)
		const want = `\u003cnil\u003e: Internal error: compiling the validation rules: spec.versions[0].schema.openAPIV3Schema: too much work`
		if !strings.Contains(r.body, want) {
			t.Errorf("body %s; want %s", r.body, want)
		}
	}
	if n := rules.compilations(); n != 1 {
		t.Errorf("rules compiled %d times; want once", n)
	}
}

// A definition's rules check a schema shared by every version once, at the path
// Kubernetes reports it (spec.validation), and differing schemas each at
// their version's path; on update, only schemas that changed.
func TestCheckRulesPaths(t *testing.T) {
	schema := func(rule string) *CustomResourceValidation {
		return &CustomResourceValidation{OpenAPIV3Schema: &schema.JSONSchemaProps{Type: "object",
			XValidations: []schema.ValidationRule{{Rule: rule}}}}
	}
	def := func(schemas ...*CustomResourceValidation) *CustomResourceDefinition {
		c := &CustomResourceDefinition{}
		for i, s := range schemas {
			c.Spec.Versions = append(c.Spec.Versions, CustomResourceDefinitionVersion{Name: "v" + strconv.Itoa(i+1), Schema: s})
		}
		return c
	}
	const (
		top = "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule"
		v1  = "spec.versions[0].schema.openAPIV3Schema.x-kubernetes-validations[0].rule"
		v3  = "spec.versions[2].schema.openAPIV3Schema.x-kubernetes-validations[0].rule"
	)
	tests := []struct {
		name     string
		def, old *CustomResourceDefinition
		want     []string
	}{
		{"one version", def(schema("bad")), nil, []string{top}},
		{"same schemas", def(schema("bad"), schema("bad")), nil, []string{top}},
		{"different schemas", def(schema("bad"), schema("good"), schema("bad")), nil, []string{v1, v3}},
		{"one without schema", def(schema("bad"), nil), nil, []string{v1}},
		{"none", def(nil, nil), nil, nil},
		{"unchanged", def(schema("bad")), def(schema("bad")), nil},
		{"changed", def(schema("bad")), def(schema("good")), []string{top}},
		{"version added", def(schema("bad"), schema("bad")), def(schema("bad")), []string{top}},
		{"one version changed", def(schema("bad"), schema("good"), schema("bad")), def(schema("bad"), schema("good"), schema("good")), []string{v3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range definitionErrors(&stubRules{}, tt.def, tt.old) {
				if strings.Contains(e.Field, "x-kubernetes-validations") {
					got = append(got, e.Field)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("paths %q; want %q", got, tt.want)
			}
		})
	}
}
