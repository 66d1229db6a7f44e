package selector_test

import (
	"fmt"

	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store/selector"
)

func Example() {
	labels, err := selector.ParseLabels("app in (web, shop), tier!=cache, !legacy")
	if err != nil {
		panic(err)
	}
	fmt.Println(labels.Matches(map[string]string{"app": "web", "tier": "front"}))
	fmt.Println(labels.Matches(map[string]string{"app": "web", "tier": "cache"}))
	fmt.Println(labels.Matches(map[string]string{"app": "shop", "legacy": "yes"}))

	fields, _ := selector.ParseFields("metadata.name=settings,metadata.namespace!=kube-system")
	name, exact := fields.RequiresExactMatch("metadata.name")
	fmt.Println(name, exact)
	get := map[string]string{"metadata.name": "settings", "metadata.namespace": "default"}
	fmt.Println(fields.Matches(func(f string) string { return get[f] }))

	_, err = selector.ParseLabels("app in (web")
	fmt.Println(status.IsBadRequest(err))
	// Output:
	// true
	// false
	// false
	// settings true
	// true
	// true
}
