package server

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"

	kjson "sigs.k8s.io/json"

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
	// one as reads return it (nil on create), which it only reads; stored
	// is the current one as stored.
	obj, old, stored Object
	// oldJSON is old's cached JSON (itemJSON's form), nil on create.
	oldJSON []byte
	// enc is the encoding of obj: made once, after defaulting, and again
	// only after a hook that may change anything (Admission.Mutate,
	// Resource.Prepare); changes to metadata are spliced in.
	enc encoded
	// scratch, if not nil, is a buffer the first encoding of a create
	// may be written to: createObject gives it back when the stored
	// version's JSON is made.
	scratch *[]byte
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
	// A create of a plain Go type drops its status by zeroing the field,
	// so that its one encoding holds the zero status as the type encodes
	// it (a cut from the JSON would leave the encoding without the status
	// member the stored object has).
	// A write of an ObjectSubresource takes the whole object: its hooks
	// keep what it may not change (a CertificateSigningRequest's approval
	// writes status.conditions).
	split := def.StatusSubresource && !(w.old == nil && w.t.sub != "status" && zeroStatus(w.obj)) &&
		!slices.Contains(def.ObjectSubresources, w.t.sub)
	if w.enc, err = c.encodeTo(w.scratch, w.obj); err != nil {
		return false, err
	}
	if split {
		if err := w.splitStatus(); err != nil {
			return false, err
		}
		observeWrite(w) // splitStatus may have decoded a new object
	}
	if err := s.check(ctx, w.attrs, w.obj, w.old); err != nil {
		return false, err
	}
	s.recordWrite(w, own)
	again := false // the object may have changed outside metadata
	if s.opts.Admission.Mutate != nil {
		if err := s.mutate(ctx, w.attrs, w.obj, w.old); err != nil {
			return false, err
		}
		// What a hook made is decoded as a body is: Kubernetes prunes
		// and defaults a custom resource after mutating admission.
		if def.Coerce != nil {
			def.Coerce(w.obj, nil)
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
	if err := w.toStorage(ctx); err != nil {
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

// toStorage is Resource.ToStorage's step of a write: the new object
// becomes the one the storage keeps, encoded anew if it changed, and is
// then compared with the current one as stored (Kubernetes compares the
// encodings of the storage version to skip a write that changes nothing).
func (w *write) toStorage(ctx context.Context) error {
	to := w.t.res.def.ToStorage
	if to == nil {
		return nil
	}
	o, err := to(ctx, w.obj)
	if err != nil || o == w.obj {
		return err
	}
	c := w.t.res.codec
	w.obj = o
	if w.enc, err = c.encode(o); err != nil {
		return err
	}
	if w.old != nil {
		w.oldJSON, err = c.appendJSON(nil, w.stored, c.res.TypedListItems)
	}
	return err
}

// splitStatus is the status subresource's step of a write
// (Resource.StatusSubresource): the new object's status is the current
// object's (none on create), unless the write is to the status
// subresource, which writes status alone: the rest of the object stays as
// stored, metadata too but for managedFields, which are the writer's. It
// works on the members of the encodings, so it needs nothing of the type,
// and the object is decoded anew only when its status changes hands. The
// result's encoding is spliced from the two; only when the new object's
// members do not show where status goes among them is it encoded again.
func (w *write) splitStatus() error {
	c := w.t.res.codec
	statusWrite := w.t.sub == "status"
	from, into := w.oldJSON, w.enc.b // status from the current object
	if statusWrite {
		from, into = w.enc.b, w.oldJSON
	}
	var val []byte
	if start, end, ok := memberValue(from, "status"); ok {
		val = from[start:end]
	}
	if !statusWrite {
		start, end, ok := memberValue(into, "status")
		if ok == (val != nil) && bytes.Equal(into[start:end], val) {
			return nil // the status is the current one's already
		}
	}
	b, placed := setMember(into, "status", val, from)
	o := c.res.New()
	// Integers stay int64 in untyped members (a CRD schema's default), as
	// the request decoder keeps them.
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, o); err != nil {
		return err
	}
	*o.Types() = meta.TypeMeta{}
	bMeta := w.obj.Meta() // the metadata b holds
	if statusWrite {
		// The resourceVersion of the status write was its precondition,
		// checked already.
		bMeta = w.old.Meta()
		o.Meta().ManagedFields = w.obj.Meta().ManagedFields
	} else {
		*o.Meta() = *w.obj.Meta() // the pipeline's, as w.obj was
	}
	w.obj = o
	if !placed {
		var err error
		w.enc, err = c.encode(o)
		return err
	}
	w.enc = c.encodedOf(b, bMeta)
	return nil
}

// zeroStatus zeroes the status member of o, an object of a plain struct
// type (see jsonMembersOf), and reports whether it did; it leaves other
// objects (unstructured ones, types that encode themselves) to
// splitStatus.
func zeroStatus(o Object) bool {
	v := reflect.ValueOf(o)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	members, ok := jsonMembersOf(v.Type().Elem())
	if !ok {
		return false
	}
	for _, m := range members {
		if m.name == "status" {
			v.Elem().Field(m.index).SetZero()
			return true
		}
	}
	return false
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
// records managedFields, nil for none. The caller calls done once it has
// encoded the result: a dry run's result, which is not stored, keeps the
// write's encoding until then.
func (s *Server) createObject(ctx context.Context, t *target, o Object, opts store.CreateOptions, own *owner) (out Object, done func(), err error) {
	m := o.Meta()
	if err := ensureNamespace(t, m); err != nil {
		return nil, nop, err
	}
	o.Meta().UID = "" // the store's, or the one a hook gives (see Resource.Prepare)
	w := &write{t: t, attrs: attributes(ctx, t, OperationCreate, o.Meta().Name, opts.DryRun), obj: o}
	c := t.res.codec
	if !opts.DryRun {
		// The write's encoding is scratch: once the stored version's
		// JSON is spliced from it, nothing refers to it.
		w.scratch = c.getScratch()
		defer c.putScratch(w.scratch)
	}
	if _, err := s.run(ctx, w, own); err != nil {
		return nil, nop, err
	}
	opts.UID = w.obj.Meta().UID
	// The store takes the object as it is; its JSON is the write's with
	// the metadata the store fills in.
	obj := w.obj // not w, which then stays on the stack
	c.inflight.put(obj, pending{enc: w.enc})
	opts.Handoff = true
	out, err = t.res.store.Create(ctx, obj, opts)
	switch {
	case err != nil || out != obj:
	case opts.DryRun:
		return out, func() { c.inflight.remove(obj) }, nil
	default:
		_, err = c.st.Encoded(out, c.itemJSON)
	}
	c.inflight.remove(obj)
	return out, nop, err
}

// updateOrCreate is the write of a PUT of o through v: an update, or,
// when the object is missing and its resource creates on update
// (Resource.CreateOnUpdate), a create, which created reports. Kubernetes
// decides in its storage's GuaranteedUpdate, which hands a missing
// object's update the empty object; here the update is tried first, so
// that an update of an existing object costs no more, and a create that
// loses a race with another one is tried as an update again.
func (s *Server) updateOrCreate(ctx context.Context, t *target, v *view, o Object, dryRun bool, own *owner) (out Object, created bool, done func(), err error) {
	// Each attempt gets the object as sent: the pipeline changes the one
	// it is given (resourceVersion, defaults, managedFields), and an
	// unconditional update is tried again when another write comes
	// between its read and its own, as Kubernetes' registry copies the
	// request's object for each attempt.
	sent := func(Object) (Object, error) { return o.DeepCopyObject(), nil }
	for range 3 {
		out, done, err = s.updateView(ctx, t, v, dryRun, own, sent)
		if err == nil || !s.createsOnUpdate(t, err) {
			return out, false, done, err
		}
		done()
		if t.uid != "" {
			// The storage checks the uid precondition on the empty
			// object it hands a missing object's update.
			return nil, false, nop, missingUIDConflict(t, dryRun)
		}
		c := o.DeepCopyObject()
		// The create path gives the system fields anew; a
		// resourceVersion, a precondition of an update, is ignored.
		m := c.Meta()
		m.ResourceVersion, m.CreationTimestamp, m.DeletionTimestamp, m.DeletionGracePeriodSeconds = "", meta.Time{}, nil, nil
		out, done, err = s.createObject(ctx, t, c, store.CreateOptions{DryRun: dryRun, ReadOnlyResult: true}, own)
		if !status.IsAlreadyExists(err) {
			return out, err == nil, done, err
		}
		done()
	}
	return out, false, nop, err
}

// createsOnUpdate reports whether err, the answer of an update of t, is
// the 404 of the object itself for a resource that creates on update.
func (s *Server) createsOnUpdate(t *target, err error) bool {
	def := t.res.def
	if !def.CreateOnUpdate || t.sub != "" || def.Create != nil || !status.IsNotFound(err) {
		return false
	}
	var se *status.Error
	if !errors.As(err, &se) || se.Status.Details == nil {
		return false
	}
	d := se.Status.Details
	return d.Name == t.name && d.Group == t.res.gr.Group && d.Kind == t.res.gr.Resource
}

// missingUIDConflict is the 409 of kube-apiserver's storage for an
// update naming a uid of an object that does not exist, whose uid is
// then the empty one's; its key is the object's etcd key, below the
// storage's prefix in a dry run (see store's precondition errors).
func missingUIDConflict(t *target, dryRun bool) error {
	rs := t.res
	key := "/" + rs.gr.Group + "/" + rs.gr.Resource + "/"
	if p := rs.def.EtcdPrefix; p != "" {
		key = "/" + p + "/"
	}
	if !dryRun {
		key = rs.store.Store().StoragePrefix() + key
	}
	if t.namespace != "" && rs.def.Namespaced {
		key += t.namespace + "/"
	}
	return status.NewConflict(rs.gr, t.name, "StorageError: invalid object, Code: 4, Key: "+key+t.name+
		", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: "+t.uid+", UID in object meta: ")
}

// nop is the done of a write that holds nothing.
func nop() {}

// updateObject is a read-modify-write of the object t names: change
// returns the new state for the current one, which it must not modify; a
// resourceVersion in the new state must match the current one. The steps
// of "Write path" run on every attempt. The result is read-only: it is
// for encoding, and a stored result shares its encodings with watchers.
// done is createObject's.
func (s *Server) updateObject(ctx context.Context, t *target, dryRun bool, own *owner, change func(cur Object) (Object, error)) (out Object, done func(), err error) {
	opts := store.UpdateOptions{DryRun: dryRun, ReadOnlyResult: true, Handoff: true}
	if t.uid != "" {
		opts.Preconditions.UID = &t.uid
	}
	c := t.res.codec
	var handed []Object // what each attempt gave the store
	keep := -1          // the one of them that stays until done
	defer func() {
		for i, o := range handed {
			if i != keep {
				c.inflight.remove(o)
			}
		}
	}()
	out, err = t.res.store.GuaranteedUpdate(ctx, t.namespace, t.name, opts, func(cur Object) (Object, error) {
		stored, old, err := s.current(ctx, t, cur)
		if err != nil {
			return nil, err
		}
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
		validation.PrepareForUpdate(m, oldMeta)
		w := &write{t: t, attrs: attributes(ctx, t, OperationUpdate, t.name, dryRun), obj: o, old: old, stored: stored}
		if w.oldJSON, err = c.st.Encoded(old, c.itemJSON); err != nil {
			return nil, err
		}
		same, err := s.run(ctx, w, own)
		if err != nil {
			return nil, err
		}
		// The pipeline's object, which its status step may have replaced.
		c.inflight.put(w.obj, pending{enc: w.enc, same: same})
		handed = append(handed, w.obj)
		return w.obj, nil
	})
	i := slices.Index(handed, out)
	switch {
	case err != nil || i < 0:
	case dryRun:
		keep = i
		return out, func() { c.inflight.remove(out) }, nil
	default:
		// The stored version's JSON, made from the write's while it is
		// at hand; the response and the watchers share it.
		_, err = c.st.Encoded(out, c.itemJSON)
	}
	return out, nop, err
}

// current returns the current object of an update as stored and as
// reads return it: the stored version itself when the store still has
// it, whose encodings are cached (its JSON is read, never encoded again),
// else cur, the store's copy of it.
func (s *Server) current(ctx context.Context, t *target, cur Object) (stored, old Object, err error) {
	v, err := t.res.store.View(ctx, t.namespace, t.name, rv.Read{Semantics: rv.Any})
	if err != nil || v.Meta().ResourceVersion != cur.Meta().ResourceVersion {
		v = cur
	}
	if old, err = t.res.def.read(v); err != nil {
		return nil, nil, readFailed(t.res, err, false)
	}
	return v, old, nil
}

// distinct returns the first of each error of errs with the same text,
// in order (Kubernetes' ErrorList.ToAggregate keeps the same ones).
func distinct(errs []status.FieldError) []status.FieldError {
	if len(errs) < 2 {
		return errs
	}
	seen := make(map[string]bool, len(errs))
	out := errs[:0:0]
	for _, e := range errs {
		if t := e.Error(); !seen[t] {
			seen[t] = true
			out = append(out, e)
		}
	}
	return out
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
		if rs.def.Custom {
			// apiextensions-apiserver's validator checks the update's
			// metadata again, before the schema.
			errs = append(errs, validation.ValidateMetaUpdate(m, old.Meta())...)
		}
	}
	if rs.def.Validate != nil {
		errs = append(errs, rs.def.Validate(o, old)...)
	}
	if len(errs) == 0 {
		return nil
	}
	if rs.def.DistinctErrors {
		errs = distinct(errs)
	}
	name := m.Name
	if name == "" && old == nil {
		name = m.GenerateName
	}
	gk := status.GroupKind{Group: rs.def.Group, Kind: rs.def.Kind}
	if rs.def.InvalidKind.Kind != "" {
		gk = rs.def.InvalidKind
	}
	return status.NewInvalid(gk, name, errs...)
}
