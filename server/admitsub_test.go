package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
)

// Attributes.Kind is a Subresource's kind where it has one (its group and
// version, or the resource's), the Scale of the scale subresource, else
// the resource's; AdmitMutating runs Resource.Admit, Check and Mutate
// (not Mutate for a deletion), AdmitValidating Validate.
func TestAdmitSubresource(t *testing.T) {
	res := *gizmos
	res.Scale = &server.ScaleSubresource{SpecReplicasPath: ".spec.replicas"}
	res.Subresources = []server.Subresource{
		{Name: "evict", Group: "policy", Version: "v1", Kind: "Eviction", Verbs: []string{"create"}},
		{Name: "bind", Kind: "Binding", Verbs: []string{"create"}},
		{Name: "log", Verbs: []string{"get"}},
	}
	for sub, want := range map[string]string{
		"evict": "policy/v1/Eviction", "bind": "demo.io/v1/Binding", "log": "demo.io/v1/Gizmo",
		"scale": "autoscaling/v1/Scale", "status": "demo.io/v1/Gizmo", "": "demo.io/v1/Gizmo",
	} {
		g, v, k := server.Attributes{Resource: &res, Subresource: sub}.Kind()
		if got := g + "/" + v + "/" + k; got != want {
			t.Errorf("Kind of %q: %s, want %s", sub, got, want)
		}
	}

	var calls []string
	note := func(phase string) server.AdmitFunc {
		return func(_ context.Context, a server.Attributes, _, _ server.Object) error {
			calls = append(calls, phase+" "+string(a.Operation))
			return nil
		}
	}
	res.Admit = note("admit")
	s, err := server.New(server.Options{Resources: []*server.Resource{&res},
		Admission: server.Admission{Check: note("check"), Mutate: note("mutate"), Validate: note("validate")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	ctx := context.Background()
	g := &Gizmo{}
	for _, op := range []server.Operation{server.OperationCreate, server.OperationDelete} {
		a := server.Attributes{Operation: op, Resource: &res, Subresource: "evict", Namespace: "default", Name: "g"}
		if err := s.AdmitMutating(ctx, a, g, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.AdmitValidating(ctx, a, g, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(calls, ", "), "admit CREATE, check CREATE, mutate CREATE, validate CREATE, admit DELETE, validate DELETE"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
}
