package serverstore_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// A watch with resourceVersion unset starts from etcd's current state,
// not from wherever the replica happens to be: an object written straight
// into etcd just before is in its initial state, for the legacy watch and
// for client-go's streaming list alike.
func TestConsistentWatch(t *testing.T) {
	_, c := newEtcd(t)
	_, base := newServer(t, c)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	for i, query := range []string{
		"?watch=1",
		"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
	} {
		name := fmt.Sprintf("direct%d", i)
		val := `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"` + name + `","namespace":"ns1","uid":"u` + name + `"}}`
		put, err := c.Put(context.Background(), "/registry/configmaps/ns1/"+name, val)
		if err != nil {
			t.Fatal(err)
		}
		w := openWatch(t, base, cms+query)
		var got []string
		for range i + 1 {
			e := w.next()
			got = append(got, e.Type+" "+str(t, string(e.Object), "metadata.name"))
			if e.Type == "ADDED" && str(t, string(e.Object), "metadata.name") == name {
				if rv := str(t, string(e.Object), "metadata.resourceVersion"); rv != fmt.Sprint(put.Header.Revision) {
					t.Errorf("%s: %s at %s; etcd wrote it at %d", query, name, rv, put.Header.Revision)
				}
			}
		}
		if !slices.Contains(got, "ADDED "+name) {
			t.Errorf("watch %s: initial events %v lack %s, written to etcd before", query, got, name)
		}
	}
}

