package builtin

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/printers"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// Options choose the built-in resources a server serves. The zero value
// serves all of them.
type Options struct {
	// Groups are the API groups served ("" is the core group, "apps",
	// "batch", ...); nil means every group of Groups.
	Groups []string
	// Namespaces, when set, reads the labels of a Namespace for the
	// strategies that look at them: a ResourceClaim or
	// ResourceClaimTemplate may ask for admin access to devices only in
	// a namespace labelled resource.kubernetes.io/admin-access: "true",
	// as on a cluster. A *ServerNamespaces reads those of the server.
	// nil reads every namespace as one without labels, which refuses
	// admin access with the cluster's message.
	Namespaces NamespaceReader
	// Allocator gives Services their cluster IPs and node ports; bound
	// to the server, it keeps them in its store as IPAddress objects and
	// the stored Services (see ServiceAllocator). nil is one of
	// Resources' own, never bound, which keeps them in memory.
	Allocator *ServiceAllocator
}

// Groups lists the groups Resources can serve, in the order of
// kubectl api-resources.
func Groups() []string {
	var gs []string
	for _, k := range all {
		if !slices.Contains(gs, k.Group) {
			gs = append(gs, k.Group)
		}
		if k.Group == "apps" && gs[len(gs)-1] == "apps" {
			gs = append(gs, reviewGroups...)
		}
	}
	return gs
}

