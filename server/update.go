package server

import (
	"context"
	"errors"
)

// Update changes the object of res named namespace/name as a PUT of what
// change makes of it would, from a client whose field manager is
// manager: through the write pipeline (the resource's hooks, validation,
// admission with ctx's user, a managedFields entry of manager's, operation
// Update), tried again from the current object when another write comes
// between, as Kubernetes' GuaranteedUpdate. sub is "" or "status", for
// the status subresource's rules. change gets the current object, which
// it must not modify, and returns the new one; its error ends the update.
//
// It is for the writes a server makes itself where kube-apiserver makes
// them through its loopback client (an eviction writes its
// PodDisruptionBudget's status as manager "kube-apiserver"). Like such a
// request it is a request of its own: its admission's warnings and audit
// annotations are not those of ctx's request.
func (s *Server) Update(ctx context.Context, res *Resource, sub, namespace, name, manager string, dryRun bool,
	change func(cur Object) (Object, error)) (Object, error) {
	rs := s.reg.Load().byDef[res]
	switch {
	case rs == nil:
		return nil, errors.New("server: Update of a resource the server does not serve")
	case sub != "" && (sub != "status" || !res.StatusSubresource):
		return nil, errors.New("server: Update of a subresource other than status")
	}
	t := &target{res: rs, namespace: namespace, name: name, sub: sub, verb: verbUpdate}
	out, done, err := s.updateObject(ownRequest{ctx}, t, dryRun, &owner{manager: manager}, change)
	done()
	return out, err
}

// ownRequest is the context of a write the server makes as a request of
// its own: that of the request it comes from (its deadline, its values)
// but for the request value and warnings.
type ownRequest struct{ context.Context }

func (c ownRequest) Value(key any) any {
	switch key.(type) {
	case requestKey, warningsKey:
		return nil
	}
	return c.Context.Value(key)
}
