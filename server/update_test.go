package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Server.Update writes through the pipeline as a client of the field
// manager it names: admission sees an UPDATE by ctx's user, the entry is
// that manager's, and a refusal or an error of change ends it. As a
// request of its own, its admission's warnings and audit annotations do
// not reach the response of the request it is made in.
func TestServerUpdate(t *testing.T) {
	var seen []string
	adm := server.Admission{Validate: func(ctx context.Context, a server.Attributes, obj, _ server.Object) error {
		if a.Operation != server.OperationUpdate {
			return nil
		}
		seen = append(seen, string(a.Operation)+" "+a.Verb+" "+a.Subresource+" by "+a.User.Name)
		server.AddWarning(ctx, "inner warning")
		server.AddAuditAnnotation(ctx, "inner.example.com/key", "v")
		if obj.(*Gizmo).Spec.Color == "blue" {
			return status.NewForbidden(status.GroupResource{Group: "demo.io", Resource: "gizmos"}, a.Name, errors.New("no blue"))
		}
		return nil
	}}
	var last *auditWriter
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			last = &auditWriter{ResponseWriter: w}
			next.ServeHTTP(last, r)
		})
	}
	res := *gizmos
	var updated server.Object
	var updateErr error
	res.Subresources = []server.Subresource{{Name: "paint", Verbs: []string{"create"},
		Serve: func(w http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
			color := r.URL.Query().Get("color")
			ctx := auth.WithUser(r.Context(), auth.User{Name: "painter-user"})
			updated, updateErr = req.Server.Update(ctx, &res, "", req.Namespace, req.Name, "painter", false,
				func(cur server.Object) (server.Object, error) {
					if color == "" {
						return nil, status.NewBadRequest("no color")
					}
					g := cur.DeepCopyObject().(*Gizmo)
					if color != "keep" {
						g.Spec.Color = color
					}
					return g, nil
				})
			w.WriteHeader(http.StatusNoContent)
			return nil
		}}}
	s, err := server.New(server.Options{Resources: []*server.Resource{&res}, Admission: adm,
		Hooks: server.HookOptions{Audit: hook}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	post := func(path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "/apis/demo.io/v1/namespaces/default/gizmos"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(rec, req)
		return rec
	}
	if rec := post("?fieldManager=maker", `{"metadata":{"name":"g","labels":{"a":"1"}}}`); rec.Code != 201 {
		t.Fatalf("create: %d %s", rec.Code, rec.Body)
	}

	rec := post("/g/paint?color=keep", "") // changes nothing
	if updateErr != nil || len(updated.Meta().ManagedFields) != 1 {
		t.Errorf("an update that changes nothing: %v, %+v", updateErr, updated)
	}
	rec = post("/g/paint?color=blue", "")
	if !status.IsForbidden(updateErr) {
		t.Errorf("refused by admission: %v", updateErr)
	}
	rec = post("/g/paint", "")
	if !status.IsBadRequest(updateErr) {
		t.Errorf("change's error: %v", updateErr)
	}
	rec = post("/g/paint?color=red", "")
	if updateErr != nil {
		t.Fatal(updateErr)
	}
	var managers []string
	for _, e := range updated.Meta().ManagedFields {
		managers = append(managers, e.Manager+" "+string(e.Operation))
	}
	if got := strings.Join(managers, ", "); got != "maker Update, painter Update" || updated.(*Gizmo).Spec.Color != "red" {
		t.Errorf("managers %q, color %q", got, updated.(*Gizmo).Spec.Color)
	}
	if w := rec.Header().Values("Warning"); len(w) != 0 {
		t.Errorf("the outer response has the warnings %q", w)
	}
	for _, n := range last.notes {
		if strings.HasPrefix(n, "inner") {
			t.Errorf("the outer audit event has %q", n)
		}
	}
	if got := strings.Join(seen, "; "); got != "UPDATE update  by painter-user; UPDATE update  by painter-user; UPDATE update  by painter-user" {
		t.Errorf("admission saw %q", got)
	}

	if _, err := s.Update(context.Background(), &server.Resource{}, "", "default", "g", "x", false, nil); err == nil {
		t.Error("Update of a resource not served: no error")
	}
	if _, err := s.Update(context.Background(), &res, "scale", "default", "g", "x", false, nil); err == nil {
		t.Error("Update of the scale subresource: no error")
	}
}
