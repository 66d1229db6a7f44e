package rv

import (
	"net/url"
	"testing"
)

// The queries of a typical paged list (the target) and of the
// reflector's watches: a resumed one and a streaming watch-list.
const (
	benchListQuery      = "limit=500&resourceVersion=123&resourceVersionMatch=NotOlderThan"
	benchWatchQuery     = "allowWatchBookmarks=true&resourceVersion=12345&timeoutSeconds=413&watch=true"
	benchWatchListQuery = "allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=531&watch=true"
)

var (
	sinkRead  Read
	sinkWatch Watch
)

// BenchmarkList is parse + validate + resolve of a typical list query.
func BenchmarkList(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		o, err := ParseQuery(benchListQuery)
		if err != nil {
			b.Fatal(err)
		}
		if sinkRead, err = o.ResolveList(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWatch is parse + default + validate + resolve of a resumed
// watch.
func BenchmarkWatch(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		o, err := ParseQuery(benchWatchQuery)
		if err != nil {
			b.Fatal(err)
		}
		if sinkWatch, err = o.ResolveWatch(Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWatchList is the same for a streaming watch-list.
func BenchmarkWatchList(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		o, err := ParseQuery(benchWatchListQuery)
		if err != nil {
			b.Fatal(err)
		}
		if sinkWatch, err = o.ResolveWatch(Config{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListViaValues is BenchmarkList through url.ParseQuery and
// ParseValues, for comparison: most of its cost is building the map.
func BenchmarkListViaValues(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		q, _ := url.ParseQuery(benchListQuery)
		o, err := ParseValues(q)
		if err != nil {
			b.Fatal(err)
		}
		if sinkRead, err = o.ResolveList(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListEscaped is BenchmarkList with an escaped label selector,
// the one value that must be copied.
func BenchmarkListEscaped(b *testing.B) {
	const q = "labelSelector=app%3Dweb%2Ctier%21%3Dcache&" + benchListQuery
	b.ReportAllocs()
	for b.Loop() {
		o, err := ParseQuery(q)
		if err != nil {
			b.Fatal(err)
		}
		if sinkRead, err = o.ResolveList(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListInvalid is the cost of the 422 path.
func BenchmarkListInvalid(b *testing.B) {
	const q = "limit=500&resourceVersionMatch=NotOlderThan"
	b.ReportAllocs()
	for b.Loop() {
		o, err := ParseQuery(q)
		if err != nil {
			b.Fatal(err)
		}
		if _, err = o.ResolveList(); err == nil {
			b.Fatal("want a 422")
		}
	}
}
