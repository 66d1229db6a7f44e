package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/examples/apiserver/api"
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
	res *api.Resource
	st  *store.Store[api.Object]
	gv  string
	// typed is `{"kind":"<Kind>","apiVersion":"<gv>",`, spliced in front
	// of an object's JSON members.
	typed     []byte
	itemJSON  *store.Encoding[api.Object] // with kind and apiVersion only for custom resources
	itemProto *store.Encoding[api.Object] // the object's own message, no envelope; nil without protobuf
	// metaJSON and metaProto are the metadata alone, which every Table row
	// and PartialObjectMetadata carries: cached per version too, as kubectl
	// reads little else.
	metaJSON, metaProto *store.Encoding[api.Object]
	// eventJSON and eventProto encode the objects of watch events;
	// eventProto is nil without protobuf.
	eventJSON, eventProto *eventEncoder
	// conv and convProto make Tables and PartialObjectMetadata; convProto
	// also gives the protobuf form of metadata.
	conv, convProto *negotiation.Converter[api.Object]
}

func newCodec(r *api.Resource, st *store.Store[api.Object], now func() time.Time) *codec {
	c := &codec{res: r, st: st, gv: r.GroupVersion()}
	c.typed = []byte(`{"kind":` + strconv.Quote(r.Kind) + `,"apiVersion":` + strconv.Quote(c.gv) + `,`)
	c.itemJSON = store.NewEncoding(func(dst []byte, o api.Object) ([]byte, error) {
		return c.appendJSON(dst, o, r.TypedListItems)
	})
	c.eventJSON = &eventEncoder{c: c}
	if r.Protobuf() {
		c.itemProto = store.NewEncoding(func(dst []byte, o api.Object) ([]byte, error) {
			return o.(api.ProtoObject).AppendProto(dst), nil
		})
		c.eventProto = &eventEncoder{c: c, protobuf: true}
	}
	c.metaJSON = store.NewEncoding(func(dst []byte, o api.Object) ([]byte, error) {
		b, err := json.Marshal(o.Meta())
		return append(dst, b...), err
	})
	c.metaProto = store.NewEncoding(func(dst []byte, o api.Object) ([]byte, error) {
		return meta.AppendObjectMeta(dst, o.Meta()), nil
	})
	var cols []negotiation.Column[api.Object]
	for _, col := range r.Columns {
		cell := col.Cell
		cols = append(cols, negotiation.Column[api.Object]{
			Definition: negotiation.TableColumnDefinition{Name: col.Name, Type: col.Type, Format: col.Format,
				Description: col.Description, Priority: col.Priority},
			Cell: func(o api.Object) any { return cell(o, now()) },
		})
	}
	object := func(o api.Object) ([]byte, error) { return c.objectJSON(o) }
	// The protobuf form of metadata is only worth computing for protobuf
	// responses.
	c.conv = &negotiation.Converter[api.Object]{Columns: cols, Object: object,
		Meta: func(o api.Object) negotiation.Meta { return c.objectMeta(o, false) }}
	c.convProto = &negotiation.Converter[api.Object]{Columns: cols, Object: object,
		Meta: func(o api.Object) negotiation.Meta { return c.objectMeta(o, true) }}
	return c
}

// converter returns the converter for a response in media type m.
func (c *codec) converter(m negotiation.MediaType) *negotiation.Converter[api.Object] {
	if m == negotiation.Protobuf {
		return c.convProto
	}
	return c.conv
}

// untyped returns o without kind and apiVersion: o itself when it has
// none, as every stored object, else a copy.
func untyped(o api.Object) api.Object {
	if *o.Types() == (meta.TypeMeta{}) {
		return o
	}
	c := o.DeepCopyObject()
	*c.Types() = meta.TypeMeta{}
	return c
}

// appendJSON appends the JSON of o, with kind and apiVersion first when
// typed is set.
func (c *codec) appendJSON(dst []byte, o api.Object, typed bool) ([]byte, error) {
	b, err := json.Marshal(untyped(o))
	if err != nil {
		return dst, err
	}
	if !typed {
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
func (c *codec) objectJSON(o api.Object) ([]byte, error) {
	item, err := c.st.Encoded(o, c.itemJSON)
	if err != nil || c.res.TypedListItems {
		return item, err
	}
	return c.appendTyped(make([]byte, 0, len(item)+len(c.typed)), item), nil
}

// objectProto returns o in its protobuf envelope.
func (c *codec) objectProto(o api.Object) ([]byte, error) {
	raw, err := c.st.Encoded(o, c.itemProto)
	if err != nil {
		return nil, err
	}
	return envelope.AppendEnvelope(make([]byte, 0, envelope.SizeEnvelope(c.gv, c.res.Kind, len(raw))), c.gv, c.res.Kind, raw), nil
}

// objectMeta is what package negotiation needs of an object for Tables
// and PartialObjectMetadata; proto adds the protobuf ObjectMeta.
func (c *codec) objectMeta(o api.Object, proto bool) negotiation.Meta {
	j, _ := c.st.Encoded(o, c.metaJSON) // strings, maps, times: cannot fail
	nm := negotiation.Meta{ObjectMeta: o.Meta(), JSON: j}
	if proto {
		nm.Proto, _ = c.st.Encoded(o, c.metaProto)
	}
	return nm
}

// pageMeta is the list metadata of a page.
func pageMeta(p *store.Page[api.Object]) meta.ListMeta {
	m := meta.ListMeta{ResourceVersion: p.ResourceVersion().String(), Continue: p.Continue()}
	if n, ok := p.RemainingItemCount(); ok {
		m.RemainingItemCount = &n
	}
	return m
}

// appendListMetaJSON appends metav1.ListMeta as JSON.
func appendListMetaJSON(dst []byte, m *meta.ListMeta) []byte {
	b, _ := json.Marshal(m) // cannot fail
	return append(dst, b...)
}

// sameObject reports whether two states of an object are the same, so the
// store can skip a write that changes nothing (as Kubernetes does).
func sameObject(a, b api.Object) bool {
	ja, err1 := json.Marshal(untyped(a))
	jb, err2 := json.Marshal(untyped(b))
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}
