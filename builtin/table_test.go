package builtin

import (
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
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
		var age *server.Column
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
