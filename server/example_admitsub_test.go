package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// A subresource that writes, as a Pod's eviction: Serve puts the object
// posted to it to admission, both phases, with the attributes of a
// create of gizmos/paint, then changes the gizmo with Server.Update as
// field manager "painter", which takes the color from its maker (who
// keeps the label). Admission refuses green paint, and annotates the
// audit event of what it admits.
func ExampleServer_AdmitMutating() {
	res := *gizmos
	res.Subresources = []server.Subresource{{
		Name: "paint", Verbs: []string{"create"},
		Serve: func(w http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
			ctx := r.Context()
			paint := &Gizmo{}
			if err := json.NewDecoder(r.Body).Decode(paint); err != nil {
				return status.NewBadRequest(err.Error())
			}
			a := server.Attributes{Operation: server.OperationCreate, Verb: "create", Resource: &res,
				Subresource: "paint", Namespace: req.Namespace, Name: req.Name}
			if err := req.Server.AdmitMutating(ctx, a, paint, nil); err != nil {
				return err
			}
			if err := req.Server.AdmitValidating(ctx, a, paint, nil); err != nil {
				return err
			}
			out, err := req.Server.Update(ctx, &res, "", req.Namespace, req.Name, "painter", false,
				func(cur server.Object) (server.Object, error) {
					g := cur.DeepCopyObject().(*Gizmo)
					g.Spec.Color = paint.Spec.Color
					return g, nil
				})
			if err != nil {
				return err
			}
			var managers []string
			for _, e := range out.Meta().ManagedFields {
				managers = append(managers, e.Manager)
			}
			fmt.Fprintf(w, "painted %s, fields managed by %s\n", out.(*Gizmo).Spec.Color, strings.Join(managers, ", "))
			return nil
		},
	}}
	admission := server.Admission{Validate: func(ctx context.Context, a server.Attributes, obj, _ server.Object) error {
		if a.Subresource != "paint" {
			return nil
		}
		_, _, kind := a.Kind()
		fmt.Println("admitting", a.Operation, a.Resource.Plural+"/"+a.Subresource, "of a", kind)
		if c := obj.(*Gizmo).Spec.Color; c == "green" {
			return status.NewForbidden(status.GroupResource{Group: "demo.io", Resource: "gizmos"}, a.Name, errors.New("no green paint"))
		}
		server.AddAuditAnnotation(ctx, "paint.demo.io/color", obj.(*Gizmo).Spec.Color)
		return nil
	}}
	audit := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &annotations{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			for _, a := range rec.notes {
				fmt.Println("audit:", a)
			}
		})
	}
	s, err := server.New(server.Options{Resources: []*server.Resource{&res}, Admission: admission,
		Hooks: server.HookOptions{Audit: audit}})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp, err := http.Post(ts.URL+"/apis/demo.io/v1/namespaces/default/gizmos?fieldManager=maker", "application/json",
		strings.NewReader(`{"metadata":{"name":"g","labels":{"made":"yes"}},"spec":{"color":"red"}}`))
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	for _, color := range []string{"blue", "green"} {
		resp, err := http.Post(ts.URL+"/apis/demo.io/v1/namespaces/default/gizmos/g/paint", "application/json",
			strings.NewReader(`{"spec":{"color":"`+color+`"}}`))
		if err != nil {
			panic(err)
		}
		var b strings.Builder
		fmt.Fprint(&b, resp.StatusCode, " ")
		var st status.Status
		if resp.StatusCode != 200 && json.NewDecoder(resp.Body).Decode(&st) == nil {
			fmt.Fprint(&b, st.Message)
		} else {
			buf := make([]byte, 100)
			n, _ := resp.Body.Read(buf)
			fmt.Fprint(&b, strings.TrimSpace(string(buf[:n])))
		}
		resp.Body.Close()
		fmt.Println(b.String())
	}
	// Output:
	// admitting CREATE gizmos/paint of a Gizmo
	// audit: paint.demo.io/color=blue
	// 200 painted blue, fields managed by maker, painter
	// admitting CREATE gizmos/paint of a Gizmo
	// audit: status Failure Forbidden 403
	// 403 gizmos.demo.io "g" is forbidden: no green paint
}

// annotations is an audit hook's recorder (server.AuditRecorder): it
// notes the annotations and Status the server tells it.
type annotations struct {
	http.ResponseWriter
	notes []string
}

func (a *annotations) AuditAnnotation(k, v string) { a.notes = append(a.notes, k+"="+v) }
func (a *annotations) AuditStatus(st *status.Status) {
	a.notes = append(a.notes, fmt.Sprintf("status %s %s %d", st.Status, st.Reason, st.Code))
}
