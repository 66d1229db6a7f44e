package server

import (
	"context"

	"github.com/apisem/apisem/auth"
)

// Admission is Kubernetes' admission control for every write, in the two
// phases Kubernetes runs it (k8s.io/apiserver/pkg/admission): Mutate may
// change the object before the resource's own checks, Validate sees the
// object as it will be stored and may only refuse it; Check is the first
// phase's hooks that only refuse. Any may be nil; the zero Admission
// admits everything. An error, best a status error
// (a 403 Forbidden, say), refuses the write with that error. Hooks may add
// warnings for the client with AddWarning.
//
// See the package doc's "Write path" for where each phase runs.
//
// Options.Admission is asked about every write, as Kubernetes' admission
// control: Check may refuse any create or update before validation
// (package namespace refuses content in terminating namespaces with it,
// as NamespaceLifecycle does), Mutate may change an object that is
// created or updated, Validate may refuse any create, update or deletion
// of an object as it will be stored. Resource.Admit is a resource's own
// Check (package crd refuses creates while a definition terminates with
// it). Hooks warn the client with AddWarning. Resource.Delete replaces
// the store's deletion where a resource's is more (a Namespace's is
// two-phase).
type Admission struct {
	// Check is asked about every create and update in the mutating
	// phase, ahead of Mutate (and after Resource.Admit), with what Mutate
	// gets: it may refuse the write, but must not change obj. It is the
	// place of the mutating plugins of Kubernetes that never mutate, such
	// as NamespaceLifecycle: unlike Mutate, it costs a write no second
	// encoding of the object. Deletions do not go through it.
	Check AdmitFunc
	// Mutate is asked about every create and update (from POST, PUT,
	// PATCH, server-side apply, the status and scale subresources and
	// Server.Create), after defaulting and managedFields: it may change
	// obj. Deletions do not go through it.
	Mutate AdmitFunc
	// Validate is asked about every create, update and deletion, after
	// the resource's validation: obj is the object as it will be stored
	// (nil for a deletion), and must not be changed.
	Validate AdmitFunc
}

// AdmitFunc is one phase of Admission. obj is the new object (nil for a
// deletion), old the current one (nil for a create); old must not be
// changed. For a write to the status or scale subresource both are the
// whole object, as in Kubernetes.
type AdmitFunc func(ctx context.Context, a Attributes, obj, old Object) error

// Operation is what a write does to an object, in admission's words.
type Operation string

// The operations of admission.
const (
	OperationCreate Operation = "CREATE"
	OperationUpdate Operation = "UPDATE"
	OperationDelete Operation = "DELETE"
)

// Attributes describe the write an admission hook is asked about, as
// Kubernetes' admission.Attributes do.
type Attributes struct {
	// Operation is CREATE, UPDATE or DELETE: a patch or an apply is an
	// UPDATE, or a CREATE when it creates the object.
	Operation Operation
	// Verb is the request's verb: create, update, patch (server-side
	// apply included), delete or deletecollection; "" for Server.Create.
	Verb string
	// Resource is the resource written.
	Resource *Resource
	// Subresource is "status" or "scale" for a write to one, the name of
	// a Subresource for a write it puts to admission (AdmitMutating),
	// else "".
	Subresource string
	// Namespace and Name name the object ("" for a cluster-scoped
	// resource's namespace, and for the name of a create that generates
	// it).
	Namespace, Name string
	// DryRun: the write is checked but not stored (dryRun=All).
	DryRun bool
	// User is the request's user (auth.UserFrom), the zero User without
	// an authenticator.
	User auth.User
}

// Kind returns the group, version and kind of the objects admission is
// given for the write: for a Subresource with a kind of its own, that
// kind (policy/v1 Eviction for pods/eviction, Binding for pods/binding);
// for the scale subresource, autoscaling/v1 Scale; else the resource's.
func (a Attributes) Kind() (group, version, kind string) {
	r := a.Resource
	if sr := r.subresource(a.Subresource); sr != nil && sr.Kind != "" {
		if sr.Group == "" && sr.Version == "" {
			return r.Group, r.Version, sr.Kind
		}
		return sr.Group, sr.Version, sr.Kind
	}
	if a.Subresource == "scale" && r.Scale != nil {
		return "autoscaling", "v1", "Scale"
	}
	return r.Group, r.Version, r.Kind
}

// AdmitMutating puts a write that a Subresource's Serve or a
// Resource.Create makes itself (a Pod's eviction or binding) to the
// mutating phase of admission, as the server puts its own writes:
// Resource.Admit of a.Resource, then Options.Admission.Check and Mutate,
// which may change obj. kube-apiserver runs it on the decoded object
// before its storage's Create; AdmitValidating is the validating phase,
// which the storage runs when its own checks have passed. a names the
// write (a.Resource one of the server's resources, a.Subresource the
// subresource's name), and obj is its object, of a.Kind().
func (s *Server) AdmitMutating(ctx context.Context, a Attributes, obj, old Object) error {
	if err := s.check(ctx, a, obj, old); err != nil {
		return err
	}
	if a.Operation == OperationDelete {
		return nil
	}
	return s.mutate(ctx, a, obj, old)
}

// AdmitValidating puts a write that a Subresource's Serve or a
// Resource.Create makes itself to the validating phase of admission,
// Options.Admission.Validate, as AdmitMutating to the mutating phase.
func (s *Server) AdmitValidating(ctx context.Context, a Attributes, obj, old Object) error {
	return s.admit(ctx, a, obj, old)
}

// attributes are the admission attributes of a write of op through t.
func attributes(ctx context.Context, t *target, op Operation, name string, dryRun bool) Attributes {
	a := Attributes{Operation: op, Verb: string(t.verb), Resource: t.res.def, Subresource: t.sub,
		Namespace: t.namespace, Name: name, DryRun: dryRun}
	a.User, _ = auth.UserFrom(ctx)
	return a
}

// check runs Resource.Admit of the write's resource and, but for a
// deletion (obj nil), Options.Admission.Check, if any.
func (s *Server) check(ctx context.Context, a Attributes, obj, old Object) error {
	if f := a.Resource.Admit; f != nil {
		if err := f(ctx, a, obj, old); err != nil {
			return err
		}
	}
	if f := s.opts.Admission.Check; f != nil && a.Operation != OperationDelete {
		return f(ctx, a, obj, old)
	}
	return nil
}

// mutate runs the mutating phase of Options.Admission, if any.
func (s *Server) mutate(ctx context.Context, a Attributes, obj, old Object) error {
	if f := s.opts.Admission.Mutate; f != nil {
		return f(ctx, a, obj, old)
	}
	return nil
}

// admit runs the validating phase of Options.Admission, if any.
func (s *Server) admit(ctx context.Context, a Attributes, obj, old Object) error {
	if f := s.opts.Admission.Validate; f != nil {
		return f(ctx, a, obj, old)
	}
	return nil
}
