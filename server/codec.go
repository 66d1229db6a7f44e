package server

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/store"
)

// codec writes the objects of one resource in the forms the server serves.
// Stored objects carry no kind or apiVersion; the codec adds them where
// Kubernetes writes them. The two list-item forms (JSON and raw protobuf)
// are store Encodings: each stored version is encoded once and shared by
// list pages, single-object responses and watch events.
type codec struct {
	res *Resource
	st  *store.Store[Object]
	gv  string
	// typed is `{"kind":"<Kind>","apiVersion":"<gv>",`, spliced in front
	// of an object's JSON members.
	typed     []byte
	itemJSON  *store.Encoding[Object] // with kind and apiVersion only for custom resources
	itemProto *store.Encoding[Object] // the object's own message, no envelope; nil without protobuf
	// metaJSON and metaProto are the metadata alone, which every Table row
	// and PartialObjectMetadata carries: cached per version too, as kubectl
	// reads little else.
	metaJSON, metaProto *store.Encoding[Object]
	// eventJSON and eventProto encode the objects of watch events,
	// eventJSONFrame and eventProtoFrame the events as their streams
	// carry them; the protobuf ones are nil without protobuf.
	eventJSON, eventProto           *eventEncoder
	eventJSONFrame, eventProtoFrame *eventEncoder
	// conv and convProto make Tables and PartialObjectMetadata; convProto
	// also gives the protobuf form of metadata.
	conv, convProto *negotiation.Converter[Object]
	// unstructured: the resource's objects are *Unstructured, whose
	// lists Kubernetes writes with sorted members.
	unstructured bool
	// metaSplices: the objects' metadata member is always metadataJSON's
	// (metaByConstruction), so an encoding's metadata is replaced
	// without checking it first.
	metaSplices bool
	// read is Resource.Read, or the identity; readOrSelf its form for
	// cells, which cannot fail.
	read       func(Object) (Object, error)
	readOrSelf func(Object) Object
	// inflight are the encodings of the objects writes are storing
	// (the server's, shared by its codecs).
	inflight *inflight
	// now is the server's clock, for Table cells.
	now func() time.Time
	// scratch holds *[]byte buffers: for appendWithMeta, and for the
	// first encoding of a create (encodeTo).
	scratch sync.Pool
}

func newCodec(r *Resource, st *store.Store[Object], now func() time.Time, f *inflight) *codec {
	c := &codec{res: r, st: st, gv: r.GroupVersion(), read: r.read, readOrSelf: r.readOrSelf, inflight: f, now: now}
	if r.New != nil {
		o := r.New()
		_, c.unstructured = o.(*Unstructured)
		c.metaSplices = metaByConstruction(o)
	}
	c.typed = []byte(`{"kind":` + strconv.Quote(r.Kind) + `,"apiVersion":` + strconv.Quote(c.gv) + `,`)
	c.itemJSON = store.NewEncoding(func(dst []byte, o Object) ([]byte, error) {
		o, err := c.read(o)
		if err != nil {
			return dst, err
		}
		if p, ok := c.inflight.get(o); ok {
			// The version a write just stored: its JSON is the write's,
			// with the metadata the store gave it.
			return c.appendWithMeta(dst, p.enc, o)
		}
		return c.appendJSON(dst, o, r.TypedListItems)
	})
	c.eventJSON = &eventEncoder{c: c}
	c.eventJSONFrame = &eventEncoder{c: c, frame: true}
	if r.Protobuf() {
		c.itemProto = store.NewEncoding(func(dst []byte, o Object) ([]byte, error) {
			o, err := c.read(o)
			if err != nil {
				return dst, err
			}
			return o.(ProtoObject).AppendProto(dst), nil
		})
		c.eventProto = &eventEncoder{c: c, protobuf: true}
		c.eventProtoFrame = &eventEncoder{c: c, protobuf: true, frame: true}
	}
	c.metaJSON = store.NewEncoding(func(dst []byte, o Object) ([]byte, error) {
		return appendMetaJSON(dst, o.Meta())
	})
	c.metaProto = store.NewEncoding(func(dst []byte, o Object) ([]byte, error) {
		return meta.AppendObjectMeta(dst, o.Meta()), nil
	})
	var cols []negotiation.Column[Object]
	for _, col := range r.Columns {
		cell, text := col.Cell, col.Text
		nc := negotiation.Column[Object]{
			Definition: negotiation.TableColumnDefinition{Name: col.Name, Type: col.Type, Format: col.Format,
				Description: col.Description, Priority: col.Priority},
			Cell: func(o Object) any { return cell(c.readOrSelf(o), now()) },
		}
		if text != nil {
			nc.Text = func(o Object) string { return text(c.readOrSelf(o), now()) }
		}
		cols = append(cols, nc)
	}
	object := func(o Object) ([]byte, error) { return c.objectJSON(o) }
	// The protobuf form of metadata is only worth computing for protobuf
	// responses.
	emptyRows := len(cols) > 0 && !r.NullTableRows
	c.conv = &negotiation.Converter[Object]{Columns: cols, Object: object, EmptyRows: emptyRows,
		Meta: func(o Object) negotiation.Meta { return c.objectMeta(o, false) }}
	c.convProto = &negotiation.Converter[Object]{Columns: cols, Object: object, EmptyRows: emptyRows,
		Meta: func(o Object) negotiation.Meta { return c.objectMeta(o, true) }}
	return c
}

