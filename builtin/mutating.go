package builtin

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"

	"github.com/apisem/apisem/server"
)

// MutatingPolicies applies the MutatingAdmissionPolicies of a server, as
// kube-apiserver's MutatingAdmissionPolicy admission plugin does, with
// that plugin's own code (k8s.io/apiserver/pkg/admission/plugin/policy/
// mutating): its dispatcher matches each create and update against
// every bound policy (matchConstraints, the binding's matchResources,
// matchPolicy Equivalent), evaluates matchConditions and variables with
// the policy's parameters, applies each mutation in order (an
// ApplyConfiguration merged with structured-merge-diff, by the schema
// the server publishes for the kind; a JSONPatch), answers an error by
// failurePolicy, and reinvokes the policies whose reinvocationPolicy is
// IfNeeded once when a later policy changed the object.
//
// Like Policies, it reads the policies, bindings, parameters and
// Namespaces from the server's own storage at each write. It runs in
// admission's mutating phase, so ahead of every validation, the
// ValidatingAdmissionPolicies' included; its changes are owned by no
// field manager, as on a cluster. Install Admission, then Bind it to
// the server.
type MutatingPolicies struct {
	srv      atomic.Pointer[server.Server]
	dispatch generic.Dispatcher[mutating.PolicyHook]
	env      *environment.EnvSet
	types    *typeConverters

	cache policyCache[*admissionregistrationv1.MutatingAdmissionPolicy,
		*admissionregistrationv1.MutatingAdmissionPolicyBinding, mutating.PolicyEvaluator]

	mu  sync.Mutex
	cur *mutatingServed
}

// mutatingServed are the resources of the policies and bindings, and the
// equivalent resources, of what the server serves now.
type mutatingServed struct {
	*served
	policies, bindings *server.Resource
}

// NewMutatingPolicies returns the enforcement of the
// MutatingAdmissionPolicies of the server it is bound to. The options
// are those of Policies: the Authorizer answers the checks of the
// policies' CEL authorizer variable.
func NewMutatingPolicies(opts PolicyOptions) *MutatingPolicies {
	p := &MutatingPolicies{env: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	p.cache = policyCache[*admissionregistrationv1.MutatingAdmissionPolicy,
		*admissionregistrationv1.MutatingAdmissionPolicyBinding, mutating.PolicyEvaluator]{
		newPolicy: func() *admissionregistrationv1.MutatingAdmissionPolicy {
			return new(admissionregistrationv1.MutatingAdmissionPolicy)
		},
		newBinding: func() *admissionregistrationv1.MutatingAdmissionPolicyBinding {
			return new(admissionregistrationv1.MutatingAdmissionPolicyBinding)
		},
		compile:    p.compile,
		policyName: func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) string { return b.Spec.PolicyName },
		paramKind: func(mp *admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
			return mp.Spec.ParamKind
		},
	}
	p.types = &typeConverters{srv: &p.srv}
	authz := allowAll
	if opts.Authorizer != nil {
		authz = celAuthorizer{opts.Authorizer}
	}
	nsl := &serverNamespaceLister{srv: &p.srv}
	p.dispatch = mutating.NewDispatcher(authz,
		matching.NewMatcher(nsl, namespaceGetter{lister: nsl}), p.types)
	return p
}

// Bind makes p apply the policies of s. Call it after server.New, before
// s serves requests; unbound, p changes nothing.
func (p *MutatingPolicies) Bind(s *server.Server) { p.srv.Store(s) }

// Admission returns next with the policies applied ahead of its Mutate,
// in admission's mutating phase (as kube-apiserver runs the plugin
// ahead of its mutating webhooks): a create or update is mutated after
// its defaulting and managedFields, before any validation.
func (p *MutatingPolicies) Admission(next server.Admission) server.Admission {
	mutate := next.Mutate
	out := next
	out.Mutate = func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		if err := p.Mutate(ctx, a, obj, old); err != nil || mutate == nil {
			return err
		}
		return mutate(ctx, a, obj, old)
	}
	return out
}

// Mutate applies the policies to a create or update, as a
// server.Admission.Mutate hook: obj is changed in place.
func (p *MutatingPolicies) Mutate(ctx context.Context, a server.Attributes, obj, old server.Object) error {
	s := p.srv.Load()
	if s == nil || obj == nil || a.Operation == server.OperationDelete ||
		a.Resource.Group == admissionregistrationv1.GroupName && configResources[a.Resource.Plural] {
		return nil
	}
	sv := p.served(s)
	hooks, err := p.cache.hooks(ctx, s, sv.policies, sv.bindings)
	if err != nil || len(hooks) == 0 {
		return err
	}
	attrs := admissionAttributes(a, obj, old)
	ctx = warning.WithWarningRecorder(ctx, serverWarnings{ctx})
	oi := objectInterfaces{sv.equiv}
	err = p.dispatch.Dispatch(ctx, attrs, oi, hooks)
	rc := attrs.GetReinvocationContext()
	if err == nil && rc.ShouldReinvoke() {
		// The chain of kube-apiserver's mutating plugins runs once
		// more when one changed the object; here the policies are
		// that chain, and reinvoke those that ask to be.
		rc.SetIsReinvoke()
		err = p.dispatch.Dispatch(ctx, attrs, oi, hooks)
	}
	if err == nil {
		err = attrs.err()
	}
	if err != nil {
		return fromKube(err)
	}
	if !rc.ShouldReinvoke() {
		return nil // the policies changed nothing
	}
	return setAdmitted(a, obj, attrs.GetObject())
}

