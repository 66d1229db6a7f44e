package audit_test

import (
	"context"
	"testing"
	"time"

	"github.com/apisem/apisem/audit"
	"github.com/apisem/apisem/server"
)

// An admission hook's annotations (server.AddAuditAnnotation) are in the
// events of the stages after admission, ResponseComplete, beside the
// authorizer's, and not in RequestReceived, as kube-apiserver logs them;
// a key keeps its first value.
func TestAdmissionAnnotations(t *testing.T) {
	p, err := audit.ParsePolicy([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"))
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	f, err := audit.New(audit.Options{Policy: p, Backend: audit.NewLogBackend(log),
		Now: func() time.Time { return time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC) }, NewID: func() string { return "id" }})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{configMaps},
		Security:  referenceSecurity(),
		Hooks:     server.HookOptions{Audit: f.Wrap},
		Admission: server.Admission{Validate: func(ctx context.Context, a server.Attributes, obj, _ server.Object) error {
			server.AddAuditAnnotation(ctx, "example.com/name", obj.Meta().Name)
			server.AddAuditAnnotation(ctx, "example.com/name", "again")
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	if w := serve(s, "POST", "/api/v1/namespaces/default/configmaps", "application/json", `{"metadata":{"name":"a"}}`); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	evs := events(t, log)
	if len(evs) != 2 {
		t.Fatalf("%d events, want 2: %s", len(evs), log)
	}
	if evs[0].Stage != audit.StageRequestReceived || len(evs[0].Annotations) != 0 {
		t.Errorf("RequestReceived: %+v", evs[0].Annotations)
	}
	got := evs[1].Annotations
	if evs[1].Stage != audit.StageResponseComplete || got["example.com/name"] != "a" || got[server.AnnotationDecision] != "allow" || len(got) != 3 {
		t.Errorf("%s: %+v", evs[1].Stage, got)
	}
}
