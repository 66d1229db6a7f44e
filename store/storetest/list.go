package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// history6 makes six writes:
//
//	R1 create a   R2 create b   R3 create c   R4 update a   R5 delete b   R6 create d
//
// so the collection is {a@R1 b@R2 c@R3} at R3 and {a@R4 c@R3 d@R6} at R6.
// It returns the names "R1".."R6" of the revisions, for listed.
func history6(t *testing.T, b store.Backend[*Widget]) map[rv.Version]string {
	ctx := context.Background()
	var revs []rv.Version
	for _, n := range []string{"a", "b", "c"} {
		revs = append(revs, version(t, create(t, b, NewWidget("ns", n))))
	}
	a := get(t, b, "ns", "a")
	a.Spec = map[string]string{"v": "2"}
	out, err := b.Update(ctx, a, store.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	revs = append(revs, version(t, out))
	gone, _, err := b.Delete(ctx, "ns", "b", store.DeleteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	revs = append(revs, version(t, gone))
	revs = append(revs, version(t, create(t, b, NewWidget("ns", "d"))))
	names := map[rv.Version]string{}
	for i, r := range revs {
		if i > 0 && r <= revs[i-1] {
			t.Fatalf("revisions %v do not increase", revs)
		}
		names[r] = fmt.Sprint("R", i+1)
	}
	return names
}

// revision returns the revision named name ("R3") in names.
func revision(names map[rv.Version]string, name string) rv.Version {
	for r, n := range names {
		if n == name {
			return r
		}
	}
	panic("no revision " + name)
}

// checkListSemanticsTable walks the table "resourceVersionMatch and
// paging parameters for list" of the Kubernetes API concepts cell by
// cell, through package rv's decision.
func checkListSemanticsTable(t *testing.T, newHarness func(*testing.T) Harness) {
	ctx := context.Background()
	b := newHarness(t).Backend
	revs := history6(t, b)
	if now := now(t, b); revs[now] != "R6" {
		t.Fatalf("the backend is at revision %d after its last write at %d", now, revision(revs, "R6"))
	}
	first, err := b.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent, Limit: 2}})
	if err != nil {
		t.Fatal(err)
	}
	token := first.Continue()
	const (
		latestAll  = "rv=R6 [a@R4 c@R3 d@R6]"
		latestPage = "rv=R6 [a@R4 c@R3 + (1 more)]"
		exactAll   = "rv=R3 [a@R1 b@R2 c@R3]"
		exactPage  = "rv=R3 [a@R1 b@R2 + (1 more)]"
		nextPage   = "rv=R6 [d@R6]"
		invalid    = "422"
		badRequest = "400"
	)
	r3 := revision(revs, "R3").String()
	for _, row := range []struct {
		name  string
		match rv.Match
		limit int64
		cont  string
		cells [3]string // resourceVersion unset, "0", R3
	}{
		{"unset, limit unset", rv.MatchUnset, 0, "", [3]string{latestAll, latestAll, latestAll}},
		{"unset, limit=2", rv.MatchUnset, 2, "", [3]string{latestPage, latestPage, exactPage}},
		{"unset, limit=2, continue", rv.MatchUnset, 2, token, [3]string{nextPage, nextPage, badRequest}},
		{"Exact, limit unset", rv.MatchExact, 0, "", [3]string{invalid, invalid, exactAll}},
		{"Exact, limit=2", rv.MatchExact, 2, "", [3]string{invalid, invalid, exactPage}},
		{"NotOlderThan, limit unset", rv.MatchNotOlderThan, 0, "", [3]string{invalid, latestAll, latestAll}},
		{"NotOlderThan, limit=2", rv.MatchNotOlderThan, 2, "", [3]string{invalid, latestPage, latestPage}},
	} {
		for i, v := range []string{"", "0", r3} {
			o := rv.ListOptions{ResourceVersion: v, ResourceVersionMatch: row.match, Limit: row.limit, Continue: row.cont}
			got := ""
			read, err := o.ResolveList()
			if err == nil {
				var p *store.Page[*Widget]
				if p, err = b.List(ctx, "ns", store.ListOptions{Read: read}); err == nil {
					got = listed(p, revs)
				}
			}
			if err != nil {
				got = fmt.Sprint(status.CodeForError(err))
			}
			if got != row.cells[i] {
				t.Errorf("%s, resourceVersion=%q: got %s; want %s", row.name, v, got, row.cells[i])
			}
		}
	}
}

