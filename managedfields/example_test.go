package managedfields_test

import (
	"fmt"
	"time"

	"github.com/apisem/apisem/managedfields"
)

// A create records its fields for its manager; an apply by another
// manager that would change one of them is a conflict until forced.
func Example() {
	f := managedfields.New(managedfields.Options{APIVersion: "example.com/v1", Kind: "Widget"})
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	created := map[string]any{"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"color": "red"}}
	entries, _ := f.Update(nil, created, nil, nil, managedfields.Operation{Manager: "kubectl-create", Time: now})
	fmt.Println(entries[0].Manager, entries[0].Operation, string(entries[0].FieldsV1.Raw))

	live := map[string]any{"metadata": map[string]any{"name": "w", "uid": "1"}, "spec": map[string]any{"color": "red"}}
	config := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"color": "blue"}}
	_, _, err := f.Apply(live, entries, config, managedfields.Operation{Manager: "ops", Time: now}, false)
	fmt.Println(err)

	merged, entries, _ := f.Apply(live, entries, config, managedfields.Operation{Manager: "ops", Time: now}, true)
	fmt.Println(merged["spec"])
	for _, e := range entries {
		fmt.Println(e.Manager, e.Operation, string(e.FieldsV1.Raw))
	}
	// Output:
	// kubectl-create Update {"f:spec":{".":{},"f:color":{}}}
	// Apply failed with 1 conflict: conflict with "kubectl-create" using example.com/v1: .spec.color
	// map[color:blue]
	// ops Apply {"f:spec":{".":{},"f:color":{}}}
	// kubectl-create Update {"f:spec":{}}
}
