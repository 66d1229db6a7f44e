package server_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/status"
)

// Resource.Admit is asked about every write of the resource's objects,
// with the attributes Options.Admission gets, ahead of it and of
// validation; its error refuses the write as it is.
func TestResourceAdmit(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	res := &server.Resource{
		Group: "demo.io", Version: "v1", Kind: "Counted", ListKind: "CountedList",
		Plural: "counteds", Namespaced: true, StatusSubresource: true, Scale: countedScale,
		New: func() server.Object { return &Counted{} },
		Validate: func(o, _ server.Object) []status.FieldError {
			if o.(*Counted).Spec["valid"] == "no" {
				return []status.FieldError{status.InvalidValue("spec.valid", "no", "must not be no")}
			}
			return nil
		},
		Admit: func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
			line := fmt.Sprintf("%s %s %s %q dryRun=%v obj=%v old=%v", a.Operation, a.Verb, a.Subresource, a.Name, a.DryRun, obj != nil, old != nil)
			if obj != nil {
				c := obj.(*Counted)
				line += fmt.Sprintf(" spec=%v status=%v", c.Spec, c.Status)
			}
			mu.Lock()
			seen = append(seen, line)
			mu.Unlock()
			switch {
			case obj != nil && obj.Meta().Labels["refuse"] != "":
				return status.NewForbidden(status.GroupResource{Group: "demo.io", Resource: "counteds"}, a.Name, errors.New("refused"))
			case old != nil && old.Meta().Labels["keep"] != "" && a.Operation == server.OperationDelete:
				return status.NewForbidden(status.GroupResource{Group: "demo.io", Resource: "counteds"}, a.Name, errors.New("kept"))
			}
			return nil
		},
	}
	_, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}})
	url := base + "/apis/demo.io/v1/namespaces/ns/counteds"
	for _, tt := range []struct {
		method, path, ct, body string
		code                   int
		seen                   string // "" for none
	}{
		{"POST", "", "application/json", `{"metadata":{"name":"c","labels":{"keep":"1"}},"spec":{"replicas":"1"},"status":{"s":"dropped"}}`, 201,
			`CREATE create  "c" dryRun=false obj=true old=false spec=map[replicas:1] status=map[]`},
		{"POST", "?dryRun=All", "application/json", `{"metadata":{"generateName":"d-"}}`, 201,
			`CREATE create  "" dryRun=true obj=true old=false spec=map[] status=map[]`},
		{"POST", "", "application/json", `{"metadata":{"name":"r","labels":{"refuse":"1"}},"spec":{"valid":"no"}}`, 403,
			`CREATE create  "r" dryRun=false obj=true old=false spec=map[valid:no] status=map[]`},
		{"PUT", "/c", "application/json", `{"metadata":{"name":"c","labels":{"keep":"1"}},"spec":{"replicas":"2"},"status":{"s":"kept out"}}`, 200,
			`UPDATE update  "c" dryRun=false obj=true old=true spec=map[replicas:2] status=map[]`},
		{"PATCH", "/c", "application/merge-patch+json", `{"metadata":{"labels":{"refuse":"1"}},"spec":{"valid":"no"}}`, 403,
			`UPDATE patch  "c" dryRun=false obj=true old=true spec=map[replicas:2 valid:no] status=map[]`},
		{"PATCH", "/c/status", "application/merge-patch+json", `{"status":{"s":"1"}}`, 200,
			`UPDATE patch status "c" dryRun=false obj=true old=true spec=map[replicas:2] status=map[s:1]`},
		{"PUT", "/c/scale", "application/json", `{"metadata":{"name":"c"},"spec":{"replicas":3}}`, 200,
			`UPDATE update scale "c" dryRun=false obj=true old=true spec=map[replicas:3] status=map[s:1]`},
		{"PATCH", "/a?fieldManager=m", "application/apply-patch+yaml", "apiVersion: demo.io/v1\nkind: Counted\nmetadata:\n  name: a\nspec:\n  x: \"1\"\n", 201,
			`CREATE patch  "a" dryRun=false obj=true old=false spec=map[x:1] status=map[]`},
		{"DELETE", "/c", "", "", 403, `DELETE delete  "c" dryRun=false obj=false old=true`},
		{"DELETE", "/a", "", "", 200, `DELETE delete  "a" dryRun=false obj=false old=true`},
		{"DELETE", "", "", "", 403, `DELETE deletecollection  "c" dryRun=false obj=false old=true`},
		{"GET", "/c", "", "", 200, ""},
	} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		r := servertest.Do(t, tt.method, url+tt.path, tt.body, "Content-Type", tt.ct)
		mu.Lock()
		got := slices.Clone(seen)
		mu.Unlock()
		if r.Code != tt.code {
			t.Errorf("%s %s: %d %s; want %d", tt.method, tt.path, r.Code, r.Body, tt.code)
		}
		var want []string
		if tt.seen != "" {
			want = []string{tt.seen}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s %s: Admit saw\n%q\nwant\n%q", tt.method, tt.path, got, want)
		}
	}
}

