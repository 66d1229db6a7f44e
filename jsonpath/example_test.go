package jsonpath_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/apisem/apisem/jsonpath"
)

func Example() {
	var pod any
	_ = json.Unmarshal([]byte(`{
	  "metadata": {"name": "web"},
	  "spec": {"containers": [{"name": "app"}, {"name": "proxy"}]},
	  "status": {"conditions": [{"type": "Ready", "status": "True"}]}
	}`), &pod)

	// A printer column's path, as a cluster evaluates it: in braces,
	// missing members allowed, the first value of the first action.
	col, err := jsonpath.Parse(`{.status.conditions[?(@.type=="Ready")].status}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	results, _ := col.FindResults(pod, jsonpath.Options{AllowMissingKeys: true})
	fmt.Println(results[0][0])

	// kubectl get -o jsonpath=...
	t, _ := jsonpath.Parse(`{.metadata.name}: {range .spec.containers[*]}[{.name}]{end}` + "\n")
	_ = t.Execute(os.Stdout, pod, jsonpath.Options{})
	// Output:
	// True
	// web: [app][proxy]
}
