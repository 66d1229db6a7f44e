// Package watch turns the ordered history of writes a store keeps into
// Kubernetes watch streams, for thousands of concurrent watchers: replay
// from a resourceVersion, initial events of a streaming list, BOOKMARK
// events, label and field selectors with Kubernetes' transition rules,
// timeouts, and slow watchers that never hold anyone up.
//
// # Usage
//
// A store implements Source. One Broadcaster serves all the watches of a
// Source: NewBroadcaster starts its dispatcher, Close ends it (CloseAfter
// ends it once the watchers have been given the events up to a revision,
// for a resource that stops being served after its objects' deletion). A request
// handler turns the query into an rv.Watch decision (package rv), calls
// Watch, and copies the stream to the response:
//
//	w := b.Watch(ctx, decision, selector)
//	defer w.Stop()
//	for {
//		m, ok := w.Next()
//		if !ok {
//			return // timeout, ctx, Close, or after an ERROR event
//		}
//		frame, err := m.Encoded(jsonEncoder)
//		...write frame...
//		if !w.More() {
//			flush()
//		}
//	}
//
// # Start points
//
// The decision's Start selects where the stream begins (the spec's
// "Semantics for watch"):
//
//	StartExact N          every event after N, from history, then live events; no
//	                      synthetic events. N older than history: one ERROR event
//	                      (410 Expired "too old resource version: N (M)"), then the
//	                      end. N in the future: the watch waits for it.
//	StartMostRecent       at the Source's latest revision.
//	StartAny              likewise (the latest revision is an acceptable "any").
//	StartNotOlderThan N   at the latest revision once it is >= N; if the Source does
//	                      not reach N within Options.FutureWait, one ERROR event
//	                      (504 "Too large resource version").
//
// With InitialEvents the stream begins with one ADDED event per object of
// the state at the start revision, in key order, each object carrying its
// own resourceVersion; with EndBookmark these are followed by a BOOKMARK at
// the start revision annotated "k8s.io/initial-events-end": "true", which
// client-go's streaming-list informers wait for.
//
// # Ordering guarantees
//
// A stream delivers events in revision order, each event at most once, and
// never skips one: if it delivers an event at revision r, it has delivered
// every matching event after its start and before r. An ERROR event is
// always the last message. A BOOKMARK at revision r means every matching
// event up to r has been delivered; bookmarks never go backwards and are
// never older than an event already delivered. A client that resumes with
// StartExact at the last revision it received continues exactly where it
// stopped.
//
// # Selectors
//
// A watcher's Filter is applied to the object before and after each write:
// an object that starts matching arrives as ADDED, one that keeps matching
// as MODIFIED, one that stops matching or is deleted as DELETED carrying
// its previous state with the new resourceVersion; writes to objects that
// match neither before nor after are skipped. Bookmarks still report the
// revisions of skipped writes, so a selective watcher's resume point keeps
// up with history.
//
// # Bookmarks
//
// A watcher that allows bookmarks gets one every Options.BookmarkInterval
// (default one minute) and one 2 seconds before its timeout, at the latest
// revision it has been brought up to, if that is past its start revision.
// The bookmark object comes from ObjectFuncs.Bookmark.
//
// # Slow watchers
//
// Writes never wait for watchers: the dispatcher only reads the Source, and
// hands each batch of events to every live watcher without blocking. A
// watcher has a bounded buffer (Options.Buffer). When a batch does not fit
// the watcher is parked, not closed: it stops receiving live events and
// keeps its position, the revision of the last event it was given. Once its
// consumer has taken what was buffered, the watcher resumes from history —
// the broadcaster's window of recent events (Options.RecentEvents), else
// Source.Events — on the consumer's own goroutine, and rejoins the live
// stream when it has caught up. The client sees no gap, duplicate or
// reordering. Only if the Source has compacted history past the watcher's
// position does the stream end, with the ERROR event carrying the 410
// Expired status, after which clients relist. Kubernetes instead closes a
// watcher that does not keep up.
//
// A new watch that starts at an exact revision is checked against the
// Source, never against the window: a revision the Source has compacted is
// the 410 even while the window still holds its events.
//
// The dispatcher itself must keep up with the Source's retention: if the
// Source compacts events the dispatcher has not read yet (a burst of writes
// longer than the retained history), every watcher behind that point ends
// with the 410 once it has taken what it was given. Any other Source error
// stalls dispatching, which is retried every second; the watchers wait.
//
// # Encode once
//
// Every watcher that receives a change with the same type receives the same
// *Message, and Message.Encoded computes each media type's encoding once
// for all of them. The synthetic ADDED events of initial state, and the
// events a watcher that fell further behind than the window reads from the
// Source, are that watcher's own messages: they are encoded for it alone,
// unless the Source implements EventCache. Then every message whose object
// the Source returned unchanged is encoded through it, once per stored
// object version, encoder and event type, shared by the live stream,
// initial events and catch-up alike. Only the DELETED event of an object
// leaving a selector carries a copy (with the new resourceVersion), which
// is encoded once per change for the watchers of the live stream and the
// window, and per watcher beyond them.
//
// Initial events come from Source.Snapshot, which walks the whole
// Source; a watch of one object or namespace started with WatchKeys, on
// a Source that implements RangeSource, reads only the keys of its
// range instead.
//
// # Goroutines
//
// A Broadcaster runs one goroutine, its dispatcher, which Close stops and
// waits for, and which returns by itself once it has dispatched the
// revision of CloseAfter. Watchers have no goroutine of their own: each is driven by the
// goroutine that calls Next, and waiting watchers cost a buffer and a few
// channels. Stop, a done context or the watch's timeout removes a watcher
// from the broadcaster at once, whether or not its consumer still calls
// Next.
//
// # Non-goals
//
// Package watch does not parse requests (package rv does), encode objects
// or write HTTP responses (package negotiation does), or store anything
// beyond the window: history and snapshots belong to the Source.
package watch
