package server

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/examples/apiserver/patch"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
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

// jsonPatchOp is one JSON patch operation, for checking a patch's own
// fields in Warn and Strict mode.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from,omitempty"`
	Value any    `json:"value,omitempty"`
}

// patchFieldProblems returns the unknown and duplicate fields of the patch
// document itself, as Kubernetes reports them for Warn and Strict (those of
// a JSON patch prefixed "json patch "). A patch that is not JSON is a 400.
func patchFieldProblems(patchType string, body []byte) ([]string, error) {
	var v any = &map[string]any{}
	if patchType == jsonPatchType {
		v = &[]jsonPatchOp{}
	}
	texts, err := negotiation.Decode(body, negotiation.JSON, v, negotiation.DecodeOptions{FieldValidation: negotiation.FieldValidationWarn})
	if err != nil {
		var se *status.Error
		msg := err.Error()
		if errors.As(err, &se) {
			msg = se.Status.Message
		}
		return nil, status.NewBadRequest("error decoding patch: " + msg)
	}
	if patchType == jsonPatchType {
		for i := range texts {
			texts[i] = "json patch " + texts[i]
		}
	}
	return texts, nil
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request, t *target) error {
	res, err := t.res.negotiate(r, negotiation.Object)
	if err != nil {
		return err
	}
	accepted := []string{jsonPatchType, mergePatchType, applyPatchType}
	if t.res.api.PatchSchema != nil {
		accepted = []string{jsonPatchType, mergePatchType, strategicPatchType, applyPatchType}
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ct == applyPatchType:
		return status.NewUnsupportedMediaType("server-side apply (" + applyPatchType + ") is not supported by this server; " +
			"use client-side apply (kubectl apply without --server-side) or a json, merge or strategic merge patch")
	case ct == strategicPatchType && t.res.api.PatchSchema == nil,
		ct != jsonPatchType && ct != mergePatchType && ct != strategicPatchType:
		return status.NewUnsupportedBodyMediaType(accepted...)
	}
	opts, err := negotiation.ParseWriteOptions(r.URL.Query(), negotiation.PatchOptions)
	if err != nil {
		return err
	}
	body, err := readBody(r, t.res.maxBody)
	if err != nil {
		return err
	}
	var patchProblems []string
	if opts.FieldValidation != negotiation.FieldValidationIgnore {
		if patchProblems, err = patchFieldProblems(ct, body); err != nil {
			return err
		}
	}
	var warnings []string
	out, err := s.updateObject(r.Context(), t, opts.DryRun, func(cur api.Object) (api.Object, error) {
		doc, err := t.res.codec.objectJSON(cur)
		if err != nil {
			return nil, err
		}
		var patched []byte
		switch ct {
		case jsonPatchType:
			patched, err = patch.JSONPatch(doc, body, patch.Limits{MaxCopyBytes: t.res.maxBody})
		case mergePatchType:
			patched, err = patch.MergePatch(doc, body)
		default:
			patched, err = patch.StrategicMergePatch(doc, body, t.res.api.PatchSchema)
		}
		if err != nil {
			return nil, patchError(err)
		}
		// The patched object is decoded as a body would be; Kubernetes
		// reports what goes wrong as a 422 on the field "patch".
		o := t.res.api.New()
		fv := negotiation.FieldValidationWarn
		if opts.FieldValidation == negotiation.FieldValidationIgnore {
			fv = negotiation.FieldValidationIgnore
		}
		problems, err := negotiation.Decode(patched, negotiation.JSON, o, negotiation.DecodeOptions{
			Kind: t.res.api.Kind, Version: t.res.api.Version, FieldValidation: fv,
		})
		if err != nil {
			return nil, status.NewInvalid(status.GroupKind{}, "", status.InvalidValue("patch", string(patched), errorMessage(err)))
		}
		problems = append(append([]string(nil), patchProblems...), problems...)
		if opts.FieldValidation == negotiation.FieldValidationStrict && len(problems) > 0 {
			return nil, status.NewInvalid(status.GroupKind{}, "", status.InvalidValue("patch", string(patched),
				"strict decoding error: "+strings.Join(problems, ", ")))
		}
		warnings = problems
		if err := checkTypes(o.Types(), t.res); err != nil {
			return nil, err
		}
		*o.Types() = meta.TypeMeta{}
		if err := matchURL(t, o.Meta()); err != nil {
			return nil, err
		}
		return o, nil
	})
	if err != nil {
		return err
	}
	negotiation.WriteWarnings(w.Header(), warnings)
	return s.writeObject(w, r, http.StatusOK, t.res, res, out)
}

// patchError maps the patch package's errors to Kubernetes' codes: a
// malformed patch is a 400, one that cannot apply a 422, one too large a
// 413.
func patchError(err error) error {
	switch {
	case errors.Is(err, patch.ErrTooLarge):
		return status.NewRequestEntityTooLarge(err.Error())
	case errors.Is(err, patch.ErrNotApplicable):
		return &status.Error{Status: status.Status{
			Kind: "Status", APIVersion: "v1", Status: status.StatusFailure,
			Message: err.Error(), Reason: status.ReasonInvalid, Code: http.StatusUnprocessableEntity,
		}}
	}
	return status.NewBadRequest(err.Error())
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
	var o api.Object
	var deleted bool
	if t.res.api.Kind == "Namespace" {
		o, deleted, err = s.deleteNamespace(r.Context(), t.res, t.name, opts)
	} else {
		opts.ReadOnlyResult = true // only encoded
		o, deleted, err = t.res.store.Delete(r.Context(), t.namespace, t.name, opts)
	}
	switch {
	case err != nil:
		return err
	case deleted && !t.res.api.TypedListItems:
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
		pb = appendStatusEnvelope(nil, st)
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
	q, err := rv.ParseQuery(r.URL.RawQuery)
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
	var items []api.Object
	if t.res.api.Kind == "Namespace" {
		page, err := t.res.store.List(ctx, "", list)
		if err != nil {
			return err
		}
		items = page.Views()
		for _, o := range items {
			if _, _, err := s.deleteNamespace(ctx, t.res, o.Meta().Name, opts); err != nil && !status.IsNotFound(err) {
				return err
			}
		}
	} else {
		opts.ReadOnlyResult = true // only encoded
		if items, err = t.res.store.DeleteCollection(ctx, t.namespace, list, opts); err != nil {
			return err
		}
	}
	return s.writeList(w, r, t.res, res, meta.ListMeta{ResourceVersion: s.store.Revision().String()}, objects(items))
}
