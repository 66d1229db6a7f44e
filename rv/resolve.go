package rv

import (
	"math"
	"time"

	"github.com/apisem/apisem/status"
)

// ResolveGet decides how to read a single object whose GET carried
// resourceVersion (API Concepts, "Semantics for get and list"): "" is
// MostRecent, zero is Any, N is NotOlderThan N. A resourceVersion that is
// not a decimal uint64 is the 400 of Parse (Kubernetes answers 500 from
// its watch cache and 400 from etcd for the same request; apisem always
// answers the 400).
func ResolveGet(resourceVersion string) (Read, error) {
	if resourceVersion == "" {
		return Read{Semantics: MostRecent}, nil
	}
	v, err := Parse(resourceVersion)
	if err != nil {
		return Read{}, err
	}
	if v == 0 {
		return Read{Semantics: Any}, nil
	}
	return Read{Semantics: NotOlderThan, Version: v}, nil
}

// ResolveGetQuery is ResolveGet for the raw query of a GET: it reads only
// the first resourceVersion parameter (with ParseQuery's escaping rules),
// so parameters a GET does not take, such as a bad limit, are ignored as
// Kubernetes ignores them.
func ResolveGetQuery(rawQuery string) (Read, error) {
	var p params
	p.scan(rawQuery, 1<<pResourceVersion, nil)
	v, err := p.value(pResourceVersion)
	if err != nil {
		return Read{}, err
	}
	return ResolveGet(v)
}

// ResolveList decides how to serve o as a list (whatever o.Watch says),
// following API Concepts' "Semantics for get and list" table, Kubernetes'
// ListOptions validation and its storage layer's checks:
//
//   - a broken ListOptions rule is the 422 of Validate;
//   - a continue token is ContinueExact, with a resourceVersion of "" or
//     "0" (which is ignored), else the 400 `specifying resource version is
//     not allowed when using continue`;
//   - a resourceVersion that does not parse is the 400 of Parse;
//   - otherwise the list table of the package documentation decides.
//
// Unlike Kubernetes' watch cache, which ignores the limit of a list at
// resourceVersion "0" and returns everything in one response, apisem keeps
// the limit: the semantics are Any and the list is paged. A negative limit
// means no paging, as in Kubernetes.
func (o *ListOptions) ResolveList() (Read, error) {
	if err := validateList(o); err != nil {
		return Read{}, err
	}
	limit := o.Limit
	if limit < 0 {
		limit = 0
	}
	if o.Continue != "" {
		if !isZeroOrUnset(o.ResourceVersion) {
			return Read{}, errContinueWithVersion()
		}
		return Read{Semantics: ContinueExact, Continue: o.Continue, Limit: limit}, nil
	}
	if o.ResourceVersion == "" {
		return Read{Semantics: MostRecent, Limit: limit}, nil
	}
	v, err := Parse(o.ResourceVersion)
	if err != nil {
		return Read{}, err
	}
	switch {
	case v == 0:
		// NotOlderThan 0 is any data at all (Exact with "0" is a 422).
		return Read{Semantics: Any, Limit: limit}, nil
	case o.ResourceVersionMatch == MatchExact,
		// Before resourceVersionMatch, a paged list at N meant "exactly
		// N": the first page of a consistent paged list.
		o.ResourceVersionMatch == MatchUnset && limit > 0:
		return Read{Semantics: Exact, Version: v, Limit: limit}, nil
	}
	return Read{Semantics: NotOlderThan, Version: v, Limit: limit}, nil
}

func errContinueWithVersion() error {
	return status.NewBadRequest("specifying resource version is not allowed when using continue")
}

// ResolveWatch decides how to serve o as a watch (whatever o.Watch says),
// following API Concepts' "Semantics for watch" table, Kubernetes' watch
// defaulting and validation, and its watch cache. It applies the watch
// defaulting of c (Default) to a copy of o, then:
//
//   - a broken ListOptions rule is the 422 of Validate;
//   - a resourceVersion that does not parse is the 400 of Parse (Kubernetes
//     answers 500 there; apisem keeps the 400 of lists);
//   - otherwise the watch table of the package documentation decides.
//
// limit is ignored; continue is ignored unless resourceVersionMatch is set
// (then it is a 422, even when the match was set by defaulting, as in
// Kubernetes). Bookmarks follows allowWatchBookmarks, and EndBookmark is
// set when the client asked for, or was defaulted to, initial events and
// allows bookmarks. Timeout is timeoutSeconds.
func (o *ListOptions) ResolveWatch(c Config) (Watch, error) {
	sie, m := c.defaultWatch(o)
	if err := validateWatch(o, sie, m, c); err != nil {
		return Watch{}, err
	}
	v, err := Parse(o.ResourceVersion)
	if err != nil {
		return Watch{}, err
	}
	w := Watch{Bookmarks: o.AllowWatchBookmarks, Timeout: timeout(o.TimeoutSeconds)}
	switch {
	case o.ResourceVersion == "":
		w.Start = StartMostRecent
	case v == 0:
		w.Start = StartAny
	case sie == BoolTrue:
		w.Start, w.Version = StartNotOlderThan, v
	default:
		w.Start, w.Version = StartExact, v
	}
	switch sie {
	case BoolTrue:
		w.InitialEvents = true
		w.EndBookmark = o.AllowWatchBookmarks
	case BoolUnset:
		// Validation leaves this case only with WatchList off or with a
		// resourceVersion N: the legacy watch, whose "Get State" starts
		// send the state without marking its end.
		w.InitialEvents = w.Start != StartExact
	}
	return w, nil
}

// timeout converts timeoutSeconds, saturating instead of overflowing. A
// negative value stays negative: Kubernetes ends such a watch at once.
func timeout(sec int64) time.Duration {
	const maxSec = math.MaxInt64 / int64(time.Second)
	switch {
	case sec > maxSec:
		return math.MaxInt64
	case sec < -maxSec:
		return math.MinInt64
	}
	return time.Duration(sec) * time.Second
}