// checkListPagingToTheEnd pages through a collection across namespaces:
// every object once, in key order, with the remaining counts.
func checkListPagingToTheEnd(t *testing.T, newHarness func(*testing.T) Harness) {
	ctx := context.Background()
	b := newHarness(t).Backend
	for i := range 10 {
		create(t, b, NewWidget(fmt.Sprintf("ns%d", i%3), fmt.Sprintf("w%02d", i)))
	}
	var names []string
	read := rv.Read{Semantics: rv.MostRecent, Limit: 4}
	wantRem := []int64{6, 2, 0}
	for page := 0; ; page++ {
		p, err := b.List(ctx, "", store.ListOptions{Read: read})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range p.Items() {
			names = append(names, w.Namespace+"/"+w.Name)
		}
		n, ok := p.RemainingItemCount()
		if n != wantRem[page] || ok != (wantRem[page] > 0) {
			t.Errorf("page %d: remainingItemCount = %d, %v; want %d", page, n, ok, wantRem[page])
		}
		if p.Continue() == "" {
			break
		}
		read = rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: 4}
	}
	want := slices.Clone(names)
	slices.Sort(want)
	if len(names) != 10 || !slices.Equal(names, want) {
		t.Errorf("listed %v", names)
	}
}

// ExpiredContinue is the message of the 410 for a continue token older
// than the compacted history, Kubernetes' text.
const ExpiredContinue = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

// checkListCompacted: after compaction an exact list and a continue token
// older than it answer 410; the 410 of the token carries one that
// continues, inconsistently, at the latest revision; the compaction
// revision itself stays readable.
func checkListCompacted(t *testing.T, newHarness func(*testing.T) Harness) {
	ctx := context.Background()
	h := newHarness(t)
	b := h.Backend
	revs := history6(t, b)
	r3 := revision(revs, "R3")
	p, err := b.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: r3, Limit: 1}})
	if err != nil || listed(p, revs) != "rv=R3 [a@R1 + (2 more)]" {
		t.Fatalf("list = %s, %v", listed(p, revs), err)
	}
	h.Compact(revision(revs, "R4"))
	_, err = b.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: r3}})
	wantStatus(t, "exact", err, 410, status.ReasonExpired, "The resourceVersion for the provided list is too old.")
	_, err = b.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: 1}})
	se := wantStatus(t, "continue", err, 410, status.ReasonExpired, ExpiredContinue)
	inconsistent := se.Status.Metadata.Continue
	if inconsistent == "" {
		t.Fatal("410 carries no continue token")
	}
	// The latest revision may be past R6: a backend may record the
	// compaction as a write.
	cur := now(t, b)
	if _, ok := revs[cur]; !ok {
		revs[cur] = "Rnow"
	}
	p, err = b.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: inconsistent, Limit: 1}})
	if got, want := listed(p, revs), "rv="+revs[cur]+" [c@R3 + (1 more)]"; err != nil || got != want {
		t.Fatalf("inconsistent continue = %s, %v; want %s", got, err, want)
	}
	// The next token is consistent again, at the revision it read.
	p, err = b.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.ContinueExact, Continue: p.Continue(), Limit: 1}})
	if got, want := listed(p, revs), "rv="+revs[cur]+" [d@R6]"; err != nil || got != want {
		t.Fatalf("last page = %s, %v; want %s", got, err, want)
	}
	if p, err := b.List(ctx, "ns", store.ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: revision(revs, "R4")}}); err != nil || listed(p, revs) != "rv=R4 [a@R4 b@R2 c@R3]" {
		t.Errorf("list at the compaction revision = %s, %v", listed(p, revs), err)
	}
}

// checkGet: every read semantics finds the object; a missing one is the
// 404 with details; an exact read sees the past until compaction, then
// answers 410.
func checkGet(t *testing.T, newHarness func(*testing.T) Harness) {
	ctx := context.Background()
	h := newHarness(t)
	b := h.Backend
	r1 := version(t, create(t, b, NewWidget("ns", "a")))
	for _, read := range []rv.Read{
		{Semantics: rv.MostRecent},
		{Semantics: rv.Any},
		{Semantics: rv.NotOlderThan, Version: r1},
	} {
		w, err := b.Get(ctx, "ns", "a", read)
		if err != nil || w.Name != "a" {
			t.Errorf("Get(%v) = %v, %v", read, w, err)
		}
	}
	_, err := b.Get(ctx, "ns", "b", latest)
	se := wantStatus(t, "missing", err, 404, status.ReasonNotFound, `widgets.example.com "b" not found`)
	if d := se.Status.Details; d == nil || d.Name != "b" || d.Kind != "widgets" || d.Group != "example.com" {
		t.Errorf("details = %+v", d)
	}
	upd := get(t, b, "ns", "a")
	upd.Spec = map[string]string{"v": "2"}
	out, err := b.Update(ctx, upd, store.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r2 := version(t, out)
	old, err := b.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: r1})
	if err != nil || old.Spec != nil || old.ResourceVersion != r1.String() {
		t.Errorf("Get(Exact %d) = %+v, %v", r1, old, err)
	}
	h.Compact(r2)
	_, err = b.Get(ctx, "ns", "a", rv.Read{Semantics: rv.Exact, Version: r1})
	wantStatus(t, "compacted", err, 410, status.ReasonExpired, fmt.Sprintf("too old resource version: %d (%d)", r1, r2))
}
