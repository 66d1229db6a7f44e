package server

import (
	"context"
	"errors"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/store"
)

// CreateAs is Create by a client whose fieldManager is manager: the
// stored object's managedFields record the write as an Update by it, as
// kube-apiserver's writes through its loopback client are recorded
// (manager "kube-apiserver"). For objects a server makes itself at start.
func (s *Server) CreateAs(ctx context.Context, res *Resource, obj Object, manager string) (Object, error) {
	rs := s.reg.Load().byDef[res]
	if rs == nil {
		return nil, errors.New("server: CreateAs of a resource the server does not serve")
	}
	o := asSent(res, obj)
	out, done, err := s.createObject(ctx, &target{res: rs, namespace: o.Meta().Namespace, verb: verbCreate}, o,
		store.CreateOptions{}, &owner{manager: manager})
	done()
	return out, err
}

// UpdateAs stores obj as a PUT of it by a client whose fieldManager is
// manager would (Update with obj as the new object): defaulted,
// validated, admitted, recorded in managedFields; a resourceVersion obj
// names is a precondition (409 Conflict when it is not the current one).
// obj is not modified.
func (s *Server) UpdateAs(ctx context.Context, res *Resource, obj Object, manager string) (Object, error) {
	m := obj.Meta()
	return s.Update(ctx, res, "", m.Namespace, m.Name, manager, false, func(Object) (Object, error) {
		return asSent(res, obj), nil
	})
}

// asSent is a copy of obj as the body of a request would decode to: no
// TypeMeta, coerced by the resource.
func asSent(res *Resource, obj Object) Object {
	o := obj.DeepCopyObject()
	*o.Types() = meta.TypeMeta{}
	if c := res.Coerce; c != nil {
		c(o, nil)
	}
	return o
}