// Two servers on one etcd behave as one: what is written through A reads
// consistently through B at the same resourceVersion, B's watchers see
// A's writes in order, conflicts between them are the usual 409s, and a
// paged list started on A continues on B.
func TestTwoServers(t *testing.T) {
	_, c := newEtcd(t)
	_, a := newServer(t, c)
	_, b := newServer(t, c)
	must(t, 201, a, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	from := str(t, must(t, 200, b, "GET", cms, "").body, "metadata.resourceVersion")
	w := openWatch(t, b, cms+"?watch=1&resourceVersion="+from)

	// Writes through A, read back and watched through B.
	var want []string
	created := must(t, 201, a, "POST", cms, `{"metadata":{"name":"x"},"data":{"k":"1"}}`).body
	want = append(want, "ADDED x "+str(t, created, "metadata.resourceVersion"))
	got := must(t, 200, b, "GET", cms+"/x", "").body
	if str(t, got, "metadata.resourceVersion") != str(t, created, "metadata.resourceVersion") || str(t, got, "data.k") != "1" {
		t.Errorf("B reads %s; A created %s", got, created)
	}
	patched := must(t, 200, a, "PATCH", cms+"/x", `{"data":{"k":"2"}}`).body
	want = append(want, "MODIFIED x "+str(t, patched, "metadata.resourceVersion"))
	if got := must(t, 200, b, "GET", cms+"/x", "").body; str(t, got, "data.k") != "2" {
		t.Errorf("B reads %s after A's patch", got)
	}
	y := must(t, 201, a, "POST", cms, `{"metadata":{"name":"y"}}`).body
	want = append(want, "ADDED y "+str(t, y, "metadata.resourceVersion"))
	deleted := must(t, 200, a, "DELETE", cms+"/x", "").body
	if r := must(t, 404, b, "GET", cms+"/x", "").body; str(t, r, "message") != `configmaps "x" not found` {
		t.Errorf("B after A's delete: %s", r)
	}
	var seen []string
	for range want {
		e := w.next()
		seen = append(seen, e.Type+" "+str(t, string(e.Object), "metadata.name")+" "+str(t, string(e.Object), "metadata.resourceVersion"))
	}
	e := w.next()
	seen = append(seen, e.Type+" "+str(t, string(e.Object), "metadata.name"))
	want = append(want, "DELETED x")
	if !slices.Equal(seen, want) {
		t.Errorf("B's watch: %v; want %v (A deleted x: %s)", seen, want, deleted)
	}

	// Conflicts between A and B.
	must(t, 201, a, "POST", cms, `{"metadata":{"name":"same"}}`)
	if r := must(t, 409, b, "POST", cms, `{"metadata":{"name":"same"}}`).body; str(t, r, "reason") != "AlreadyExists" {
		t.Errorf("create through B of what A created: %s", r)
	}
	rv := str(t, must(t, 200, b, "GET", cms+"/same", "").body, "metadata.resourceVersion")
	upd := `{"metadata":{"name":"same","resourceVersion":"` + rv + `"},"data":{"by":"%s"}}`
	must(t, 200, a, "PUT", cms+"/same", fmt.Sprintf(upd, "a"))
	r := must(t, 409, b, "PUT", cms+"/same", fmt.Sprintf(upd, "b")).body
	const conflict = `Operation cannot be fulfilled on configmaps "same": the object has been modified; please apply your changes to the latest version and try again`
	if str(t, r, "reason") != "Conflict" || str(t, r, "message") != conflict {
		t.Errorf("stale update through B: %s", r)
	}

	// Concurrent writes through A and B: one create of a name wins, one
	// update per resourceVersion wins, the others are 409s.
	// The requests run on their own goroutines, where t.Fatal must not:
	// a failed request counts as code 0.
	codes := func(n int, req func(i int, base string) (method, path, body string)) map[int]int {
		out := make(chan int, n)
		for i := range n {
			go func() {
				method, path, body := req(i, []string{a, b}[i%2])
				r, err := http.NewRequest(method, path, strings.NewReader(body))
				if err != nil {
					out <- 0
					return
				}
				resp, err := http.DefaultClient.Do(r)
				if err != nil {
					out <- 0
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				out <- resp.StatusCode
			}()
		}
		count := map[int]int{}
		for range n {
			count[<-out]++
		}
		return count
	}
	if got := codes(6, func(_ int, base string) (string, string, string) {
		return "POST", base + cms, `{"metadata":{"name":"race"}}`
	}); got[201] != 1 || got[409] != 5 {
		t.Errorf("concurrent creates of one name through A and B: %v; want one 201, five 409", got)
	}
	rv = str(t, must(t, 200, a, "GET", cms+"/race", "").body, "metadata.resourceVersion")
	if got := codes(6, func(i int, base string) (string, string, string) {
		return "PUT", base + cms + "/race", fmt.Sprintf(`{"metadata":{"name":"race","resourceVersion":"%s"},"data":{"i":"%d"}}`, rv, i)
	}); got[200] != 1 || got[409] != 5 {
		t.Errorf("concurrent updates of one version through A and B: %v; want one 200, five 409", got)
	}
	must(t, 200, a, "DELETE", cms+"/race", "")

	// A paged list started on A continues on B at A's snapshot.
	for i := range 4 {
		must(t, 201, b, "POST", cms, fmt.Sprintf(`{"metadata":{"name":"p%d"}}`, i))
	}
	first := must(t, 200, a, "GET", cms+"?limit=2", "").body
	snap := str(t, first, "metadata.resourceVersion")
	must(t, 201, a, "POST", cms, `{"metadata":{"name":"p9"}}`)
	all := names(t, first)
	for next, servers := str(t, first, "metadata.continue"), []string{b, a}; next != ""; servers[0], servers[1] = servers[1], servers[0] {
		page := must(t, 200, servers[0], "GET", cms+"?limit=2&continue="+next, "").body
		if got := str(t, page, "metadata.resourceVersion"); got != snap {
			t.Errorf("page at %s; the list started at %s", got, snap)
		}
		all = append(all, names(t, page)...)
		next = str(t, page, "metadata.continue")
	}
	if want := []string{"p0", "p1", "p2", "p3", "same", "y"}; !slices.Equal(all, want) {
		t.Errorf("paged list across A and B = %v; want %v", all, want)
	}
}

// An exact list, or a paged list's next page, at a revision older than the
// replica's history is read from etcd, and is 410 Expired only once etcd
// has compacted it: server B, started after the revision, answers what A
// answers from its history.
func TestReadOlderThanReplica(t *testing.T) {
	_, c := newEtcd(t)
	sa, a := newServer(t, c)
	must(t, 201, a, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	for i := range 3 {
		must(t, 201, a, "POST", cms, fmt.Sprintf(`{"metadata":{"name":"o%d"}}`, i))
	}
	first := must(t, 200, a, "GET", cms+"?limit=2", "").body
	old := str(t, first, "metadata.resourceVersion")
	exact := cms + "?resourceVersionMatch=Exact&resourceVersion=" + old
	want := must(t, 200, a, "GET", exact, "").body
	must(t, 200, a, "DELETE", cms+"/o0", "")
	must(t, 201, a, "POST", cms, `{"metadata":{"name":"o9"}}`)

	_, b := newServer(t, c) // its replica starts after old
	got := must(t, 200, b, "GET", exact, "").body
	if !slices.Equal(names(t, got), names(t, want)) || str(t, got, "metadata.resourceVersion") != old {
		t.Errorf("B's exact list at %s: %s; A's: %s", old, got, want)
	}
	if got, want := names(t, must(t, 200, b, "GET", cms+"?resourceVersionMatch=Exact&resourceVersion="+old+"&limit=1", "").body), []string{"o0"}; !slices.Equal(got, want) {
		t.Errorf("B's exact first page at %s: %v; want %v", old, got, want)
	}
	page := must(t, 200, b, "GET", cms+"?limit=2&continue="+str(t, first, "metadata.continue"), "").body
	if got := names(t, page); !slices.Equal(got, []string{"o2"}) || str(t, page, "metadata.resourceVersion") != old {
		t.Errorf("B continues A's list at %s with %s", old, page)
	}

	sa.Compact()
	r := must(t, 410, b, "GET", exact, "").body
	if str(t, r, "reason") != "Expired" || str(t, r, "message") != "The resourceVersion for the provided list is too old." {
		t.Errorf("B's exact list after etcd compacted %s: %s", old, r)
	}
	must(t, 410, b, "GET", cms+"?limit=2&continue="+str(t, first, "metadata.continue"), "")
}
