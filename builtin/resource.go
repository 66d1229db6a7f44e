package builtin

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
}

// Groups lists the groups Resources can serve, in the order of
// kubectl api-resources.
func Groups() []string {
	var gs []string
	for _, k := range all {
		if !slices.Contains(gs, k.Group) {
			gs = append(gs, k.Group)
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
	defs, p := openAPIDefinitions(), newPrinter()
	var out []*server.Resource
	for _, k := range all {
		if opts.Groups != nil && !slices.Contains(opts.Groups, k.Group) {
			continue
		}
		r, err := k.resource(defs, p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// strategy is what the server calls of a registry strategy of
// kube-apiserver (k8s.io/apiserver/pkg/registry/rest RESTCreateStrategy
// and RESTUpdateStrategy).
type strategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
	WarningsOnCreate(ctx context.Context, obj runtime.Object) []string
	Canonicalize(obj runtime.Object)
	PrepareForUpdate(ctx context.Context, obj, old runtime.Object)
	ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList
	WarningsOnUpdate(ctx context.Context, obj, old runtime.Object) []string
}

// resource returns the server resource of k.
func (k *kind) resource(defs *definitions, p *printers.HumanReadableGenerator) (*server.Resource, error) {
	main, ok := k.Strategy.(strategy)
	if !ok {
		return nil, fmt.Errorf("builtin: the strategy of %s is a %T, not a create and update strategy", k.Kind, k.Strategy)
	}
	var st strategy
	if k.Status != nil {
		if st, ok = k.Status.(strategy); !ok {
			return nil, fmt.Errorf("builtin: the status strategy of %s is a %T, not an update strategy", k.Kind, k.Status)
		}
	}
	r := &server.Resource{
		Group: k.Group, Version: k.Version, Kind: k.Kind, ListKind: k.Kind + "List",
		Plural: k.Plural, Singular: strings.ToLower(k.Kind),
		ShortNames: k.ShortNames, Categories: k.Categories,
		Namespaced:        k.Namespaced,
		Names:             k.Names,
		StatusSubresource: st != nil,
		New:               func() server.Object { return &Object{Value: k.newValue()} },
		DecodeProto:       k.decodeProto,
		Default:           k.defaults,
	}
	h := &hooks{k: k, main: main, status: st}
	r.Prepare, r.Validate, r.Warnings = h.prepare, h.validate, h.warnings
	if k.ScalePath != "" {
		r.Scale = k.scale()
	}
	if err := defs.describe(k, r); err != nil {
		return nil, err
	}
	r.Columns = k.columns(p)
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
	k            *kind
	main, status strategy
}

// forUpdate returns the strategy of an update from old to obj: the
// status strategy when it changes the status, which only a write to the
// status subresource can (the server keeps the stored status on other
// writes).
func (h *hooks) forUpdate(obj, old runtime.Object) strategy {
	if h.status != nil && !apiequality.Semantic.DeepEqual(statusOf(obj), statusOf(old)) {
		return h.status
	}
	return h.main
}

// statusOf returns the Status field of a Kubernetes object, or nil.
func statusOf(o runtime.Object) any {
	v := reflect.ValueOf(o).Elem().FieldByName("Status")
	if !v.IsValid() {
		return nil
	}
	return v.Interface()
}

func (h *hooks) prepare(o, old server.Object) {
	obj := o.(*Object)
	in, err := h.k.internal(obj)
	if err != nil {
		return
	}
	ctx := requestContext(obj)
	if old == nil {
		h.main.PrepareForCreate(ctx, in)
		h.main.Canonicalize(in)
	} else {
		oldIn, err := h.k.internal(old.(*Object))
		if err != nil {
			return
		}
		s := h.forUpdate(in, oldIn)
		s.PrepareForUpdate(ctx, in, oldIn)
		s.Canonicalize(in)
	}
	_ = h.k.setInternal(obj, in)
}

func (h *hooks) validate(o, old server.Object) []status.FieldError {
	obj := o.(*Object)
	in, err := h.k.internal(obj)
	if err != nil {
		return []status.FieldError{{Type: status.CauseTypeInternal, Field: "", Detail: err.Error()}}
	}
	ctx := requestContext(obj)
	if old == nil {
		return fieldErrors(h.main.Validate(ctx, in))
	}
	oldIn, err := h.k.internal(old.(*Object))
	if err != nil {
		return []status.FieldError{{Type: status.CauseTypeInternal, Field: "", Detail: err.Error()}}
	}
	return fieldErrors(h.forUpdate(in, oldIn).ValidateUpdate(ctx, in, oldIn))
}

func (h *hooks) warnings(o, old server.Object) []string {
	obj := o.(*Object)
	in, err := h.k.internal(obj)
	if err != nil {
		return nil
	}
	ctx := requestContext(obj)
	if old == nil {
		return h.main.WarningsOnCreate(ctx, in)
	}
	oldIn, err := h.k.internal(old.(*Object))
	if err != nil {
		return nil
	}
	return h.forUpdate(in, oldIn).WarningsOnUpdate(ctx, in, oldIn)
}
