package server

import (
	"errors"
	"net/http"

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
	return negotiation.ParseIncludeObject(includeObjectParam(r))
}

// writeObject writes one object as negotiated: itself, its
// PartialObjectMetadata or a one-row Table.
func (s *Server) writeObject(w http.ResponseWriter, r *http.Request, code int, rs *resource, res negotiation.Result, o Object) error {
	if c := rs.codec; typedJSON(c, res) {
		// The common GET and create: kind and apiVersion, the cached
		// JSON after its '{' and the newline, written as they are.
		item, err := c.st.Encoded(o, c.itemJSON)
		if err != nil {
			return err
		}
		if err := negotiation.WriteResponseParts(w, r, res, code, c.typed, item[1:], newlineBytes); err != nil {
			s.log.Debug("writing a response", "err", err)
		}
		return nil
	}
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
	if typedJSON(c, res) {
		// Kind and apiVersion, the cached JSON and the newline in one
		// allocation (res.Encode would copy to add it).
		item, err := c.st.Encoded(o, c.itemJSON)
		if err != nil {
			return nil, err
		}
		return append(c.appendTyped(make([]byte, 0, len(c.typed)+len(item)), item), '\n'), nil
	}
	b, err := c.objectJSON(o)
	if err != nil {
		return nil, err
	}
	return res.Encode(b, nil)
}

// typedJSON reports whether an object of c is answered in res as its
// compact JSON with kind and apiVersion added and a newline: c.typed, its
// cached JSON after the '{', and a newline.
func typedJSON(c *codec, res negotiation.Result) bool {
	return res.Target == negotiation.TargetNone && res.MediaType == negotiation.JSON && !res.Pretty && !c.res.TypedListItems
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

// defaultListEncodingBytes is the default of
// Options.Limits.MaxListEncodingBytes.
const defaultListEncodingBytes = 64 << 20

// newListBudget returns the budget Options.Limits.MaxListEncodingBytes asks for.
func newListBudget(n int64) *negotiation.Budget {
	switch {
	case n < 0:
		return nil
	case n == 0:
		n = defaultListEncodingBytes
	}
	return negotiation.NewBudget(n)
}

// writeList writes a list as negotiated, item by item: from the items'
// cached encodings, or converting one item at a time within the server's
// list budget, so that a response holds a few items, never the list.
func (s *Server) writeList(w http.ResponseWriter, r *http.Request, rs *resource, res negotiation.Result, lm meta.ListMeta, l items) error {
	c := rs.codec
	_, cached := l.(*store.Page[Object])
	var err error
	switch {
	case res.Target == negotiation.TargetNone && (res.MediaType == negotiation.Protobuf || res.MediaType == negotiation.JSON && !res.Pretty && cached):
		var parts []negotiation.Part
		if parts, err = c.listParts(res.MediaType, lm, l); err != nil {
			return err
		}
		if err := negotiation.WriteParts(w, r, res, http.StatusOK, parts); err != nil {
			s.log.Debug("writing a response", "err", err)
		}
		return nil
	case res.Target == negotiation.TargetNone:
		head, tail := c.listJSON(&lm)
		err = negotiation.WriteList(w, r, res, http.StatusOK, negotiation.ListBody{Head: head, Tail: tail, Len: l.Len(),
			Item: func(i int) ([]byte, error) { return l.Encoded(i, c.itemJSON) }}, s.listBudget)
	case res.MediaType == negotiation.Protobuf && !res.Target.IsTable():
		var parts []negotiation.Part
		if parts, err = c.converter(res.MediaType).ListParts(res, lm, l.Views()); err != nil {
			return err
		}
		if err := negotiation.WriteParts(w, r, res, http.StatusOK, parts); err != nil {
			s.log.Debug("writing a response", "err", err)
		}
		return nil
	default:
		var inc negotiation.IncludeObjectPolicy
		if inc, err = include(r, res); err != nil {
			return err
		}
		conv, views := c.converter(res.MediaType), l.Views()
		if cached && res.MediaType != negotiation.Protobuf {
			conv = c.forList(conv, l, views)
		}
		var body negotiation.ListBody
		if body, err = conv.ListBody(res, inc, lm, views); err != nil {
			return err
		}
		err = negotiation.WriteList(w, r, res, http.StatusOK, body, s.listBudget)
	}
	if errors.Is(err, negotiation.ErrBodyTruncated) {
		// The status line is sent: only a broken connection tells the
		// client that the body is not whole.
		s.log.Debug("a list response was cut short", "err", err)
		panic(http.ErrAbortHandler)
	}
	return err
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
	noteStatus(w, err)
	e.WriteError(w, r, err)
}
