package server

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/store/selector"
	"github.com/apisem/apisem/watch"
)

// eventEncoder is a watch.Encoder of event objects: compact JSON with
// kind and apiVersion, or the protobuf envelope, which package
// negotiation's StreamWriter frames. watch.Message.Encoded caches its
// result per event, so an event is encoded once for all watchers of a
// media type, and it reads the store's per-version cache, so a version
// already encoded for a list page or a write's response is not encoded
// again. Conversions (Table, PartialObjectMetadata) are per stream
// instead: a Table stream sends its column definitions only in its first
// event.
//
// With frame set it encodes the whole event as the stream carries it
// (negotiation.AppendEvent): a watcher then writes the bytes every other
// watcher of the change writes, with no framing or copy of its own. The
// frames serve protobuf and built-in kinds' JSON, whose event objects are
// copies made for the event anyway; a custom resource's JSON event stays
// its list item, shared with lists, and each stream frames it.
type eventEncoder struct {
	c        *codec
	protobuf bool
	frame    bool
}

func (e *eventEncoder) AppendEvent(dst []byte, typ watch.EventType, o Object) ([]byte, error) {
	if !e.frame {
		return e.appendObject(dst, typ, o)
	}
	obj, err := e.appendObject(nil, typ, o)
	if err != nil {
		return dst, err
	}
	media := negotiation.JSON
	if e.protobuf {
		media = negotiation.Protobuf
	}
	if dst == nil {
		// Room for the object and the framing around it.
		dst = make([]byte, 0, len(obj)+len(typ)+32)
	}
	return negotiation.AppendEvent(dst, media, string(typ), obj), nil
}

func (e *eventEncoder) appendObject(dst []byte, typ watch.EventType, o Object) ([]byte, error) {
	if typ == watch.Bookmark && !e.protobuf && e.c.res.TypedListItems {
		// A custom resource's bookmark is kind, apiVersion and metadata
		// alone, as Kubernetes' unstructured bookmark objects are, not
		// the zero value of a Go type with its empty spec.
		m, err := json.Marshal(o.Meta())
		if err != nil {
			return dst, err
		}
		dst = append(dst, e.c.typed...)
		dst = append(dst, `"metadata":`...)
		return append(append(dst, m...), '}'), nil
	}
	var b []byte
	var err error
	if e.protobuf {
		b, err = e.c.objectProto(o)
	} else {
		b, err = e.c.objectJSON(o)
	}
	if len(dst) == 0 && err == nil {
		// The encoding itself, capped so that an append copies it. For
		// a custom resource it is the stored version's cached list item,
		// which the store's event cache then shares instead of holding
		// a second copy (and a third, for ADDED and MODIFIED).
		return b[:len(b):len(b)], nil
	}
	return append(dst, b...), err
}

// errNameMismatch is Kubernetes' 400 for a single-object watch whose field
// selector names another object.
var errNameMismatch = status.NewBadRequest("fieldSelector metadata.name doesn't match requested name")

// maxBatch bounds the events written between two flushes.
const maxBatch = 128

// maxBatchBytes bounds the bytes of a batch too. Each batch is written
// under one write deadline (WriteTimeout), which a client that reads
// steadily must meet: without it, a batch of large objects (the initial
// events of a big collection) could ask a client for 128 of them within
// WriteTimeout, and cut a slow reader that had not stopped reading.
const maxBatchBytes = 256 << 10

