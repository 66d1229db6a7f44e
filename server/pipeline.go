package server

import (
	"context"
	"slices"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
	"github.com/apisem/apisem/validation"
)

// A write is one create or update on its way through the pipeline (the
// package doc's "Write path" lists the order of its steps): the new
// object, the current one, and the one encoding of the new object that
// the steps share.
type write struct {
	t     *target
	attrs Attributes
	// obj is the new object, which the pipeline owns; old is the current
	// one as reads return it (nil on create), which it only reads.
	obj, old Object
	// oldJSON is old's cached JSON (itemJSON's form), nil on create.
	oldJSON []byte
	// enc is the encoding of obj: made once, after defaulting, and again
	// only after a hook that may change anything (Admission.Mutate,
	// Resource.Prepare); changes to metadata are spliced in.
	enc encoded
}

// run runs the steps a create and an update share, from defaulting to
// the size check, and reports whether the new object is the current one.
func (s *Server) run(ctx context.Context, w *write, own *owner) (same bool, err error) {
	rs := w.t.res
	def, c := rs.def, rs.codec
	observeWrite(w)
	if def.Default != nil {
		def.Default(w.obj)
	}
	if w.enc, err = c.encode(w.obj); err != nil {
		return false, err
	}
	s.recordWrite(w, own)
	again := false // the object may have changed outside metadata
	if s.opts.Admission.Mutate != nil {
		if err := s.mutate(ctx, w.attrs, w.obj, w.old); err != nil {
			return false, err
		}
		again = true
	}
	if def.Prepare != nil {
		def.Prepare(w.obj, w.old)
		again = true
	}
	if again {
		if w.enc, err = c.encode(w.obj); err != nil {
			return false, err
		}
	}
	if def.Generation {
		m := w.obj.Meta()
		if w.old == nil {
			m.Generation = validation.InitialGeneration
		} else {
			m.Generation = validation.NextGeneration(w.old.Meta().Generation, specChanged(w.enc.b, w.oldJSON))
		}
	}
	if err := validate(rs, w.obj, w.old); err != nil {
		return false, err
	}
	s.warnFinalizers(ctx, w)
	if def.Warnings != nil {
		addWarnings(ctx, def.Warnings(w.obj, w.old))
	}
	if err := s.admit(ctx, w.attrs, w.obj, w.old); err != nil {
		return false, err
	}
	limit := s.opts.Limits.MaxObjectBytes
	if limit <= 0 {
		limit = validation.MaxObjectBytes
	}
	if w.old == nil && c.untypedLen(len(w.enc.b)+managedFieldsBound(w.obj.Meta().ManagedFields)) <= limit {
		// A create needs only the size, and a bound of it is within the
		// limit: its metadata is encoded once, by the store's version.
		return false, nil
	}
	if w.old != nil {
		keepSystemFields(w.obj.Meta(), w.old.Meta())
	}
	n, same, err := c.final(w.enc, w.obj, w.oldJSON)
	if err != nil {
		return false, err
	}
	if err := validation.CheckObjectSize(c.untypedLen(n), limit); err != nil {
		return false, err
	}
	return same, nil
}

// warnFinalizers warns of the new finalizer names Kubernetes warns of, as
// it does for custom resources (core resources refuse them instead, in
// validate).
func (s *Server) warnFinalizers(ctx context.Context, w *write) {
	if w.t.res.def.Group == "" {
		return
	}
	var old []string
	if w.old != nil {
		old = w.old.Meta().Finalizers
	}
	addWarnings(ctx, validation.FinalizerWarnings("metadata.finalizers", w.obj.Meta().Finalizers, old))
}

// keepSystemFields gives m the fields of oldMeta the store keeps on an
// update whatever the update says (store.Resource.GuaranteedUpdate), so
// that the encoding is the stored object's.
func keepSystemFields(m, oldMeta *meta.ObjectMeta) {
	if m.UID == "" {
		m.UID = oldMeta.UID
	}
	m.Name, m.Namespace = oldMeta.Name, oldMeta.Namespace
	store.KeepSystemFields(m, oldMeta)
}

// createObject is the create path after decoding (see "Write path"); own
// records managedFields, nil for none.
func (s *Server) createObject(ctx context.Context, t *target, o Object, opts store.CreateOptions, own *owner) (Object, error) {
	m := o.Meta()
	if err := ensureNamespace(t, m); err != nil {
		return nil, err
	}
	if t.res.def.StatusSubresource {
		// Status is the status subresource's to write.
		var err error
		if o, err = t.res.codec.withStatusOf(nil, o, false); err != nil {
			return nil, err
		}
	}
	if f := t.res.def.AdmitCreate; f != nil {
		if err := f(ctx, o); err != nil {
			return nil, err
		}
	}
	o.Meta().UID = "" // the store's, or the one a hook gives (see Resource.Prepare)
	w := &write{t: t, attrs: attributes(ctx, t, OperationCreate, o.Meta().Name, opts.DryRun), obj: o}
	if _, err := s.run(ctx, w, own); err != nil {
		return nil, err
	}
	opts.UID = w.obj.Meta().UID
	// The store takes the object as it is; its JSON is the write's with
	// the metadata the store fills in.
	c := t.res.codec
	c.inflight.put(w.obj, pending{enc: w.enc})
	defer c.inflight.remove(w.obj)
	opts.Handoff = true
	out, err := t.res.store.Create(ctx, w.obj, opts)
	if err == nil && !opts.DryRun && out == w.obj {
		_, err = c.st.Encoded(out, c.itemJSON)
	}
	return out, err
}

