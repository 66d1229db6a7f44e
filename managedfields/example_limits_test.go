package managedfields_test

import (
	"fmt"
	"strconv"

	"github.com/apisem/apisem/managedfields"
)

// A server checks an applied configuration against its object size limit
// before the merge: 100,000 keys do not fit in 1.5 MiB once the manager's
// managedFields entry lists them all.
func ExampleFieldManager_CheckApplySize() {
	f := managedfields.New(managedfields.Options{APIVersion: "v1", Kind: "ConfigMap"})
	data := map[string]any{}
	for i := range 100000 {
		data["k"+strconv.Itoa(i)] = "v"
	}
	config := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "big"}, "data": data}
	fmt.Println(f.CheckApplySize(config, "", 0))
	fmt.Println(f.CheckApplySize(config, "", 4<<20))
	// Output:
	// etcdserver: request is too large
	// <nil>
}
