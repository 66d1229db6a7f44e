package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// respond writes a successful body; the request may have gone away, in
// which case there is nobody to tell.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, res negotiation.Result, code int, body []byte) {
	if err := negotiation.WriteResponse(w, r, res, code, body); err != nil {
		s.log.Debug("writing a response", "err", err)
	}
}

// include reads includeObject, which only Tables use (as Kubernetes).
func include(r *http.Request, res negotiation.Result) (negotiation.IncludeObjectPolicy, error) {
	if !res.Target.IsTable() {
		return negotiation.IncludeMetadata, nil
	}
	return negotiation.ParseIncludeObject(r.URL.Query().Get("includeObject"))
}

// writeObject writes one object as negotiated: itself, its
// PartialObjectMetadata or a one-row Table.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, rs *resource, res negotiation.Result, o Object) error {
	body, err := s.encodeObject(r, rs, res, o)
	if err != nil {
		return err
	}
	s.respond(w, r, res, code, body)
	return nil
}

func (s *Server) encodeObject(r *http.Request, rs *resource, res negotiation.Result, o Object) ([]byte, error) {
	c := rs.codec
	if res.Target != negotiation.TargetNone {
		inc, err := include(r, res)
		if err != nil {
			return nil, err
		}
		return c.converter(res.MediaType).EncodeObject(res, inc, o)
	}
	if res.MediaType == negotiation.Protobuf {
		b, err := c.objectProto(o)
		if err != nil {
			return nil, err
		}
		return res.Encode(nil, b)
	}
	b, err := c.objectJSON(o)
	if err != nil {
		return nil, err
	}
	return res.Encode(b, nil)
}

// items are the objects of a list: a store page, or the objects a
// deletecollection deleted.
type items interface {
	Len() int
	// Views returns the objects, which must not be modified.
	Views() []Object
	// Encoded returns item i serialized by enc; the result may be shared.
	Encoded(i int, enc *store.Encoding[Object]) ([]byte, error)
}

// objects is a plain slice as items.
type objects []Object

func (l objects) Len() int        { return len(l) }
func (l objects) Views() []Object { return l }
func (l objects) Encoded(i int, enc *store.Encoding[Object]) ([]byte, error) {
	return enc.Append(nil, l[i])
}

// writeList writes a list as negotiated.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, rs *resource, res negotiation.Result, lm meta.ListMeta, l items) error {
	if res.Target == negotiation.TargetNone && (res.MediaType == negotiation.Protobuf || res.MediaType == negotiation.JSON && !res.Pretty) {
		parts, err := rs.codec.listParts(res.MediaType, lm, l)
		if err != nil {
			return err
		}
		if err := negotiation.WriteParts(w, r, res, http.StatusOK, parts); err != nil {
			s.log.Debug("writing a response", "err", err)
		}
		return nil
	}
	body, err := s.encodeList(r, rs, res, lm, l)
	if err != nil {
		return err
	}
	s.respond(w, r, res, http.StatusOK, body)
	return nil
}

func (s *Server) encodeList(r *http.Request, rs *resource, res negotiation.Result, lm meta.ListMeta, l items) ([]byte, error) {
	c := rs.codec
	if res.Target != negotiation.TargetNone {
		inc, err := include(r, res)
		if err != nil {
			return nil, err
		}
		return c.converter(res.MediaType).EncodeList(res, inc, lm, l.Views())
	}
	if res.MediaType == negotiation.Protobuf {
		// Sized exactly, so the envelope is written in one buffer with
		// nothing moved.
		parts := make([][]byte, l.Len())
		size := 1 + sizeVarint(uint64(meta.SizeListMeta(&lm))) + meta.SizeListMeta(&lm)
		for i := range parts {
			item, err := l.Encoded(i, c.itemProto)
			if err != nil {
				return nil, err
			}
			parts[i] = item
			size += 1 + sizeVarint(uint64(len(item))) + len(item)
		}
		b := make([]byte, 0, envelope.SizeEnvelope(c.gv, c.res.ListKind, size))
		b = envelope.AppendEnvelopeFunc(b, c.gv, c.res.ListKind, size, func(b []byte) []byte {
			b = envelope.AppendListMetadata(b, &lm)
			for _, item := range parts {
				b = envelope.AppendListItem(b, item)
			}
			return b
		})
		return res.Encode(nil, b)
	}
	// The items are cached encodings: collect them first to allocate the
	// body once.
	parts := make([][]byte, l.Len())
	size := 128 + len(c.res.ListKind) + len(c.gv) + len(lm.Continue)
	for i := range parts {
		item, err := l.Encoded(i, c.itemJSON)
		if err != nil {
			return nil, err
		}
		parts[i] = item
		size += len(item) + 1
	}
	b := make([]byte, 0, size)
	if c.unstructured {
		b = append(b, unstructuredListHead(c)...)
		for i, item := range parts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, item...)
		}
		return res.Encode(append(b, unstructuredListTail(c, &lm)...), nil)
	}
	b = append(b, `{"kind":`...)
	b = strconv.AppendQuote(b, c.res.ListKind)
	b = append(b, `,"apiVersion":`...)
	b = strconv.AppendQuote(b, c.gv)
	b = append(b, `,"metadata":`...)
	b = negotiation.AppendListMetaJSON(b, &lm)
	b = append(b, `,"items":[`...)
	for i, item := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, item...)
	}
	// The newline Kubernetes' encoder ends JSON with; Encode keeps it
	// rather than copying the body to add it.
	return res.Encode(append(b, "]}\n"...), nil)
}

func sizeVarint(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// writeError writes err as a Kubernetes Status, in a media type rs serves
// (any, for requests outside a resource).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, rs *resource, err error) {
	var e negotiation.Endpoint
	if rs != nil {
		e = rs.endpoint(negotiation.Object)
	}
	var se *status.Error
	if !errors.As(err, &se) {
		// Not a client's fault: worth a log line with the detail.
		s.log.Error("request failed", "method", r.Method, "uri", r.URL.RequestURI(), "err", err)
	}
	e.WriteError(w, r, err)
}