func (s *Server) watch(w http.ResponseWriter, r *http.Request, t *target, opts rv.ListOptions) error {
	res, err := t.res.negotiate(r, negotiation.Watch)
	if err != nil {
		return err
	}
	if t.name != "" {
		// A legacy /watch/.../<name> path watches one object.
		if opts.FieldSelector == "" {
			opts.FieldSelector = "metadata.name=" + selector.EscapeValue(t.name)
		} else if f, err := selector.ParseFields(opts.FieldSelector); err != nil {
			return err
		} else if v, ok := f.RequiresExactMatch("metadata.name"); !ok || v != t.name {
			return errNameMismatch
		}
	}
	d, err := opts.ResolveWatch(s.rvConf)
	if err != nil {
		return err
	}
	labels, fields, err := selectors(t.res, &opts)
	if err != nil {
		return err
	}
	if d.Start == rv.StartMostRecent {
		// resourceVersion unset: the initial state (and the start) must
		// be the most recent, so a replica first catches up with its
		// source, as Kubernetes' consistent reads from cache do.
		if sy, ok := t.res.store.(store.Syncer); ok {
			if err := syncWithin(r.Context(), sy, d.Timeout); err != nil {
				return err
			}
		}
	}
	// encode returns an event for the stream: a frame every watcher of
	// the resource shares, or, for a custom resource's JSON, whose
	// encoding is its list item's, and for a stream of Tables or
	// metadata, an object the stream frames.
	var encode func(*watch.Message[Object]) (negotiation.Event, error)
	switch c := t.res.codec; {
	case res.Target != negotiation.TargetNone:
		inc, err := include(r, res)
		if err != nil {
			return err
		}
		conv := c.converter(res.MediaType).NewWatchEncoder(res, inc)
		encode = func(m *watch.Message[Object]) (negotiation.Event, error) {
			obj, err := conv.Encode(m.Object())
			return negotiation.Event{Type: string(m.Type()), Object: obj}, err
		}
	case res.MediaType == negotiation.Protobuf:
		encode = framedEvents(c.eventProtoFrame)
	case c.res.TypedListItems:
		encode = func(m *watch.Message[Object]) (negotiation.Event, error) {
			obj, err := m.Encoded(c.eventJSON)
			return negotiation.Event{Type: string(m.Type()), Object: obj}, err
		}
	default:
		encode = framedEvents(c.eventJSONFrame)
	}
	encode = s.watchEventMetric(t, res.MediaType, encode)

	ns := t.namespace
	filter := func(o Object) bool {
		return (ns == "" || o.Meta().Namespace == ns) && t.res.store.Matches(o, labels, fields)
	}
	// Establish the watch, start revision and initial state included,
	// before the response begins, as Kubernetes does: a client that has
	// the 200 may count on its watch covering every write it makes next.
	wt := t.res.bcast.WatchKeys(r.Context(), d, filter, watchKeys(t.res, ns, fields))
	defer wt.Stop()
	wd := s.watchDeadline(w, wt.Deadline())
	defer wd.finish()
	wd.arm()
	sw, err := negotiation.NewStreamWriter(w, res)
	if err != nil {
		return err
	}
	if err := streamEvents(sw, wt, encode, wd.arm); err != nil {
		s.log.Error("encoding a watch event", "err", err, "resource", t.res.gr.String())
	}
	return nil
}

// watchKeys returns where the objects of a watch of namespace ns ("" for
// all) with the field selector fields are kept: the collection, one
// namespace's part of it (also when the selector pins
// metadata.namespace, as a list reads it), or the one key that
// metadata.name pins there. Its initial events read those keys alone.
func watchKeys(rs *resource, ns string, fields selector.Fields) watch.KeyRange {
	if !rs.def.Namespaced {
		ns = ""
	} else if v, ok := fields.RequiresExactMatch("metadata.namespace"); ok && ns == "" {
		ns = v
	}
	if name, ok := fields.RequiresExactMatch("metadata.name"); ok && (ns != "" || !rs.def.Namespaced) {
		// Keys hold no NUL: the key is alone in [key, key+"\x00").
		k := rs.store.Key(ns, name)
		return watch.KeyRange{Start: k, End: k + "\x00"}
	}
	p := rs.store.Prefix(ns)
	return watch.KeyRange{Start: p, End: store.PrefixEnd(p)}
}

// framedEvents returns the encoder of a stream that writes enc's frames.
func framedEvents(enc *eventEncoder) func(*watch.Message[Object]) (negotiation.Event, error) {
	return func(m *watch.Message[Object]) (negotiation.Event, error) {
		f, err := m.Encoded(enc)
		return negotiation.Event{Frame: f}, err
	}
}

// syncWithin has a replica catch up with its source before a watch
// starts, within the watch's timeout (timeoutSeconds, if positive): a
// watch that cannot start by then (its source is down) answers the 504 of
// a request past its deadline then, not once the storage gives up.
func syncWithin(ctx context.Context, sy store.Syncer, timeout time.Duration) error {
	if timeout <= 0 {
		return sy.Sync(ctx)
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := sy.Sync(wctx)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		return errRequestTimeout
	}
	return err
}

// streamEvents writes the events of wt to sw until the watch or the response
// ends. It flushes when nothing more is queued, as Kubernetes does, or
// after maxBatch events or maxBatchBytes. Only an encoding failure is
// returned: the end of a watch or of its response is its normal end. arm
// sets the deadline of each write.
func streamEvents(sw *negotiation.StreamWriter, wt *watch.Watcher[Object], encode func(*watch.Message[Object]) (negotiation.Event, error), arm func()) error {
	batch := make([]negotiation.Event, 0, 8)
	size := 0
	for {
		m, ok := wt.Next()
		if !ok {
			return nil
		}
		if m.Type() == watch.Error {
			arm()
			if len(batch) == 0 || sw.WriteEvents(batch) == nil {
				sw.WriteError(m.Err())
			}
			return nil
		}
		ev, err := encode(m)
		if err != nil {
			return err
		}
		batch = append(batch, ev)
		size += len(ev.Frame) + len(ev.Object)
		if !wt.More() || len(batch) == maxBatch || size >= maxBatchBytes {
			arm()
			if sw.WriteEvents(batch) != nil {
				return nil
			}
			clear(batch)
			batch, size = batch[:0], 0
		}
	}
}