// setAdmitted makes obj the object admission mutated: v, of the kind of
// admissionObject (a Scale for a write of the scale subresource).
func setAdmitted(a server.Attributes, obj server.Object, v runtime.Object) error {
	if v == nil {
		return nil
	}
	if sc, ok := v.(*autoscalingv1.Scale); ok && a.Subresource == "scale" && a.Resource.Scale != nil {
		return a.Resource.Scale.Set(obj, sc.Spec.Replicas)
	}
	if bo, ok := obj.(*Object); ok && bo.Value != nil {
		if _, ok := v.(*unstructured.Unstructured); !ok {
			return setVersioned(bo, v) // v is this write's own: admissionObject made it
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tm := *obj.Types()
	if err := json.Unmarshal(b, obj); err != nil {
		return err
	}
	*obj.Types() = tm
	return nil
}

// served returns what p needs of the resources s serves now.
func (p *MutatingPolicies) served(s *server.Server) *mutatingServed {
	p.mu.Lock()
	cur := p.cur
	p.mu.Unlock()
	if cur != nil {
		select {
		case <-cur.changed:
		default:
			return cur
		}
	}
	sv := &mutatingServed{served: servedOf(s)}
	for _, r := range s.Resources() {
		if r.Group == admissionregistrationv1.GroupName {
			switch r.Plural {
			case "mutatingadmissionpolicies":
				sv.policies = r
			case "mutatingadmissionpolicybindings":
				sv.bindings = r
			}
		}
	}
	p.mu.Lock()
	p.cur = sv
	p.mu.Unlock()
	p.types.reset(sv.changed)
	return sv
}

// compile compiles a policy as the plugin's policy source does: the
// variables first, then the matchConditions, then one patcher per
// mutation (ApplyConfiguration or JSONPatch), all with the authorizer
// and, with a paramKind, the parameters. An expression that does not
// compile is an error of its mutation's evaluation, answered by
// failurePolicy.
func (p *MutatingPolicies) compile(mp *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator {
	spec := &mp.Spec
	opts := plugincel.OptionalVariableDeclarations{HasParams: spec.ParamKind != nil, HasAuthorizer: true}
	c, err := plugincel.NewCompositedCompiler(p.env)
	if err != nil {
		return mutating.PolicyEvaluator{Error: err}
	}
	vars := make([]plugincel.NamedExpressionAccessor, len(spec.Variables))
	for i, v := range spec.Variables {
		vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	c.CompileAndStoreVariables(vars, opts, environment.StoredExpressions)

	var match matchconditions.Matcher
	if len(spec.MatchConditions) > 0 {
		conds := make([]plugincel.ExpressionAccessor, len(spec.MatchConditions))
		for i := range spec.MatchConditions {
			conds[i] = (*matchconditions.MatchCondition)(&spec.MatchConditions[i])
		}
		match = matchconditions.NewMatcher(c.CompileCondition(conds, opts, environment.StoredExpressions),
			spec.FailurePolicy, "policy", "validate", mp.Name)
	}
	patchOpts := opts
	patchOpts.HasPatchTypes = true
	var patchers []patch.Patcher
	for _, m := range spec.Mutations {
		switch m.PatchType {
		case admissionregistrationv1.PatchTypeJSONPatch:
			if m.JSONPatch != nil {
				e := c.CompileMutatingEvaluator(&patch.JSONPatchCondition{Expression: m.JSONPatch.Expression}, patchOpts, environment.StoredExpressions)
				patchers = append(patchers, patch.NewJSONPatcher(e))
			}
		case admissionregistrationv1.PatchTypeApplyConfiguration:
			if m.ApplyConfiguration != nil {
				e := c.CompileMutatingEvaluator(&patch.ApplyConfigurationCondition{Expression: m.ApplyConfiguration.Expression}, patchOpts, environment.StoredExpressions)
				patchers = append(patchers, patch.NewApplyConfigurationPatcher(e))
			}
		}
	}
	return mutating.PolicyEvaluator{Matcher: match, Mutators: patchers, CompositedCompiler: c}
}
