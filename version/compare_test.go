package version

import (
	"slices"
	"testing"
)

// Compare orders versions as Kubernetes' version priority
// (k8s.io/apimachinery/pkg/version's tests list the same order).
func TestCompare(t *testing.T) {
	want := []string{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1", "v11alpha2",
		"foo1", "foo10", "v1beta", "v1beta1x", "v1gamma1", "v99999999999999999999", "version1"}
	got := slices.Clone(want)
	for i := range got { // a fixed shuffle
		j := (i*7 + 3) % len(got)
		got[i], got[j] = got[j], got[i]
	}
	slices.SortStableFunc(got, func(a, b string) int { return Compare(b, a) })
	if !slices.Equal(got, want) {
		t.Errorf("sorted = %q\nwant %q", got, want)
	}
}
