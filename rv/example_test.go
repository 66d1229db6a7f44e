package rv_test

import (
	"errors"
	"fmt"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// Example walks a few requests from query to decision, the way an HTTP
// handler would.
func Example() {
	for _, query := range []string{
		"limit=500&resourceVersion=123&resourceVersionMatch=NotOlderThan",
		"limit=500&resourceVersion=123",
		"limit=500&continue=eyJydiI6MTIzfQ&resourceVersion=0",
		"limit=500&continue=eyJydiI6MTIzfQ&resourceVersion=123",
		"resourceVersionMatch=Exact",
		"watch=1&allowWatchBookmarks=true",
		"watch=1&allowWatchBookmarks=true&resourceVersion=123&timeoutSeconds=300",
		"watch=1&sendInitialEvents=true",
		"limit=ten",
	} {
		fmt.Printf("?%s\n\t", query)
		o, err := rv.ParseQuery(query)
		if err != nil {
			fmt.Println(describe(err))
			continue
		}
		if o.Watch {
			w, err := o.ResolveWatch(rv.Config{})
			if err != nil {
				fmt.Println(describe(err))
				continue
			}
			fmt.Printf("%v %d initialEvents=%v endBookmark=%v bookmarks=%v timeout=%v\n",
				w.Start, w.Version, w.InitialEvents, w.EndBookmark, w.Bookmarks, w.Timeout)
			continue
		}
		r, err := o.ResolveList()
		if err != nil {
			fmt.Println(describe(err))
			continue
		}
		fmt.Printf("%v %d limit=%d continue=%q\n", r.Semantics, r.Version, r.Limit, r.Continue)
	}
	// Output:
	// ?limit=500&resourceVersion=123&resourceVersionMatch=NotOlderThan
	// 	NotOlderThan 123 limit=500 continue=""
	// ?limit=500&resourceVersion=123
	// 	Exact 123 limit=500 continue=""
	// ?limit=500&continue=eyJydiI6MTIzfQ&resourceVersion=0
	// 	ContinueExact 0 limit=500 continue="eyJydiI6MTIzfQ"
	// ?limit=500&continue=eyJydiI6MTIzfQ&resourceVersion=123
	// 	400 BadRequest: specifying resource version is not allowed when using continue
	// ?resourceVersionMatch=Exact
	// 	422 Invalid: ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided
	// ?watch=1&allowWatchBookmarks=true
	// 	StartMostRecent 0 initialEvents=true endBookmark=true bookmarks=true timeout=0s
	// ?watch=1&allowWatchBookmarks=true&resourceVersion=123&timeoutSeconds=300
	// 	StartExact 123 initialEvents=false endBookmark=false bookmarks=true timeout=5m0s
	// ?watch=1&sendInitialEvents=true
	// 	422 Invalid: ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan
	// ?limit=ten
	// 	400 BadRequest: strconv.ParseInt: parsing "ten": invalid syntax
}

func describe(err error) string {
	var se *status.Error
	if !errors.As(err, &se) {
		return "not a status: " + err.Error()
	}
	return fmt.Sprintf("%d %s: %s", se.Code(), se.Status.Reason, se)
}

func ExampleResolveGet() {
	for _, v := range []string{"", "0", "42", "latest"} {
		r, err := rv.ResolveGet(v)
		if err != nil {
			fmt.Printf("%q: %d %v\n", v, status.CodeForError(err), err)
			continue
		}
		fmt.Printf("%q: %v %d\n", v, r.Semantics, r.Version)
	}
	// Output:
	// "": MostRecent 0
	// "0": Any 0
	// "42": NotOlderThan 42
	// "latest": 400 invalid resource version: resourceVersion: Invalid value: "latest": strconv.ParseUint: parsing "latest": invalid syntax
}

// With the WatchList feature off, a watch without a resourceVersion still
// starts with the current state, but without the bookmark that marks its
// end, and sendInitialEvents is refused.
func ExampleConfig() {
	legacy := rv.Config{DisableWatchList: true}

	o := rv.ListOptions{Watch: true, AllowWatchBookmarks: true}
	w, _ := o.ResolveWatch(legacy)
	fmt.Println(w.Start, w.InitialEvents, w.EndBookmark)

	o.Default(rv.Config{})
	fmt.Println(o.SendInitialEvents, o.ResourceVersionMatch)
	_, err := o.ResolveWatch(legacy)
	fmt.Println(err)
	// Output:
	// StartMostRecent true false
	// true NotOlderThan
	// ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled
}

func ExampleParseQuery() {
	o, err := rv.ParseQuery("labelSelector=app%3Dweb&limit=10&limit=20&watch=false&pretty=1")
	fmt.Printf("%q %d %v %v\n", o.LabelSelector, o.Limit, o.Watch, err)
	// Output:
	// "app=web" 10 false <nil>
}
