package server

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// The patch media types.
const (
	jsonPatchType      = "application/json-patch+json"
	mergePatchType     = "application/merge-patch+json"
	strategicPatchType = "application/strategic-merge-patch+json"
	applyPatchType     = "application/apply-patch+yaml"
)

func (s *Server) patch(w http.ResponseWriter, r *http.Request, t *target) error {
	res, err := t.res.negotiate(r, negotiation.Object)
	if err != nil {
		return err
	}
	accepted := []string{jsonPatchType, mergePatchType, applyPatchType}
	if t.res.def.PatchSchema != nil {
		accepted = []string{jsonPatchType, mergePatchType, strategicPatchType, applyPatchType}
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ct == applyPatchType:
		return s.apply(w, r, t, res)
	case ct == strategicPatchType && t.res.def.PatchSchema == nil,
		ct != jsonPatchType && ct != mergePatchType && ct != strategicPatchType:
		return status.NewUnsupportedBodyMediaType(accepted...)
	}
	opts, err := parseWriteOptions(r, negotiation.PatchOptions, false)
	if err != nil {
		return err
	}
	body, err := negotiation.ReadBodyBytes(r, t.res.maxBody)
	if err != nil {
		return err
	}
	var warnings []string
	out, err := s.updateObject(r.Context(), t, opts.DryRun, &opts.owner, func(cur Object) (Object, error) {
		doc, err := t.res.codec.objectJSON(cur)
		if err != nil {
			return nil, err
		}
		o, warns, err := s.patched(t, doc, body, ct, opts, t.res.def.PatchSchema)
		warnings = warns
		return o, err
	})
	if err != nil {
		return err
	}
	negotiation.WriteWarnings(w.Header(), warnings)
	return s.writeObject(w, r, http.StatusOK, t.res, res, out)
}

// patched applies the patch body of media type ct to doc, the JSON of an
// object of t.res, and decodes the result as a body would be decoded,
// returning the problems Warn mode reports. Kubernetes reports what goes
// wrong in decoding as a 422 on the field "patch".
func (s *Server) patched(t *target, doc, body []byte, ct string, opts writeOptions, schema *patch.Schema) (Object, []string, error) {
	applied, err := patch.Apply(doc, body, ct, patch.Options{
		Schema:       schema,
		CheckFields:  opts.FieldValidation != negotiation.FieldValidationIgnore,
		MaxCopyBytes: t.res.maxBody,
	})
	if err != nil {
		return nil, nil, err
	}
	patched := applied.Doc
	o := t.res.def.New()
	fv := negotiation.FieldValidationWarn
	if opts.FieldValidation == negotiation.FieldValidationIgnore {
		fv = negotiation.FieldValidationIgnore
	}
	problems, err := negotiation.Decode(patched, negotiation.JSON, o, t.res.decodeOptions(fv))
	if err != nil {
		return nil, nil, status.NewInvalid(status.GroupKind{}, "", status.InvalidValue("patch", string(patched), errorMessage(err)))
	}
	problems = append(applied.FieldProblems, problems...)
	if opts.FieldValidation == negotiation.FieldValidationStrict && len(problems) > 0 {
		return nil, nil, status.NewInvalid(status.GroupKind{}, "", status.InvalidValue("patch", string(patched),
			"strict decoding error: "+strings.Join(problems, ", ")))
	}
	if err := checkTypes(o.Types(), t.res); err != nil {
		return nil, nil, err
	}
	*o.Types() = meta.TypeMeta{}
	if err := matchURL(t, o.Meta()); err != nil {
		return nil, nil, err
	}
	return o, problems, nil
}

// errorMessage is the message of the Status err renders as.
func errorMessage(err error) string { return status.FromError(err).Message }

func (s *Server) delete(w http.ResponseWriter, r *http.Request, t *target) error {
	res, err := t.res.negotiate(r, negotiation.Object)
	if err != nil {
		return err
	}
	opts, accepted, err := s.parseDelete(r, t.res)
	if err != nil {
		return err
	}
	var o Object
	var deleted bool
	if t.res.def.Delete != nil {
		o, deleted, err = t.res.def.Delete(r.Context(), t.res.store, t.namespace, t.name, opts)
	} else {
		opts.ReadOnlyResult = true // only encoded
		o, deleted, err = t.res.store.Delete(r.Context(), t.namespace, t.name, opts)
	}
	switch {
	case err != nil:
		return err
	case deleted && !t.res.def.TypedListItems:
		// Core resources answer an immediate deletion with a Status;
		// custom resources return the deleted object.
		return s.writeSuccess(w, r, res, status.NewSuccess(&status.Details{
			Name: t.name, Group: t.res.gr.Group, Kind: t.res.gr.Resource, UID: o.Meta().UID}))
	case !deleted && accepted:
		return s.writeObject(w, r, http.StatusAccepted, t.res, res, o)
	}
	return s.writeObject(w, r, http.StatusOK, t.res, res, o)
}

// writeSuccess writes a Status Success (the answer to a deletion). It is
// never converted: a client that asked for a Table gets the Status in the
// Table's media type.
func (s *Server) writeSuccess(w http.ResponseWriter, r *http.Request, res negotiation.Result, st status.Status) error {
	res.Target = negotiation.TargetNone
	j, err := json.Marshal(st)
	if err != nil {
		return err
	}
	var pb []byte
	if res.MediaType == negotiation.Protobuf {
		pb = negotiation.AppendStatusProtobuf(nil, &st)
	}
	body, err := res.Encode(j, pb)
	if err != nil {
		return err
	}
	s.respond(w, r, res, http.StatusOK, body)
	return nil
}

func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, t *target) error {
	res, err := t.res.negotiate(r, negotiation.List)
	if err != nil {
		return err
	}
	q, err := collectionOptions(r)
	if err != nil {
		return err
	}
	q.Watch = false
	list, err := listOptions(t.res, q)
	if err != nil {
		return err
	}
	opts, _, err := s.parseDelete(r, t.res)
	if err != nil {
		return err
	}
	// The objects to delete are those there now, up to the limit.
	list.Read = rv.Read{Semantics: rv.MostRecent, Limit: list.Read.Limit}
	ctx := r.Context()
	var items []Object
	if del := t.res.def.Delete; del != nil {
		page, err := t.res.store.List(ctx, t.namespace, list)
		if err != nil {
			return err
		}
		items = page.Views()
		for _, o := range items {
			if _, _, err := del(ctx, t.res.store, t.namespace, o.Meta().Name, opts); err != nil && !status.IsNotFound(err) {
				return err
			}
		}
	} else {
		opts.ReadOnlyResult = true // only encoded
		if items, err = t.res.store.DeleteCollection(ctx, t.namespace, list, opts); err != nil {
			return err
		}
	}
	return s.writeList(w, r, t.res, res, meta.ListMeta{ResourceVersion: t.res.store.Store().Revision().String()}, objects(items))
}