// converter returns the converter for a response in media type m.
func (c *codec) converter(m negotiation.MediaType) *negotiation.Converter[Object] {
	if m == negotiation.Protobuf {
		return c.convProto
	}
	return c.conv
}

// untyped returns o without kind and apiVersion: o itself when it has
// none, as every stored object, else a copy.
func untyped(o Object) Object {
	if *o.Types() == (meta.TypeMeta{}) {
		return o
	}
	c := o.DeepCopyObject()
	*c.Types() = meta.TypeMeta{}
	return c
}

// JSONAppender is implemented by an object type that writes its own
// JSON without reflection, faster than encoding/json, for the one
// encoding of every write (AppendMetaJSON writes its metadata).
// AppendJSON must append exactly what json.Marshal writes of the object;
// the server calls it on objects without kind and apiVersion.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// appendJSON appends the JSON of o, with kind and apiVersion first when
// typed is set.
func (c *codec) appendJSON(dst []byte, o Object, typed bool) ([]byte, error) {
	if u, ok := o.(*Unstructured); ok && typed {
		// Its members are sorted, kind and apiVersion among them.
		return u.appendJSON(dst, meta.TypeMeta{Kind: c.res.Kind, APIVersion: c.gv})
	}
	var b []byte
	var err error
	u := untyped(o)
	if a, ok := u.(JSONAppender); ok {
		b, err = a.AppendJSON(nil)
		if err == nil && len(b) == 0 {
			err = errors.New("server: AppendJSON of " + c.res.Kind + " appended nothing")
		}
	} else {
		b, err = json.Marshal(u)
	}
	if err != nil {
		return dst, err
	}
	switch {
	case !typed && dst == nil:
		return b, nil // Marshal's own copy, not copied again
	case !typed:
		return append(dst, b...), nil
	}
	return c.appendTyped(dst, b), nil
}

// appendTyped appends untyped JSON b (`{"metadata":...}`: an object always
// has members) with kind and apiVersion spliced in first.
func (c *codec) appendTyped(dst, b []byte) []byte {
	dst = append(dst, c.typed...)
	return append(dst, b[1:]...)
}

// objectJSON returns o's compact JSON with kind and apiVersion, as a
// single object or watch event carries it. The result may be shared.
func (c *codec) objectJSON(o Object) ([]byte, error) {
	item, err := c.st.Encoded(o, c.itemJSON)
	if err != nil || c.res.TypedListItems {
		return item, err
	}
	return c.appendTyped(make([]byte, 0, len(item)+len(c.typed)), item), nil
}

// forList returns conv (a JSON one) for the rows of one list, l (a
// store page; views, its Views): it reads the metadata JSON of l's
// objects through l, as the rows ask for them, in order (a store page
// finds an item's version directly, where Store.Encoded looks the object
// up by its resourceVersion in the history), and its cells read the
// clock once for the list, not once per cell (BenchmarkHTTPListTable in
// examples/apiserver/demo). The result is not safe for concurrent use.
func (c *codec) forList(conv *negotiation.Converter[Object], l items, views []Object) *negotiation.Converter[Object] {
	cp := *conv
	if len(c.res.Columns) == len(conv.Columns) && len(conv.Columns) > 0 {
		now := c.now()
		cp.Columns = make([]negotiation.Column[Object], len(conv.Columns))
		for i, col := range c.res.Columns {
			cell, text := col.Cell, col.Text
			cp.Columns[i] = negotiation.Column[Object]{Definition: conv.Columns[i].Definition,
				Cell: func(o Object) any { return cell(c.readOrSelf(o), now) }}
			if text != nil {
				cp.Columns[i].Text = func(o Object) string { return text(c.readOrSelf(o), now) }
			}
		}
	}
	next := 0
	cp.Meta = func(o Object) negotiation.Meta {
		if next < len(views) && views[next] == o {
			j, err := l.Encoded(next, c.metaJSON)
			next++
			if err == nil {
				return negotiation.Meta{ObjectMeta: o.Meta(), JSON: j, Compact: true}
			}
		}
		return conv.Meta(o)
	}
	return &cp
}

