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
	o := obj.DeepCopyObject()
	*o.Types() = meta.TypeMeta{}
	if c := rs.def.Coerce; c != nil {
		c(o, nil) // as the body of a POST is decoded
	}
	out, done, err := s.createObject(ctx, &target{res: rs, namespace: o.Meta().Namespace, verb: verbCreate}, o,
		store.CreateOptions{}, &owner{manager: manager})
	done()
	return out, err
}

// UpdateAs stores obj as a PUT of it by a client whose fieldManager is
// manager would: defaulted, validated, admitted, recorded in
// managedFields; a resourceVersion obj names is a precondition (409
// Conflict when it is not the current one). obj is not modified.
func (s *Server) UpdateAs(ctx context.Context, res *Resource, obj Object, manager string) (Object, error) {
	rs := s.reg.Load().byDef[res]
	if rs == nil {
		return nil, errors.New("server: UpdateAs of a resource the server does not serve")
	}
	m := obj.Meta()
	t := &target{res: rs, namespace: m.Namespace, name: m.Name, verb: verbUpdate}
	out, done, err := s.updateObject(ctx, t, false, &owner{manager: manager}, func(Object) (Object, error) {
		o := obj.DeepCopyObject()
		*o.Types() = meta.TypeMeta{}
		if c := rs.def.Coerce; c != nil {
			c(o, nil)
		}
		return o, nil
	})
	done()
	return out, err
}
