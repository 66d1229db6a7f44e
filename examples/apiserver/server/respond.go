package server

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/examples/apiserver/api"
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
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, rs *resource, res negotiation.Result, o api.Object) {
	body, err := s.encodeObject(r, rs, res, o)
	if err != nil {
		s.writeError(w, r, rs, err)
		return
	}
	s.respond(w, r, res, code, body)
}

func (s *Server) encodeObject(r *http.Request, rs *resource, res negotiation.Result, o api.Object) ([]byte, error) {
	c := rs.codec
	if res.Target != negotiation.TargetNone {
		inc, err := include(r, res)
		if err != nil {
			return nil, err
		}
		return c.conv.EncodeObject(res, inc, o)
	}
	if res.MediaType == negotiation.Protobuf {
		b, err := c.objectProto(s.store, o)
		if err != nil {
			return nil, err
		}
		return res.Encode(nil, b)
	}
	b, err := c.objectJSON(s.store, o)
	if err != nil {
		return nil, err
	}
	return res.Encode(b, nil)
}

// items are the objects of a list: a store page, or the objects a
// deletecollection deleted.
type items interface {
	Len() int
	Items() []api.Object
	// Encoded returns item i serialized by enc; the result may be shared.
	Encoded(i int, enc *store.Encoding[api.Object]) ([]byte, error)
}

// objects is a plain slice as items.
type objects []api.Object

func (l objects) Len() int            { return len(l) }
func (l objects) Items() []api.Object { return l }
func (l objects) Encoded(i int, enc *store.Encoding[api.Object]) ([]byte, error) {
	return enc.Append(nil, l[i])
}

// writeList writes a list as negotiated.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, rs *resource, res negotiation.Result, meta envelope.ListMeta, l items) {
	body, err := s.encodeList(r, rs, res, meta, l)
	if err != nil {
		s.writeError(w, r, rs, err)
		return
	}
	s.respond(w, r, res, http.StatusOK, body)
}

func (s *Server) encodeList(r *http.Request, rs *resource, res negotiation.Result, meta envelope.ListMeta, l items) ([]byte, error) {
	c := rs.codec
	if res.Target != negotiation.TargetNone {
		inc, err := include(r, res)
		if err != nil {
			return nil, err
		}
		return c.conv.EncodeList(res, inc, status.ListMeta{ResourceVersion: meta.ResourceVersion,
			Continue: meta.Continue, RemainingItemCount: meta.RemainingItemCount}, l.Items())
	}
	if res.MediaType == negotiation.Protobuf {
		var encErr error
		b := envelope.AppendEnvelopeFunc(nil, c.gv, c.res.ListKind, 0, func(b []byte) []byte {
			b = envelope.AppendListMetadata(b, &meta)
			for i := 0; i < l.Len() && encErr == nil; i++ {
				var item []byte
				if item, encErr = l.Encoded(i, c.itemProto); encErr == nil {
					b = envelope.AppendListItem(b, item)
				}
			}
			return b
		})
		if encErr != nil {
			return nil, encErr
		}
		return res.Encode(nil, b)
	}
	b := append([]byte(nil), `{"kind":`...)
	b = strconv.AppendQuote(b, c.res.ListKind)
	b = append(b, `,"apiVersion":`...)
	b = strconv.AppendQuote(b, c.gv)
	b = append(b, `,"metadata":`...)
	b = appendListMetaJSON(b, &meta)
	b = append(b, `,"items":[`...)
	for i := 0; i < l.Len(); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		item, err := l.Encoded(i, c.itemJSON)
		if err != nil {
			return nil, err
		}
		b = append(b, item...)
	}
	return res.Encode(append(b, "]}"...), nil)
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