// Resources returns the server resources of the built-in kinds of the
// groups opts chooses, for server.Options.Resources. Each call returns
// new resources; a group it does not know is an error.
func Resources(opts Options) ([]*server.Resource, error) {
	known := Groups()
	for _, g := range opts.Groups {
		if !slices.Contains(known, g) {
			return nil, fmt.Errorf("builtin: no built-in group %q (the groups are %q)", g, known)
		}
	}
	defs, p, alloc := openAPIDefinitions(), newPrinter(), opts.Allocator
	if alloc == nil {
		alloc = NewServiceAllocator()
	}
	// The kinds whose storage another kind shares: each reads the
	// objects written through the other.
	versions := map[string]int{}
	for _, k := range all {
		versions[k.storage()]++
	}
	var out []*server.Resource
	if opts.Groups == nil || slices.Contains(opts.Groups, "") {
		// First, as kube-apiserver lists it in /api/v1.
		r, err := bindingsResource(defs)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	reviewsDone := false
	for _, k := range all {
		if !reviewsDone && k.Group > "authorization.k8s.io" {
			// The review groups, in their place in the order of groups.
			reviewsDone = true
			for _, g := range reviewGroups {
				if opts.Groups != nil && !slices.Contains(opts.Groups, g) {
					continue
				}
				rs, err := reviewResources(defs, g)
				if err != nil {
					return nil, err
				}
				out = append(out, rs...)
			}
		}
		if opts.Groups != nil && !slices.Contains(opts.Groups, k.Group) {
			continue
		}
		r, err := k.resource(opts, defs, p, alloc, versions[k.storage()] > 1)
		if err != nil {
			return nil, err
		}
		alloc.served(r)
		out = append(out, r)
	}
	return out, nil
}

// strategy is a registry strategy of kube-apiserver for creates and
// updates (k8s.io/apiserver/pkg/registry/rest), statusStrategy one for the
// updates of the status subresource.
type (
	strategy       = rest.RESTCreateUpdateStrategy
	statusStrategy = rest.RESTUpdateStrategy
)

// resource returns the server resource of k; shared says that another
// kind of the table keeps its objects in the same storage.
func (k *kind) resource(opts Options, defs *definitions, p *printers.HumanReadableGenerator, alloc *ServiceAllocator, shared bool) (*server.Resource, error) {
	mainStrategy, statusStrat := k.strategies(opts)
	main, ok := mainStrategy.(strategy)
	if !ok {
		return nil, fmt.Errorf("builtin: the strategy of %s is a %T, not a create and update strategy", k.Kind, mainStrategy)
	}
	var st statusStrategy
	if statusStrat != nil {
		if st, ok = statusStrat.(statusStrategy); !ok {
			return nil, fmt.Errorf("builtin: the status strategy of %s is a %T, not an update strategy", k.Kind, statusStrat)
		}
	}
	r := &server.Resource{
		Group: k.Group, Version: k.Version, Kind: k.Kind, ListKind: k.Kind + "List",
		Plural: k.Plural, Singular: strings.ToLower(k.Kind),
		ShortNames: k.ShortNames, Categories: k.Categories,
		Namespaced:        k.Namespaced,
		EtcdPrefix:        k.etcdPrefix(),
		Names:             k.Names.ours(),
		StatusSubresource: st != nil,
		// An update without resourceVersion is refused where the
		// strategy does not allow unconditional updates.
		RequireResourceVersion: !main.AllowUnconditionalUpdate(context.Background()),
		New:                    func() server.Object { return &Object{Value: k.newValue()} },
		DecodeProto:            k.decodeProto,
		CheckTypes:             k.checkTypes,
		Default:                k.defaults,
	}
	// A PUT of a missing object creates it where the strategy allows
	// create-on-update, as kube-apiserver's registry asks it.
	r.CreateOnUpdate = main.AllowCreateOnUpdate(context.Background())
	h := &hooks{k: k, main: main, status: st}
	if k.Group == "" && k.Kind == "Service" {
		// kube-apiserver's Service registry allocates before the
		// strategy runs, holds what it allocated when the write is
		// stored, frees what the deletion frees, and answers a DELETE
		// with the Service.
		h.allocate = alloc.service
		r.ToStorage = func(ctx context.Context, o server.Object) (server.Object, error) {
			return o, alloc.commit(ctx, o.(*Object))
		}
		r.Delete, r.ReturnDeletedObject = alloc.deleteService, true
	}
	r.Prepare, r.Validate, r.Warnings = h.prepare, h.validate, h.warnings
	// kube-apiserver's declarative validation step keeps each distinct
	// error once (every strategy of v1.37 has it).
	_, r.DistinctErrors = mainStrategy.(rest.DeclarativeValidationStrategy)
	if g, ok := main.(rest.RESTGracefulDeleteStrategy); ok {
		r.Delete = gracefulDelete(g, k)
		r.ReturnDeletedObject = true // kube-apiserver's Pods registry
	}
	if k.ScalePath != "" {
		r.Scale = k.scale()
	}
	r.Subresources = k.subresources(r)
	h.objectSubs = k.objectSubresources()
	for _, sub := range slices.Sorted(maps.Keys(h.objectSubs)) {
		r.ObjectSubresources = append(r.ObjectSubresources, sub)
	}
	if k.StoredWith != "" {
		// The other group's storage, and its name in a 422, as
		// kube-apiserver's events.k8s.io Events have them.
		r.StorageResource = status.GroupResource{Group: k.storageGroup(), Resource: k.Plural}
		r.InvalidKind = status.GroupKind{Group: k.storageGroup(), Kind: k.Kind}
	}
	if shared {
		r.Read = k.read()
		s, err := k.storageKind()
		if err != nil {
			return nil, err
		}
		if s != k {
			r.ToStorage = k.toStorage(s)
		}
		r.StoredAs = k.storedAs()
		r.ConvertTo = k.convertTo()
	}
	if err := defs.describe(k, r); err != nil {
		return nil, err
	}
	r.Columns = k.columns(p)
	r.Fields, r.UnknownField = k.fields(), k.unknownField()
	var err error
	if r.StorageVersionHash, err = k.storageVersionHash(); err != nil {
		return nil, err
	}
	return r, nil
}

// defaults applies Kubernetes' defaults for the kind, as its decoding of
// a request body does (the generated SetObjectDefaults_ functions).
func (k *kind) defaults(o server.Object) {
	obj := o.(*Object)
	v, err := versioned(obj)
	if err != nil {
		return // metadata that does not convert fails validation
	}
	scheme.Default(v)
	_ = setVersioned(obj, v)
}

// hooks call a kind's registry strategies. A hook that cannot convert
// an object (which every object the server decoded can) leaves it as it
// is and reports an internal error from validation.
type hooks struct {
	k      *kind
	main   strategy
	status statusStrategy // nil without a status subresource
	// objectSubs are the strategies of the subresources that update the
	// object itself (a Pod's ephemeralcontainers and resize).
	objectSubs map[string]statusStrategy
	// allocate, when set, gives an object what kube-apiserver's
	// registry allocates before the strategy runs (old is nil on create):
	// in and old in the internal form, o the object in is of, which keeps
	// the outcome for validation and ToStorage.
	allocate func(o *Object, in, old runtime.Object)
}

// forUpdate returns the strategy of an update of obj: the status
// strategy for a write of the status subresource, as kube-apiserver's
// status registry uses it, else the main one (the scale subresource
// updates the object through it too).
func (h *hooks) forUpdate(obj *Object) (s statusStrategy, subresource string) {
	if h.status != nil && obj.subresource == "status" {
		return h.status, "status"
	}
	if s := h.objectSubs[obj.subresource]; s != nil {
		return s, obj.subresource
	}
	return h.main, ""
}

func (h *hooks) prepare(o, old server.Object) {
	obj := o.(*Object)
	in, err := h.k.internal(obj)
	if err != nil {
		return
	}
	if old == nil {
		withUID(in)
		if h.allocate != nil {
			h.allocate(obj, in, nil)
		}
		h.main.PrepareForCreate(h.k.context(obj, "create", ""), in)
		h.main.Canonicalize(in)
	} else {
		oldIn, err := h.k.internal(old.(*Object))
		if err != nil {
			return
		}
		s, sub := h.forUpdate(obj)
		if h.allocate != nil && sub == "" {
			h.allocate(obj, in, oldIn)
		}
		s.PrepareForUpdate(h.k.context(obj, "update", sub), in, oldIn)
		s.Canonicalize(in)
	}
	_ = h.k.setInternalDefaulted(obj, in)
}

func (h *hooks) validate(o, old server.Object) []status.FieldError {
	obj := o.(*Object)
	in, err := h.k.internal(obj)
	if err != nil {
		return []status.FieldError{{Type: status.CauseTypeInternal, Field: "", Detail: err.Error()}}
	}
	if obj.alloc != nil && len(obj.alloc.errs) > 0 {
		// What cannot be allocated fails the write before validation,
		// as kube-apiserver allocates before it validates.
		return h.k.fieldErrors(obj.alloc.errs, in, nil)
	}
	if old == nil {
		withUID(in)
		return h.k.fieldErrors(rest.ValidateCreate(h.k.context(obj, "create", ""), in, h.main), in, nil)
	}
	oldIn, err := h.k.internal(old.(*Object))
	if err != nil {
		return []status.FieldError{{Type: status.CauseTypeInternal, Field: "", Detail: err.Error()}}
	}
	s, sub := h.forUpdate(obj)
	return h.k.fieldErrors(rest.ValidateUpdate(h.k.context(obj, "update", sub), in, oldIn, s), in, oldIn)
}

func (h *hooks) warnings(o, old server.Object) []string {
	obj := o.(*Object)
	in, err := h.k.internal(obj)
	if err != nil {
		return nil
	}
	if old == nil {
		withUID(in)
		return h.main.WarningsOnCreate(h.k.context(obj, "create", ""), in)
	}
	oldIn, err := h.k.internal(old.(*Object))
	if err != nil {
		return nil
	}
	s, sub := h.forUpdate(obj)
	return s.WarningsOnUpdate(h.k.context(obj, "update", sub), in, oldIn)
}

// withUID gives in, an object being created, a uid: kube-apiserver sets
// it before the strategy runs, which may read it (a Job's generated
// selector names it). The one Prepare gives is the stored object's (see
// server.Resource.Prepare).
func withUID(in runtime.Object) {
	if m, err := apimeta.Accessor(in); err == nil && m.GetUID() == "" {
		m.SetUID(uuid.NewUUID())
	}
}
