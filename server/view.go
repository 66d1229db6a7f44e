package server

import (
	"context"
	"fmt"
	"net/http"

	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/status"
)

// A view is what an endpoint reads and writes of an object: the object
// itself (the status subresource too, whose mapping is the pipeline's
// status step), or the Scale of the scale subresource. The get, update,
// patch and apply handlers serve every view alike: a read answers the
// view of the stored object; a write computes the new view from the
// current one (the body, a patch of it, an apply merged into it) and maps
// it onto the object, which then goes through the write pipeline as any
// update; the answer is the view of the result.
type view struct {
	// res reads bodies, writes answers and merges applies: the object's
	// resource, or the Scale view's.
	res *resource
	// The mappings; all nil for the object itself.
	//
	// get returns the view of o (a stored object as reads return it)
	// for a read; of, the view a write starts from; onto, the object
	// after the view v was written to cur, which it must not modify;
	// answer, the view of the result of a write.
	get, of, answer func(o Object) (Object, error)
	onto            func(cur, v Object) (Object, error)
}

// view returns the view t addresses.
func (t *target) view() *view {
	if t.sub != "scale" {
		return &view{res: t.res}
	}
	rs := t.res
	sub := rs.def.Scale
	return &view{
		res: rs.scale,
		get: func(o Object) (Object, error) {
			sc, found, err := rs.scaleOf(o)
			if err == nil && !found {
				err = status.NewInternalError(fmt.Errorf("the spec replicas field %q does not exist", sub.SpecReplicasPath))
			}
			return sc, err
		},
		// A write starts from the Scale of the current object, whose
		// managedFields are the Scale view's (ScaleMapping).
		of: func(o Object) (Object, error) {
			sc, found, err := rs.scaleOf(o)
			if err != nil {
				return nil, err
			}
			if !found {
				sc.Spec.Replicas = unsetReplicas
			}
			sc.ManagedFields, err = rs.scaleMap.ToScale(o.Meta().ManagedFields)
			return sc, err
		},
		onto: func(cur, v Object) (Object, error) {
			n := v.(*scaleObject)
			if n.Spec.Replicas == unsetReplicas {
				return nil, status.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", sub.SpecReplicasPath))
			}
			if u, m := n.UID, cur.Meta(); sub.CheckUID && u != "" && u != m.UID {
				gr := rs.gr
				gr.Resource += "/scale"
				return nil, status.NewConflict(gr, m.Name, "Precondition failed: UID in precondition: "+u+", UID in object meta: "+m.UID)
			}
			o := cur.DeepCopyObject()
			if err := sub.Set(o, n.Spec.Replicas); err != nil {
				return nil, err
			}
			m := o.Meta()
			var err error
			if m.ManagedFields, err = rs.scaleMap.ToObject(cur.Meta().ManagedFields, n.ManagedFields); err != nil {
				return nil, err
			}
			// The Scale's resourceVersion, if any, is a precondition;
			// without one the write is unconditional.
			if n.ResourceVersion != "" {
				m.ResourceVersion = n.ResourceVersion
			}
			return o, nil
		},
		answer: func(o Object) (Object, error) {
			sc, _, err := rs.scaleOf(o)
			if err != nil {
				return nil, status.NewBadRequest(err.Error())
			}
			return sc, nil
		},
	}
}

// updateView is updateObject through v: change returns the new view for
// the current one. own records the write's managedFields (nil: change
// set them, as an apply does); a view's are recorded in the view and
// mapped onto the object. The caller calls done once it has written the
// answer (see createObject).
func (s *Server) updateView(ctx context.Context, t *target, v *view, dryRun bool, own *owner, change func(cur Object) (Object, error)) (Object, func(), error) {
	if v.onto == nil {
		return s.updateObject(ctx, t, dryRun, own, change)
	}
	return s.updateObject(ctx, t, dryRun, nil, func(cur Object) (Object, error) {
		vc, err := v.of(cur)
		if err != nil {
			return nil, err
		}
		n, err := change(vc)
		if err != nil {
			return nil, err
		}
		if own != nil {
			n.Meta().ManagedFields = s.recordView(t, v, vc, n, own)
		}
		return v.onto(cur, n)
	})
}

// recordView returns the managedFields of the view n after a write by own
// changed cur into it. Like Kubernetes, it keeps cur's entries when that
// fails, and logs.
func (s *Server) recordView(t *target, v *view, cur, n Object, own *owner) []meta.ManagedFieldsEntry {
	fm, err := v.res.fields.get()
	var live, obj map[string]any
	if err == nil {
		live, err = objectMap(cur)
	}
	if err == nil {
		obj, err = objectMap(n)
	}
	var entries []meta.ManagedFieldsEntry
	if err == nil {
		entries, err = fm.Update(live, obj, cur.Meta().ManagedFields, n.Meta().ManagedFields,
			managedfields.Operation{Manager: own.manager, Subresource: t.sub, Time: s.now()})
	}
	if err != nil {
		s.log.Warn("managedFields not updated", "resource", t.res.gr.String()+"/"+t.sub, "name", t.name, "err", err)
		return cur.Meta().ManagedFields
	}
	return entries
}

// writeView writes the answer of a write through v: the view of out.
func (s *Server) writeView(w http.ResponseWriter, r *http.Request, code int, v *view, res negotiation.Result, out Object) error {
	if v.answer != nil {
		var err error
		if out, err = v.answer(out); err != nil {
			return err
		}
	}
	return s.writeObject(w, r, code, v.res, res, out)
}
