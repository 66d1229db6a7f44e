// Package rv is Kubernetes' resourceVersion semantics as code. It decodes
// the query of a get, list or watch request, validates it as a Kubernetes
// API server does, and resolves it into a decision: which revision a read
// sees (Read), or where a watch starts and what it sends first (Watch). A
// request Kubernetes refuses gets the same 400 or 422, word for word.
//
// To clients a resource version is an opaque string; inside apisem it is a
// Version, a uint64 revision written in decimal. Parse reads one. The
// sentinels ErrCompacted and ErrFutureRevision, and CompactedError, are the
// words the store and watch layers use when a decided revision is gone or
// not yet written.
//
// # Usage
//
//	o, err := rv.ParseQuery(r.URL.RawQuery) // 400: bad integer or escape
//	if err != nil { ... }
//	if o.Watch {
//		w, err := o.ResolveWatch(rv.Config{}) // 400 or 422
//		...
//	}
//	read, err := o.ResolveList() // 400 or 422
//
// A single object's GET uses ResolveGet (or ResolveGetQuery). Every error a
// client can cause is a *status.Error with Kubernetes' code, reason and
// message. ParseQuery reads the raw query in one pass without building
// url.Values and, like the resolvers, does not allocate unless a value is
// escaped or the request is refused; ParseValues takes a url.Values
// instead.
//
// Config holds the server's switches. Its zero value is Kubernetes' default:
// the WatchList feature on, so that a plain watch is served as a streaming
// list.
//
// # Get
//
// API Concepts' "Semantics for get and list"
// (https://kubernetes.io/docs/reference/using-api/api-concepts/):
//
//	rv=""       rv="0"  rv="5"          rv="abc"
//	MostRecent  Any     NotOlderThan 5  400 (h)
//
// # List
//
// API Concepts' "resourceVersionMatch and paging parameters for list" with
// Kubernetes' ListOptions validation. Read.Limit carries the limit in every
// cell and Read.Continue the token:
//
//	resourceVersionMatch  paging              rv=""          rv="0"         rv="5"
//	unset                 -                   MostRecent     Any            NotOlderThan 5
//	unset                 limit=500           MostRecent     Any            Exact 5
//	unset                 limit=500&continue  ContinueExact  ContinueExact  400 (a)
//	Exact                 -                   422 (b)        422 (c)        Exact 5
//	Exact                 limit=500           422 (b)        422 (c)        Exact 5
//	Exact                 limit=500&continue  422 (b,d)      422 (d,c)      422 (d)
//	NotOlderThan          -                   422 (b)        Any            NotOlderThan 5
//	NotOlderThan          limit=500           422 (b)        Any            NotOlderThan 5
//	NotOlderThan          limit=500&continue  422 (b,d)      422 (d)        422 (d)
//
// Any other resourceVersionMatch is a 422 listing the supported values, and
// sendInitialEvents on a list is a 422 too.
//
// # Watch
//
// API Concepts' "Semantics for watch" with Kubernetes' watch defaulting
// and validation, for a client that allows bookmarks. "+init" is
// Watch.InitialEvents (synthetic ADDED events for the state at the start),
// "+end" is Watch.EndBookmark (then the bookmark marking their end, only
// when bookmarks are allowed):
//
//	WatchList  sendInitialEvents  resourceVersionMatch  rv=""                     rv="0"             rv="5"
//	on         unset              unset                 StartMostRecent+init+end  StartAny+init+end  StartExact 5
//	on         true               NotOlderThan          StartMostRecent+init+end  StartAny+init+end  StartNotOlderThan 5+init+end
//	on         false              NotOlderThan          StartMostRecent           StartAny           StartExact 5
//	on         unset              NotOlderThan          422 (e)                   422 (e)            422 (e)
//	on         true               unset                 422 (f)                   422 (f)            422 (f)
//	off        unset              unset                 StartMostRecent+init      StartAny+init      StartExact 5
//	off        true               NotOlderThan          422 (g)                   422 (g)            422 (g)
//
// The first row is Kubernetes' defaulting at work
// (k8s.io/apimachinery/pkg/apis/meta/internalversion/defaults.go): with
// WatchList on, a watch at "" or "0" with neither sendInitialEvents nor
// resourceVersionMatch is served as sendInitialEvents=true with
// NotOlderThan. A watch ignores limit, and continue unless a match is set
// (including by that defaulting: `?watch=1&continue=x` is a 422 (d), as in
// Kubernetes).
//
// # Errors in the tables
//
//	(a) 400 specifying resource version is not allowed when using continue
//	(b) 422 resourceVersionMatch is forbidden unless resourceVersion is provided
//	(c) 422 resourceVersionMatch "exact" is forbidden for resourceVersion "0"
//	(d) 422 resourceVersionMatch is forbidden when continue is provided
//	(e) 422 resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided
//	(f) 422 sendInitialEvents requires setting resourceVersionMatch to NotOlderThan
//	(g) 422 sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled
//	(h) 400 invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax
//
// A 422 is `ListOptions.meta.k8s.io "" is invalid: <field>: Forbidden:
// <text>`, with one cause per broken rule ("[e1, e2]" when there are
// several). A non-numeric resourceVersion is the 400 (h) wherever the table
// does not already refuse the request.
//
// # Where apisem differs from Kubernetes
//
// Each difference is deliberate and only affects requests that client-go
// never sends, or trades a silent surprise for an answer:
//
//   - A list at resourceVersion "0" with a limit is paged (Any, Limit
//     kept). Kubernetes' watch cache ignores the limit there and returns
//     everything at once.
//   - A non-numeric resourceVersion on a get or watch is the 400 (h).
//     Kubernetes answers 500 when its watch cache serves the request.
//   - Every spelling of zero ("00", "000") is "0". Kubernetes compares the
//     string with "0" in validation but parses it elsewhere, so "00" means
//     different things in different checks.
//   - ParseQuery refuses a malformed %-escape or a raw ';' in a value it
//     uses, with a 400 naming the parameter. Kubernetes' url.Values
//     decoding drops such a pair, so `?labelSelector=%zz` lists everything.
//   - ResolveList checks continue against resourceVersion before package
//     paging decodes the token; Kubernetes decodes first, so with both
//     wrong it names the token (package server asks
//     store.Store.CheckContinue then, and names it too).
//
// # Non-goals
//
// rv decides; it does not read data, wait for a revision, decode continue
// tokens or parse label and field selectors. Packages store, watch and
// paging do that with its decisions. rv keeps no state: Config is a plain
// value and every function is safe for concurrent use.
package rv
