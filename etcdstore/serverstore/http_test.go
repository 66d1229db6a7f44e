package serverstore_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const cms = "/api/v1/namespaces/ns1/configmaps"

// The verbs through HTTP, with the exact answers of the in-memory server:
// create, get, update with a stale and the current resourceVersion, the
// duplicate create, delete, get of the deleted object.
func TestCRUD(t *testing.T) {
	_, c := newEtcd(t)
	_, base := newServer(t, c)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	created := must(t, 201, base, "POST", cms, `{"metadata":{"name":"a"},"data":{"k":"1"}}`).body
	rv1 := str(t, created, "metadata.resourceVersion")
	got := must(t, 200, base, "GET", cms+"/a", "").body
	if str(t, got, "metadata.resourceVersion") != rv1 || str(t, got, "data.k") != "1" || str(t, got, "metadata.uid") == "" {
		t.Errorf("get after create: %s; created %s", got, created)
	}
	r := must(t, 409, base, "POST", cms, `{"metadata":{"name":"a"}}`)
	if m := str(t, r.body, "message"); m != `configmaps "a" already exists` {
		t.Errorf("duplicate create: %s", r.body)
	}
	upd := must(t, 200, base, "PUT", cms+"/a", `{"metadata":{"name":"a","resourceVersion":"`+rv1+`"},"data":{"k":"2"}}`).body
	rv2 := str(t, upd, "metadata.resourceVersion")
	if rv2 == rv1 || str(t, upd, "data.k") != "2" {
		t.Errorf("update: %s", upd)
	}
	r = must(t, 409, base, "PUT", cms+"/a", `{"metadata":{"name":"a","resourceVersion":"`+rv1+`"},"data":{"k":"3"}}`)
	want := `Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again`
	if m := str(t, r.body, "message"); m != want || str(t, r.body, "reason") != "Conflict" {
		t.Errorf("stale update: %s", r.body)
	}
	// A merge patch is a read-modify-write through etcd.
	if p := must(t, 200, base, "PATCH", cms+"/a", `{"data":{"p":"x"}}`).body; str(t, p, "data.p") != "x" || str(t, p, "data.k") != "2" {
		t.Errorf("patch: %s", p)
	}
	must(t, 200, base, "DELETE", cms+"/a", "")
	r = must(t, 404, base, "GET", cms+"/a", "")
	if m := str(t, r.body, "message"); m != `configmaps "a" not found` {
		t.Errorf("get after delete: %s", r.body)
	}
}

// A paged list is one snapshot: writes between the pages do not show, and
// every page has the first page's resourceVersion.
func TestPagedListOneSnapshot(t *testing.T) {
	_, c := newEtcd(t)
	_, base := newServer(t, c)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	for i := range 5 {
		must(t, 201, base, "POST", cms, fmt.Sprintf(`{"metadata":{"name":"c%d"}}`, i))
	}
	first := must(t, 200, base, "GET", cms+"?limit=2", "").body
	rv := str(t, first, "metadata.resourceVersion")
	if n, _ := field(t, first, "metadata.remainingItemCount").(float64); n != 3 {
		t.Errorf("remainingItemCount = %v; want 3", field(t, first, "metadata.remainingItemCount"))
	}
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"c9"}}`)
	must(t, 200, base, "DELETE", cms+"/c3", "")
	got := names(t, first)
	next := str(t, first, "metadata.continue")
	for next != "" {
		page := must(t, 200, base, "GET", cms+"?limit=2&continue="+next, "").body
		if r := str(t, page, "metadata.resourceVersion"); r != rv {
			t.Errorf("page at %s; want %s", r, rv)
		}
		got = append(got, names(t, page)...)
		next = str(t, page, "metadata.continue")
	}
	if want := []string{"c0", "c1", "c2", "c3", "c4"}; !slices.Equal(got, want) {
		t.Errorf("paged list = %v; want %v", got, want)
	}
}

// A watch resumes from a list's resourceVersion with every write since;
// after Compact, an exact list and a watch from before answer 410.
func TestWatchResumeAndCompaction(t *testing.T) {
	_, c := newEtcd(t)
	s, base := newServer(t, c)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"a"}}`)
	from := str(t, must(t, 200, base, "GET", cms, "").body, "metadata.resourceVersion")
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"b"}}`)
	must(t, 200, base, "PATCH", cms+"/b", `{"data":{"k":"v"}}`)
	must(t, 200, base, "DELETE", cms+"/a", "")
	w := openWatch(t, base, cms+"?watch=1&resourceVersion="+from)
	var got []string
	for range 3 {
		e := w.next()
		got = append(got, e.Type+" "+str(t, string(e.Object), "metadata.name"))
	}
	if want := []string{"ADDED b", "MODIFIED b", "DELETED a"}; !slices.Equal(got, want) {
		t.Errorf("watch from %s: %v; want %v", from, got, want)
	}

	compacted := s.Compact()
	if compacted.String() == "0" {
		t.Fatal("Compact failed")
	}
	r := must(t, 410, base, "GET", cms+"?resourceVersion="+from+"&resourceVersionMatch=Exact", "")
	if str(t, r.body, "reason") != "Expired" {
		t.Errorf("exact list before the compaction: %s", r.body)
	}
	e := openWatch(t, base, cms+"?watch=1&resourceVersion="+from).next()
	want := `too old resource version: ` + from + ` (` + compacted.String() + `)`
	if e.Type != "ERROR" || str(t, string(e.Object), "message") != want {
		t.Errorf("watch from before the compaction: %s %s; want ERROR %q", e.Type, e.Object, want)
	}
	// The latest state still reads, and a watch from now works.
	must(t, 200, base, "GET", cms+"/b", "")
}

// Deleting a namespace empties it through the namespace controller, which
// wakes on the server's Store (the etcd replica) and then lets it go.
func TestNamespaceDeletion(t *testing.T) {
	_, c := newEtcd(t)
	_, base := newServer(t, c)
	must(t, 201, base, "POST", "/api/v1/namespaces", `{"metadata":{"name":"ns1"}}`)
	must(t, 201, base, "POST", cms, `{"metadata":{"name":"cm"}}`)
	must(t, 201, base, "POST", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets", `{"metadata":{"name":"w"},"spec":{"color":"red","size":1}}`)
	r := must(t, 200, base, "DELETE", "/api/v1/namespaces/ns1", "")
	if str(t, r.body, "status.phase") != "Terminating" {
		t.Errorf("delete: %s", r.body)
	}
	eventually(t, "the namespace to go", func() bool {
		return call(t, base, "GET", "/api/v1/namespaces/ns1", "").code == 404
	})
	for _, p := range []string{cms + "/cm", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets/w"} {
		if r := call(t, base, "GET", p, ""); r.code != 404 {
			t.Errorf("GET %s after the namespace went: %d %s", p, r.code, r.body)
		}
	}
	r = must(t, 404, base, "POST", cms, `{"metadata":{"name":"late"}}`)
	if !strings.Contains(str(t, r.body, "message"), `namespaces "ns1" not found`) {
		t.Errorf("create in the deleted namespace: %s", r.body)
	}
}