// Options.Admission.Check refuses creates and updates before validation,
// as Mutate would, but costs the write no second encoding, where a Mutate
// hook, which may change anything, does; deletions do not go through it.
func TestAdmissionCheck(t *testing.T) {
	var mu sync.Mutex
	var ops []string
	refuse := func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		mu.Lock()
		ops = append(ops, string(a.Operation))
		mu.Unlock()
		if obj.Meta().Labels["refuse"] != "" {
			return status.NewForbidden(status.GroupResource{Group: "demo.io", Resource: "counteds"}, a.Name, errors.New("refused"))
		}
		return nil
	}
	for _, tt := range []struct {
		name      string
		admission server.Admission
		encodings int64
	}{
		{"Check", server.Admission{Check: refuse}, 1},
		{"Mutate", server.Admission{Mutate: refuse}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &server.Resource{
				Group: "demo.io", Version: "v1", Kind: "Counted", ListKind: "CountedList",
				Plural: "counteds", Namespaced: true, New: func() server.Object { return &Counted{} },
				Validate: func(o, _ server.Object) []status.FieldError {
					if o.Meta().Labels["invalid"] != "" {
						return []status.FieldError{status.Required("spec", "invalid")}
					}
					return nil
				},
			}
			_, base := servertest.New(t, server.Options{Resources: []*server.Resource{res}, Admission: tt.admission})
			url := base + "/apis/demo.io/v1/namespaces/ns/counteds"
			// The first write makes the resource's field manager, which
			// encodes an empty object once.
			if r := servertest.Do(t, "POST", url, `{"metadata":{"name":"first"}}`, "Content-Type", "application/json"); r.Code != 201 {
				t.Fatalf("create: %d %s", r.Code, r.Body)
			}
			if r := servertest.Do(t, "POST", url, `{"metadata":{"name":"c","labels":{"refuse":"1","invalid":"1"}}}`, "Content-Type", "application/json"); r.Code != 403 {
				t.Errorf("refused create: %d %s; want 403 before validation", r.Code, r.Body)
			}
			mu.Lock()
			ops = nil
			mu.Unlock()
			marshals.Store(0)
			if r := servertest.Do(t, "POST", url+"?fieldManager=m", `{"metadata":{"name":"c"}}`, "Content-Type", "application/json"); r.Code != 201 {
				t.Fatalf("create: %d %s", r.Code, r.Body)
			}
			if n := marshals.Load(); n != tt.encodings {
				t.Errorf("create encoded the object %d times; want %d", n, tt.encodings)
			}
			if r := servertest.Do(t, "DELETE", url+"/c", ""); r.Code != 200 {
				t.Errorf("DELETE: %d %s", r.Code, r.Body)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"CREATE"}; !slices.Equal(ops, want) {
				t.Errorf("the hook saw %v; want %v", ops, want)
			}
		})
	}
}
