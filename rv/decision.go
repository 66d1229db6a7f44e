package rv

import "time"

// Semantics is how a get or list request wants its data, in the words of
// the spec's "Semantics for get and list".
type Semantics uint8

const (
	// MostRecent: data at the latest revision, read consistently.
	MostRecent Semantics = iota + 1
	// Any: data at any revision; the newest available is preferred.
	Any
	// NotOlderThan: data at a revision >= Read.Version; a revision the
	// server has not reached yet waits briefly, then is the 504 "Too large
	// resource version".
	NotOlderThan
	// Exact: data at exactly Read.Version; a compacted revision is a 410.
	Exact
	// ContinueExact: "Continue Token, Exact": the next page of a paged list
	// at the revision recorded in the continue token (Read.Continue).
	ContinueExact
)

var semanticsNames = [...]string{"", "MostRecent", "Any", "NotOlderThan", "Exact", "ContinueExact"}

func (s Semantics) String() string {
	if int(s) < len(semanticsNames) {
		return semanticsNames[s]
	}
	return "Semantics(?)"
}

// Read is the decision for a get or list request: which revision to read
// at, and how to page.
type Read struct {
	Semantics Semantics
	// Version is N for NotOlderThan and Exact, zero otherwise.
	Version Version
	// Continue is the raw continue token for ContinueExact. Package paging
	// decodes it; rv only decides that it applies.
	Continue string
	// Limit is the page size; 0 means no paging (a full list).
	Limit int64
}

// WatchStart is where a watch begins, in the words of the spec's
// "Semantics for watch".
type WatchStart uint8

const (
	// StartMostRecent: at the latest revision, read consistently ("Get
	// State and Start at Most Recent" when InitialEvents is set).
	StartMostRecent WatchStart = iota + 1
	// StartAny: at any revision, the newest available preferred ("Get
	// State and Start at Any" when InitialEvents is set).
	StartAny
	// StartNotOlderThan: at the latest revision once the server has
	// reached Watch.Version (a streaming list with resourceVersionMatch=
	// NotOlderThan and resourceVersion=N). Always with InitialEvents.
	StartNotOlderThan
	// StartExact: "Start at Exact": the events after Watch.Version, no
	// synthetic ADDED events. A compacted Version is a 410 ERROR event; a
	// future one waits.
	StartExact
)

var startNames = [...]string{"", "StartMostRecent", "StartAny", "StartNotOlderThan", "StartExact"}

func (s WatchStart) String() string {
	if int(s) < len(startNames) {
		return startNames[s]
	}
	return "WatchStart(?)"
}

// Watch is the decision for a watch request.
type Watch struct {
	Start WatchStart
	// Version is N for StartNotOlderThan and StartExact, zero otherwise.
	Version Version
	// InitialEvents: begin with one synthetic ADDED event per object in
	// the state at the start revision (each with its own resourceVersion).
	InitialEvents bool
	// EndBookmark: after the initial events send the BOOKMARK annotated
	// "k8s.io/initial-events-end": "true" (sendInitialEvents=true and
	// allowWatchBookmarks=true).
	EndBookmark bool
	// Bookmarks: the client accepts BOOKMARK events (allowWatchBookmarks).
	Bookmarks bool
	// Timeout is timeoutSeconds; 0 means the server's default window. A
	// negative Timeout is a window already over: Kubernetes ends such a
	// watch at once.
	Timeout time.Duration
}
