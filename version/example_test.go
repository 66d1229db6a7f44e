package version_test

import (
	"fmt"
	"slices"

	"github.com/apisem/apisem/version"
)

// Versions sort by Kubernetes' version priority, as discovery lists a
// group's versions: GA before beta before alpha, then by number; other
// names last.
func ExampleCompare() {
	vs := []string{"v1alpha1", "foo", "v1beta1", "v2", "v1", "v1beta2", "v10beta1"}
	slices.SortFunc(vs, func(a, b string) int { return version.Compare(b, a) })
	fmt.Println(vs)
	// Output: [v2 v1 v10beta1 v1beta2 v1beta1 v1alpha1 foo]
}
