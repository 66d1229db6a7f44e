package builtin

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/table"
)

// A stored object's age is printed at each request's time: the cells of
// a row printed once are not given again at a later time.
func TestAgeAtEachRequest(t *testing.T) {
	res, err := Resources(Options{Groups: []string{"resource.k8s.io"}})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range res {
		o := r.New()
		o.Meta().Name = "x"
		o.Meta().CreationTimestamp = meta.NewTime(created)
		var age *table.Column
		for i := range r.Columns {
			if r.Columns[i].Name == "Age" {
				age = &r.Columns[i]
			}
		}
		if age == nil {
			t.Errorf("%s: no Age column", r.Kind)
			continue
		}
		for _, tc := range []struct {
			after time.Duration
			want  string
		}{{5 * time.Second, "5s"}, {3 * time.Minute, "3m"}, {50 * time.Hour, "2d2h"}} {
			if got := age.Cell(o, created.Add(tc.after)); got != tc.want {
				t.Errorf("%s after %v: age %v, want %s", r.Kind, tc.after, got, tc.want)
			}
		}
	}
}

// A ResourceClaim's allocation is written through its status, which
// the status strategy lets the writer do (kube-apiserver asks its
// authorizer about resourceclaims/binding: here every writer may), and
// printed as the reference cluster prints it.
func TestResourceClaimAllocation(t *testing.T) {
	res, err := Resources(Options{Groups: []string{"resource.k8s.io"}})
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: res})
	claims := url + "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
	r := servertest.Do(t, "POST", claims, `{"metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}}}`,
		"Content-Type", "application/json")
	if r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	r = servertest.Do(t, "PATCH", claims+"/c/status",
		`{"status":{"allocation":{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"p","device":"gpu-0"}]}},`+
			`"reservedFor":[{"resource":"pods","name":"p","uid":"0b0e6a0e-0000-4000-8000-000000000001"}]}}`,
		"Content-Type", "application/merge-patch+json")
	if r.Code != 200 {
		t.Fatalf("status patch: %d %s", r.Code, r.Body)
	}
	r = servertest.Do(t, "GET", claims+"/c", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var table metav1.Table
	if err := json.Unmarshal([]byte(r.Body), &table); err != nil || len(table.Rows) != 1 {
		t.Fatalf("GET as Table: %d %s", r.Code, r.Body)
	}
	if got := table.Rows[0].Cells[1]; got != "allocated,reserved" {
		t.Errorf("STATE %v, want allocated,reserved", got)
	}
}