// objectProto returns o in its protobuf envelope.
func (c *codec) objectProto(o Object) ([]byte, error) {
	raw, err := c.st.Encoded(o, c.itemProto)
	if err != nil {
		return nil, err
	}
	return envelope.AppendEnvelope(make([]byte, 0, envelope.SizeEnvelope(c.gv, c.res.Kind, len(raw))), c.gv, c.res.Kind, raw), nil
}

// objectMeta is what package negotiation needs of an object for Tables
// and PartialObjectMetadata; proto adds the protobuf ObjectMeta.
func (c *codec) objectMeta(o Object, proto bool) negotiation.Meta {
	j, _ := c.st.Encoded(o, c.metaJSON) // strings, maps, times: cannot fail
	// metaJSON is encoding/json's: Table rows copy it as it is.
	nm := negotiation.Meta{ObjectMeta: o.Meta(), JSON: j, Compact: true}
	if proto {
		nm.Proto, _ = c.st.Encoded(o, c.metaProto)
	}
	return nm
}

var comma = []byte{','}

// listParts returns the body of a list in JSON (compact) or protobuf as
// pieces for negotiation.WriteParts: a head, the items from the store's
// per-version caches, a tail. Nothing is copied.
func (c *codec) listParts(m negotiation.MediaType, list meta.ListMeta, l items) ([]negotiation.Part, error) {
	n := l.Len()
	parts := make([]negotiation.Part, n+2)
	its := parts[1 : n+1]
	size := 0
	itemEnc := c.itemJSON
	if m == negotiation.Protobuf {
		itemEnc = c.itemProto
	}
	var heads []byte // the protobuf field headers of the items
	if m == negotiation.Protobuf {
		heads = make([]byte, 0, n*(1+binary.MaxVarintLen32))
	}
	for i := range its {
		item, err := l.Encoded(i, itemEnc)
		if err != nil {
			return nil, err
		}
		p := &its[i]
		p.Plain = item
		switch {
		case m == negotiation.Protobuf:
			start := len(heads)
			heads = envelope.AppendListItemHead(heads, len(item))
			p.Sep = heads[start:len(heads):len(heads)]
		case i > 0:
			p.Sep = comma
		}
		size += p.Len()
	}
	if m == negotiation.Protobuf {
		lm := envelope.AppendListMetadata(nil, &list)
		size += len(lm)
		parts[0].Plain = append(envelope.AppendEnvelopeHead(nil, c.gv, c.res.ListKind, size), lm...)
		parts[n+1].Plain = envelope.AppendEnvelopeTail(nil)
	} else {
		head, tail := c.listJSON(&list)
		// The newline Kubernetes' encoder ends JSON with.
		parts[0].Plain, parts[n+1].Plain = head, append(tail, '\n')
	}
	return parts, nil
}

// listJSON returns the compact JSON of a list around its items: the head
// ends with the '[' of the items, the tail begins with its ']'.
func (c *codec) listJSON(list *meta.ListMeta) (head, tail []byte) {
	if c.unstructured {
		return unstructuredListHead(c), unstructuredListTail(c, list)
	}
	b := append([]byte(`{"kind":`), strconv.Quote(c.res.ListKind)...)
	b = append(b, `,"apiVersion":`...)
	b = strconv.AppendQuote(b, c.gv)
	b = append(b, `,"metadata":`...)
	b = negotiation.AppendListMetaJSON(b, list)
	return append(b, `,"items":[`...), []byte("]}")
}

// pageMeta is the list metadata of a page.
func pageMeta(p *store.Page[Object]) meta.ListMeta {
	m := meta.ListMeta{ResourceVersion: p.ResourceVersion().String(), Continue: p.Continue()}
	if n, ok := p.RemainingItemCount(); ok {
		m.RemainingItemCount = &n
	}
	return m
}

// sameObject reports whether two states of an object are the same, so the
// store can skip a write that changes nothing (as Kubernetes does). The
// write pipeline has compared the objects it stores already, on their one
// encoding; other writes (controllers' through StoreOf) are encoded here.
func (f *inflight) sameObject(a, b Object) bool {
	if p, ok := f.get(a); ok {
		return p.same
	}
	return sameJSON(a, b)
}