// updateObject is a read-modify-write of the object t names: change
// returns the new state for the current one, which it must not modify; a
// resourceVersion in the new state must match the current one. The steps
// of "Write path" run on every attempt. The result is read-only: it is
// for encoding, and a stored result shares its encodings with watchers.
func (s *Server) updateObject(ctx context.Context, t *target, dryRun bool, own *owner, change func(cur Object) (Object, error)) (Object, error) {
	opts := store.UpdateOptions{DryRun: dryRun, ReadOnlyResult: true, Handoff: true}
	c := t.res.codec
	var handed []Object // what each attempt gave the store
	defer func() {
		for _, o := range handed {
			c.inflight.remove(o)
		}
	}()
	out, err := t.res.store.GuaranteedUpdate(ctx, t.namespace, t.name, opts, func(cur Object) (Object, error) {
		old := s.current(ctx, t, cur)
		o, err := change(old)
		if err != nil {
			return nil, err
		}
		m, oldMeta := o.Meta(), old.Meta()
		switch v := m.ResourceVersion; {
		case v == "" && t.res.def.RequireResourceVersion:
			return nil, validation.ResourceVersionRequired(t.res.gr, t.name)
		case v == "":
			m.ResourceVersion = oldMeta.ResourceVersion // unconditional
		case v != oldMeta.ResourceVersion:
			return nil, status.NewConflict(t.res.gr, t.name, status.OptimisticLockMessage)
		}
		if t.res.def.StatusSubresource {
			// The status subresource writes status alone; the object
			// itself keeps the stored status.
			entries := m.ManagedFields
			if o, err = c.withStatusOf(old, o, t.sub == "status"); err != nil {
				return nil, err
			}
			m = o.Meta()
			// A status write keeps the managedFields it computed (an
			// apply's), as Kubernetes does.
			m.ManagedFields = entries
		}
		validation.PrepareForUpdate(m, oldMeta)
		w := &write{t: t, attrs: attributes(ctx, t, OperationUpdate, t.name, dryRun), obj: o, old: old}
		if w.oldJSON, err = c.st.Encoded(old, c.itemJSON); err != nil {
			return nil, err
		}
		same, err := s.run(ctx, w, own)
		if err != nil {
			return nil, err
		}
		c.inflight.put(o, pending{enc: w.enc, same: same})
		handed = append(handed, o)
		return o, nil
	})
	if err == nil && !dryRun && slices.Contains(handed, out) {
		// The stored version's JSON, made from the write's while it is
		// at hand; the response and the watchers share it.
		_, err = c.st.Encoded(out, c.itemJSON)
	}
	return out, err
}

// current returns the current object of an update as reads return it:
// the stored version itself when the store still has it, whose encodings
// are cached (its JSON is read, never encoded again), else cur, the
// store's copy of it.
func (s *Server) current(ctx context.Context, t *target, cur Object) Object {
	v, err := t.res.store.View(ctx, t.namespace, t.name, rv.Read{Semantics: rv.Any})
	if err != nil || v.Meta().ResourceVersion != cur.Meta().ResourceVersion {
		v = cur
	}
	return t.res.def.read(v)
}

// validate runs Kubernetes' metadata validation and the resource's own
// of a create (old nil) or an update, as a 422 Invalid.
func validate(rs *resource, o, old Object) error {
	m := o.Meta()
	var errs []status.FieldError
	if old == nil {
		vm := m
		if m.Name == "" && m.GenerateName != "" {
			// Kubernetes validates the name the generator made; any
			// five lower-case alphanumerics validate as they would.
			c := *m
			c.Name = m.GenerateName + "x0x0x"
			vm = &c
		}
		names := rs.def.Names
		if names == nil {
			names = validation.NameIsDNSSubdomain
		}
		errs = validation.ValidateCreate(vm, rs.def.Namespaced, names)
		if vm != m && slices.ContainsFunc(errs, func(e status.FieldError) bool { return e.Field == "metadata.generateName" }) {
			// The placeholder name fails for the prefix's reasons;
			// Kubernetes would name a random one in a second cause.
			errs = slices.DeleteFunc(errs, func(e status.FieldError) bool { return e.Field == "metadata.name" })
		}
		if rs.def.Group == "" {
			errs = append(errs, validation.CoreFinalizers("metadata.finalizers", m.Finalizers)...)
		}
	} else {
		errs = validation.ValidateUpdate(m, old.Meta(), rs.def.Namespaced)
	}
	if rs.def.Validate != nil {
		errs = append(errs, rs.def.Validate(o, old)...)
	}
	if len(errs) == 0 {
		return nil
	}
	name := m.Name
	if name == "" && old == nil {
		name = m.GenerateName
	}
	return status.NewInvalid(status.GroupKind{Group: rs.def.Group, Kind: rs.def.Kind}, name, errs...)
}
