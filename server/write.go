package server

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"strings"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// applyPatchType is the media type of a server-side apply; package patch
// names the other three PATCH bodies.
const applyPatchType = "application/apply-patch+yaml"

// patchType returns the media type of a patch's body, or the 415 for one
// that the endpoint of t's object does not take (for its views too: a
// custom resource takes no strategic merge patch).
func patchType(r *http.Request, t *target) (string, error) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ct == applyPatchType, ct == patch.JSONPatchType, ct == patch.MergePatchType,
		ct == patch.StrategicMergePatchType && t.res.def.PatchSchema != nil:
		return ct, nil
	case t.res.def.PatchSchema != nil:
		return ct, status.NewUnsupportedBodyMediaType(patch.JSONPatchType, patch.MergePatchType, patch.StrategicMergePatchType, applyPatchType)
	}
	return ct, status.NewUnsupportedBodyMediaType(patch.JSONPatchType, patch.MergePatchType, applyPatchType)
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request, t *target) error {
	r = withWarningsOf(w, r)
	v := t.view()
	res, err := v.res.negotiate(r, negotiation.Object)
	if err != nil {
		return err
	}
	ct, err := patchType(r, t)
	if err != nil {
		return err
	}
	if ct == applyPatchType {
		return s.apply(w, r, t, v, res)
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
	out, done, err := s.updateView(r.Context(), t, v, opts.DryRun, &opts.owner, func(cur Object) (Object, error) {
		doc, err := v.res.codec.objectJSON(cur) // cached for the stored object
		if err != nil {
			return nil, err
		}
		o, warns, err := s.patched(t, v.res, doc, body, ct, opts)
		warnings = warns
		return o, err
	})
	defer done()
	if err != nil {
		return err
	}
	addWarnings(r.Context(), warnings)
	return s.writeView(w, r, http.StatusOK, v, res, out)
}

// patchedAsKubernetes is the patched document as the 422 of a patch that
// does not decode shows it, in kube-apiserver's key order: its JSON and
// merge patches (evanphx/json-patch v4) give a map of the top level,
// whose keys come out sorted, and keep the values below as they were; a
// strategic merge patch's result is maps throughout, sorted at every
// level. (A JSON or merge patch's library also sorts the objects the patch
// went into below the top; that is not reproduced.)
func patchedAsKubernetes(doc []byte, ct string) string {
	var v any
	if ct != patch.StrategicMergePatchType {
		var top map[string]json.RawMessage
		if json.Unmarshal(doc, &top) != nil {
			return string(doc)
		}
		v = top
	} else {
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber() // numbers as written
		if dec.Decode(&v) != nil {
			return string(doc)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(doc)
	}
	return string(b)
}

// patched applies the patch body of media type ct to doc, the JSON of an
// object of rs (the object's resource, or a view's), with rs's patch
// strategies, and decodes the result as a body would be decoded,
// returning the problems Warn mode reports. Kubernetes reports what goes
// wrong in decoding as a 422 on the field "patch".
func (s *Server) patched(t *target, rs *resource, doc, body []byte, ct string, opts writeOptions) (Object, []string, error) {
	applied, err := patch.Apply(doc, body, ct, patch.Options{
		Schema:       rs.def.PatchSchema,
		CheckFields:  opts.FieldValidation != negotiation.FieldValidationIgnore,
		MaxCopyBytes: rs.maxBody,
	})
	if err != nil {
		return nil, nil, err
	}
	patched := applied.Doc
	o := rs.def.New()
	fv := negotiation.FieldValidationWarn
	if opts.FieldValidation == negotiation.FieldValidationIgnore {
		fv = negotiation.FieldValidationIgnore
	}
	problems, err := negotiation.Decode(patched, negotiation.JSON, o, rs.decodeOptions(fv))
	if err != nil {
		return nil, nil, status.NewInvalid(status.GroupKind{}, "", status.InvalidValue("patch", patchedAsKubernetes(patched, ct), errorMessage(err)))
	}
	problems = append(applied.FieldProblems, problems...)
	if opts.FieldValidation == negotiation.FieldValidationStrict && len(problems) > 0 {
		return nil, nil, status.NewInvalid(status.GroupKind{}, "", status.InvalidValue("patch", patchedAsKubernetes(patched, ct),
			"strict decoding error: "+strings.Join(problems, ", ")))
	}
	if err := checkTypes(o.Types(), rs); err != nil {
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
	r = withWarningsOf(w, r)
	res, err := t.res.negotiate(r, negotiation.Object)
	if err != nil {
		return err
	}
	opts, accepted, err := s.parseDelete(r, t.res)
	if err != nil {
		return err
	}
	o, deleted, err := s.deleteObject(r.Context(), t, t.name, opts)
	switch {
	case err != nil:
		return err
	case deleted && t.res.def.ReturnDeletedObject:
		return s.writeObject(w, r, http.StatusOK, t.res, res, o)
	case deleted:
		// kube-apiserver answers an immediate deletion with a Status,
		// of built-in and custom resources alike (kube-apiserver 1.37.1:
		// DELETE .../widgets/a => {"kind":"Status",...,"status":"Success",
		// "details":{"name":"a","group":"example.com","kind":"widgets","uid":...}}).
		return s.writeSuccess(w, r, res, http.StatusOK, status.NewSuccess(&status.Details{
			Name: t.name, Group: t.res.gr.Group, Kind: t.res.gr.Resource, UID: o.Meta().UID}))
	case !deleted && accepted:
		return s.writeObject(w, r, http.StatusAccepted, t.res, res, o)
	}
	return s.writeObject(w, r, http.StatusOK, t.res, res, o)
}

// deleteObject deletes the object name of t (its resource and namespace),
// or marks it while finalizers hold it, with Resource.Delete if the
// resource has one. With Resource.Admit or Options.Admission.Validate,
// the hooks see the object first, and the deletion is of that version:
// another write in between makes them look again.
func (s *Server) deleteObject(ctx context.Context, t *target, name string, opts store.DeleteOptions) (Object, bool, error) {
	del := func(opts store.DeleteOptions) (Object, bool, error) {
		if f := t.res.def.Delete; f != nil {
			return f(ctx, t.res.store, t.namespace, name, opts)
		}
		opts.ReadOnlyResult = true // only encoded
		return t.res.store.Delete(ctx, t.namespace, name, opts)
	}
	if t.res.def.Admit == nil && s.opts.Admission.Validate == nil {
		return del(opts)
	}
	a := attributes(ctx, t, OperationDelete, name, opts.DryRun)
	for attempt := 1; ; attempt++ {
		cur, err := t.res.store.View(ctx, t.namespace, name, rv.Read{Semantics: rv.MostRecent})
		if err != nil {
			return nil, false, err
		}
		old, err := t.res.def.read(cur)
		if err != nil {
			return nil, false, readFailed(t.res, err, false)
		}
		if err := s.check(ctx, a, nil, old); err != nil {
			return nil, false, err
		}
		if err := s.admit(ctx, a, nil, old); err != nil {
			return nil, false, err
		}
		o := opts
		if o.Preconditions.ResourceVersion == nil {
			v := cur.Meta().ResourceVersion
			o.Preconditions.ResourceVersion = &v
		}
		out, deleted, err := del(o)
		if status.IsConflict(err) && opts.Preconditions.ResourceVersion == nil && attempt < 5 {
			continue // changed since it was admitted
		}
		return out, deleted, err
	}
}

// writeSuccess writes a Status Success (the answer to a deletion, or to
// a Resource.Create) with HTTP status code. It is never converted: a
// client that asked for a Table gets the Status in the Table's media
// type.
func (s *Server) writeSuccess(w http.ResponseWriter, r *http.Request, res negotiation.Result, code int, st status.Status) error {
	res.Target = negotiation.TargetNone
	noteSuccess(w, &st)
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
	s.respond(w, r, res, code, body)
	return nil
}

func (s *Server) deleteCollection(w http.ResponseWriter, r *http.Request, t *target) error {
	r = withWarningsOf(w, r)
	res, err := t.res.negotiate(r, negotiation.List)
	if err != nil {
		return err
	}
	q, err := collectionOptions(r)
	if err != nil {
		return err
	}
	q.Watch = false
	list, err := s.listOptions(t.res, q)
	if err != nil {
		return err
	}
	opts, _, err := s.parseDelete(r, t.res)
	if err != nil {
		return err
	}
	// A cluster deletes what a list with the same query would answer
	// (Kubernetes' generic registry Store.DeleteCollection lists, then
	// deletes each item by name) and answers with that list as listed:
	// its resourceVersion, continue token and remainingItemCount, the
	// items as they were. So limit deletes one page, and continue the page
	// after the token's, at the token's revision.
	ctx := r.Context()
	if t.noNamespace {
		// namespaces//<resource>: a cluster lists every namespace, then
		// fails to delete the first object it found, as it has no
		// namespace to name it by.
		page, err := t.res.store.List(ctx, "", list)
		switch {
		case err != nil:
			return err
		case page.Len() > 0:
			return errNamespaceRequired()
		}
		return s.writeList(w, r, t.res, res, pageMeta(page), page)
	}
	paged := list.Read.Limit > 0 || list.Read.Continue != ""
	if !paged {
		list.Read = rv.Read{Semantics: rv.MostRecent}
	}
	if paged || t.res.def.Delete != nil || t.res.def.Admit != nil || s.opts.Admission.Validate != nil {
		// One deletion at a time, each admitted, as Kubernetes deletes a
		// collection.
		page, err := t.res.store.List(ctx, t.namespace, list)
		if err != nil {
			return err
		}
		for _, o := range page.Views() {
			m := o.Meta()
			tt := *t
			tt.namespace = m.Namespace
			if _, _, err := s.deleteObject(ctx, &tt, m.Name, opts); err != nil && !status.IsNotFound(err) {
				return err
			}
		}
		return s.writeList(w, r, t.res, res, pageMeta(page), page)
	}
	// The whole collection at once, under the store's writer lock where it
	// has one; the list's revision is the one before the deletions.
	before := t.res.store.Store().Revision()
	opts.ReadOnlyResult = true // only encoded
	deleted, err := t.res.store.DeleteCollection(ctx, t.namespace, list, opts)
	if err != nil {
		return err
	}
	return s.writeList(w, r, t.res, res, meta.ListMeta{ResourceVersion: before.String()}, objects(deleted))
}
