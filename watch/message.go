package watch

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// Encoder serializes one watch event in one media type, e.g. a JSON
// WatchEvent line or a length-prefixed protobuf frame. It must be a
// comparable value (typically a pointer): Message.Encoded keys its cache by
// it, so that two watchers using the same encoder share one encoding.
type Encoder[T any] interface {
	// AppendEvent appends the serialized event to dst and returns the
	// extended slice. It must not modify obj.
	AppendEvent(dst []byte, typ EventType, obj T) ([]byte, error)
}

// ErrorEncoder is an optional capability of an Encoder: serializing an
// ERROR event, whose object is a Status rather than a T. Message.Encoded
// tests for it at run time.
type ErrorEncoder interface {
	// AppendError appends the ERROR event carrying err's Status to dst.
	AppendError(dst []byte, err *status.Error) ([]byte, error)
}

// ErrNoErrorEncoder is returned by Message.Encoded for an ERROR message when
// the encoder does not implement ErrorEncoder.
var ErrNoErrorEncoder = errors.New("watch: encoder cannot encode an ERROR event")

// Message is one event of a watch stream as its client receives it: a
// change, a bookmark or an error. Messages are immutable and shared: every
// watcher that receives the same change with the same type receives the
// same *Message, which is what lets Encoded serialize it once for all of
// them.
type Message[T any] struct {
	typ EventType
	key string
	obj T
	rev rv.Version
	// end marks the initial-events-end bookmark.
	end bool
	err *status.Error
	// cache is the Source's EventCache, set when obj is an object the
	// Source returned unchanged.
	cache EventCache[T]

	// first is the slot of the first encoder asked, inline because a
	// server usually has one media type per stream; firstSet is stored
	// once first.enc is set. encoded holds the slots of further encoders;
	// the slice is copy-on-write, so readers load it without locking. mu
	// serializes the writers that claim first or add a slot.
	first    encoding
	firstSet atomic.Bool
	encoded  atomic.Pointer[[]*encoding]
	mu       sync.Mutex
}

// encoding is the cached serialization of one message by one encoder.
type encoding struct {
	enc  any
	once sync.Once
	b    []byte
	err  error
}

// Type returns ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
func (m *Message[T]) Type() EventType { return m.typ }

// Key returns the storage key of the object the event is about; "" for
// BOOKMARK and ERROR.
func (m *Message[T]) Key() string { return m.key }

// Object returns the event's object: the new state for ADDED and MODIFIED,
// the last state (with the deletion's resourceVersion) for DELETED, the
// bookmark object for BOOKMARK, the zero T for ERROR. The object is shared
// and must not be modified.
func (m *Message[T]) Object() T { return m.obj }

// Revision returns the revision the stream has reached with this message:
// the change's revision, the bookmark's revision, or for the synthetic
// ADDED events of initial state the revision of that state (each object
// carries its own, older or equal, resourceVersion). Zero for ERROR.
func (m *Message[T]) Revision() rv.Version { return m.rev }

// InitialEventsEnd reports whether m is the bookmark that ends the initial
// events of a streaming list (annotated "k8s.io/initial-events-end").
func (m *Message[T]) InitialEventsEnd() bool { return m.end }

// Err returns the Status error of an ERROR message, nil otherwise. An ERROR
// message is always the last message of its stream.
func (m *Message[T]) Err() *status.Error { return m.err }

// Encoded returns m serialized by enc. The first call for a given enc
// encodes, or takes the encoding from the Source's EventCache; every later
// call, from any goroutine and any watcher, returns the same bytes (which
// must not be modified). For an ERROR message enc must implement
// ErrorEncoder.
func (m *Message[T]) Encoded(enc Encoder[T]) ([]byte, error) {
	e := m.slot(enc)
	e.once.Do(func() {
		if m.typ == Error {
			ee, ok := enc.(ErrorEncoder)
			if !ok {
				e.err = ErrNoErrorEncoder
				return
			}
			e.b, e.err = ee.AppendError(nil, m.err)
			return
		}
		if m.cache != nil {
			e.b, e.err = m.cache.EncodedEvent(enc, m.typ, m.key, m.obj)
			return
		}
		e.b, e.err = enc.AppendEvent(nil, m.typ, m.obj)
	})
	return e.b, e.err
}

// slot returns the cache slot for enc, adding one if needed.
func (m *Message[T]) slot(enc Encoder[T]) *encoding {
	if m.firstSet.Load() && m.first.enc == enc {
		return &m.first
	}
	if p := m.encoded.Load(); p != nil {
		for _, e := range *p {
			if e.enc == enc {
				return e
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.firstSet.Load() {
		m.first.enc = enc
		m.firstSet.Store(true)
		return &m.first
	}
	if m.first.enc == enc {
		return &m.first
	}
	var old []*encoding
	if p := m.encoded.Load(); p != nil {
		old = *p
		for _, e := range old {
			if e.enc == enc {
				return e
			}
		}
	}
	e := &encoding{enc: enc}
	s := make([]*encoding, len(old)+1)
	copy(s, old)
	s[len(old)] = e
	m.encoded.Store(&s)
	return e
}
