package server_test

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// Selfish is a Go type without a Schema that encodes itself, so the
// server derives no schema from it: server-side apply types its objects
// as any JSON (deduced), while decoding drops what the type lacks.
type Selfish struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            SelfishSpec `json:"spec"`
}

type SelfishSpec struct {
	Size  int           `json:"size,omitempty"`
	Items []SelfishItem `json:"items,omitempty"`
}

type SelfishItem struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

func (s *Selfish) MarshalJSON() ([]byte, error) {
	type plain Selfish // without this method
	return json.Marshal((*plain)(s))
}

func (s *Selfish) Types() *meta.TypeMeta { return &s.TypeMeta }

func (s *Selfish) DeepCopyObject() server.Object {
	out := *s
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Items = slices.Clone(s.Spec.Items)
	return &out
}

// Without a schema, an applied field the Go type lacks is what a POST's
// is: dropped, with a warning under Warn (the default), a 400 under
// Strict, silently under Ignore; as it was, an apply dropped it silently
// whatever fieldValidation said. (With a schema, of its own or derived,
// an apply is structured-merge-diff's 500, as on a cluster: see crd's and
// builtin's recorded answers.)
func TestApplyWithoutSchemaValidatesAsPOST(t *testing.T) {
	res := &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Selfish", ListKind: "SelfishList",
		Plural: "selfishes", Namespaced: true,
		New: func() server.Object { return &Selfish{} },
	}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}})
	coll := base + "/apis/demo.io/v1/namespaces/default/selfishes"
	const config = "apiVersion: demo.io/v1\nkind: Selfish\nmetadata:\n  name: NAME\nspec:\n  size: 2\n  items:\n  - name: a\n    value: x\n"
	for _, tt := range []struct {
		where, old, new, unknown string
	}{
		{"top level", "spec:\n", "extra: 1\nspec:\n", "extra"},
		{"in spec", "  size: 2\n", "  size: 2\n  extra: 1\n", "spec.extra"},
		{"in a list item", "    value: x\n", "    value: x\n    extra: 1\n", "spec.items[0].extra"},
		{"in metadata", "  name: NAME\n", "  name: NAME\n  extra: 1\n", "metadata.extra"},
	} {
		body := strings.Replace(config, tt.old, tt.new, 1)
		for _, fv := range []string{"", "Ignore", "Warn", "Strict"} {
			code, warnings := 201, []string{`299 - "unknown field \"` + strings.ReplaceAll(tt.unknown, `"`, `\"`) + `\""`}
			switch fv {
			case "Ignore":
				warnings = nil
			case "Strict":
				code, warnings = 400, nil
			}
			wantMessage := `Selfish in version "v1" cannot be handled as a Selfish: strict decoding error: unknown field "` + tt.unknown + `"`
			name := strings.ToLower(strings.ReplaceAll(tt.where, " ", "-")) + "-" + strings.ToLower(cmp.Or(fv, "unset"))
			b := strings.ReplaceAll(body, "NAME", name)
			q := "?fieldManager=m&fieldValidation=" + fv
			for _, step := range []struct {
				what, method, path, ct, body string
				code                         int
			}{
				{"POST", "POST", coll + q, "application/yaml", b, code},
				{"apply (create)", "PATCH", coll + "/" + name + "-apply" + q, "application/apply-patch+yaml", strings.ReplaceAll(b, name, name+"-apply"), code},
			} {
				r := servertest.Do(t, step.method, step.path, step.body, "Content-Type", step.ct)
				if r.Code != step.code || !slices.Equal(r.Header.Values("Warning"), warnings) {
					t.Errorf("%s %s fieldValidation=%s: %d %q %s; want %d %q", step.what, tt.where, fv, r.Code, r.Header.Values("Warning"), r.Body, step.code, warnings)
				}
				if code == 400 && !strings.Contains(r.Body, jsonString(wantMessage)) {
					t.Errorf("%s %s: %s; want message %s", step.what, tt.where, r.Body, wantMessage)
				}
				if code == 201 && strings.Contains(withoutManagedFields(t, r.Body), "extra") {
					t.Errorf("%s %s: stored %s; want extra dropped", step.what, tt.where, r.Body)
				}
				// Nobody owns a field that is not there.
				if code == 201 && strings.Contains(r.Body, "f:extra") {
					t.Errorf("%s %s: %s; want no manager of extra", step.what, tt.where, r.Body)
				}
			}
			// An apply to an object that exists validates the same.
			cfg := strings.ReplaceAll(config, "NAME", name+"-update")
			servertest.Do(t, "PATCH", coll+"/"+name+"-update?fieldManager=m", cfg, "Content-Type", "application/apply-patch+yaml")
			r := servertest.Do(t, "PATCH", coll+"/"+name+"-update"+q, strings.ReplaceAll(b, name, name+"-update"), "Content-Type", "application/apply-patch+yaml")
			want := code
			if code == 201 {
				want = 200
			}
			if r.Code != want || !slices.Equal(r.Header.Values("Warning"), warnings) {
				t.Errorf("apply (update) %s fieldValidation=%s: %d %q %s; want %d %q", tt.where, fv, r.Code, r.Header.Values("Warning"), r.Body, want, warnings)
			}
		}
	}
}

// withoutManagedFields is an object's JSON without its managedFields.
func withoutManagedFields(t *testing.T, body string) string {
	var o map[string]any
	if err := json.Unmarshal([]byte(body), &o); err != nil {
		t.Fatal(err)
	}
	if md, ok := o["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
