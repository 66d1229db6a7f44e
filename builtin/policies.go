package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apitypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Policies enforces the ValidatingAdmissionPolicies of a server, as
// kube-apiserver's ValidatingAdmissionPolicy admission plugin does, with
// that plugin's own code (k8s.io/apiserver/pkg/admission/plugin/policy/
// validating): its dispatcher matches each write against every bound
// policy (matchConstraints, the binding's matchResources, matchPolicy
// Equivalent), evaluates matchConditions, variables, validations and
// auditAnnotations with the policy's parameters, applies failurePolicy,
// and answers by the binding's validationActions: a denial is the
// cluster's 422 (or the validation's reason), a warning the cluster's
// Warning header.
//
// It reads the policies, bindings, parameters and Namespaces from the
// server's own storage at each write, so a policy applies from the
// write that creates it (a cluster applies it once its informers have
// seen it). Install Admission, then Bind it to the server.
type Policies struct {
	srv      atomic.Pointer[server.Server]
	dispatch generic.Dispatcher[validating.PolicyHook]
	env      *environment.EnvSet

	cache policyCache[*admissionregistrationv1.ValidatingAdmissionPolicy,
		*admissionregistrationv1.ValidatingAdmissionPolicyBinding, validating.Validator]

	mu  sync.Mutex
	cur *served // what the server serves now
}

// served is what Policies needs of the resources a server serves, made
// again when they change: the resources of the policies and bindings,
// and the equivalent resources matchPolicy Equivalent matches.
type served struct {
	changed  <-chan struct{}
	policies *server.Resource // nil when not served
	bindings *server.Resource
	equiv    runtime.EquivalentResourceRegistry
}

// PolicyOptions configure Policies. The zero value is the defaults.
type PolicyOptions struct {
	// Authorizer answers the checks of the policies' CEL authorizer
	// variable (authorizer.group('apps').resource('deployments')
	// .check('delete').allowed()), with the request's user; a check it
	// fails is an error of the expression. nil allows every check, as a
	// server that authorizes nothing (or whose clients are all allowed
	// everything) would answer.
	Authorizer auth.Authorizer
}

// NewPolicies returns the enforcement of the ValidatingAdmissionPolicies
// of the server it is bound to.
func NewPolicies(opts PolicyOptions) *Policies {
	p := &Policies{env: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	p.cache = policyCache[*admissionregistrationv1.ValidatingAdmissionPolicy,
		*admissionregistrationv1.ValidatingAdmissionPolicyBinding, validating.Validator]{
		newPolicy: func() *admissionregistrationv1.ValidatingAdmissionPolicy {
			return new(admissionregistrationv1.ValidatingAdmissionPolicy)
		},
		newBinding: func() *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
			return new(admissionregistrationv1.ValidatingAdmissionPolicyBinding)
		},
		compile:    p.compile,
		policyName: func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Spec.PolicyName },
		paramKind: func(vap *admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ParamKind {
			return vap.Spec.ParamKind
		},
	}
	authz := allowAll
	if opts.Authorizer != nil {
		authz = celAuthorizer{opts.Authorizer}
	}
	nsl := &serverNamespaceLister{srv: &p.srv}
	p.dispatch = validating.NewDispatcher(authz,
		generic.NewPolicyMatcher(matching.NewMatcher(nsl, namespaceGetter{lister: nsl})))
	return p
}

// celAuthorizer asks an apisem Authorizer the checks of the policies'
// CEL authorizer.
type celAuthorizer struct{ a auth.Authorizer }

func (c celAuthorizer) Authorize(ctx context.Context, ka authorizer.Attributes) (authorizer.Decision, string, error) {
	var u auth.User
	if ku := ka.GetUser(); ku != nil {
		u = auth.User{Name: ku.GetName(), UID: ku.GetUID(), Groups: ku.GetGroups(), Extra: ku.GetExtra()}
	}
	d, reason, err := c.a.Authorize(ctx, auth.Attributes{User: u, Verb: ka.GetVerb(), ResourceRequest: ka.IsResourceRequest(),
		Group: ka.GetAPIGroup(), Version: ka.GetAPIVersion(), Resource: ka.GetResource(), Subresource: ka.GetSubresource(),
		Namespace: ka.GetNamespace(), Name: ka.GetName(), Path: ka.GetPath()})
	switch d {
	case auth.DecisionAllow:
		return authorizer.DecisionAllow, reason, err
	case auth.DecisionDeny:
		return authorizer.DecisionDeny, reason, err
	}
	return authorizer.DecisionNoOpinion, reason, err
}

// Bind makes p enforce the policies of s. Call it after server.New,
// before s serves requests; unbound, p admits everything.
func (p *Policies) Bind(s *server.Server) { p.srv.Store(s) }

// Admission returns next with the enforcement of the policies ahead of
// its Validate, in admission's validating phase: a create or update is
// checked as it will be stored (after the kind's validation), a deletion
// with the object it deletes.
func (p *Policies) Admission(next server.Admission) server.Admission {
	validate := next.Validate
	out := next
	out.Validate = func(ctx context.Context, a server.Attributes, obj, old server.Object) error {
		if err := p.Validate(ctx, a, obj, old); err != nil || validate == nil {
			return err
		}
		return validate(ctx, a, obj, old)
	}
	return out
}

// configResources are the resources policies are never applied to, as
// in kube-apiserver: a policy cannot lock itself or its peers in.
var configResources = map[string]bool{
	"validatingadmissionpolicies": true, "validatingadmissionpolicybindings": true,
	"mutatingadmissionpolicies": true, "mutatingadmissionpolicybindings": true,
}

// Validate checks a write against the policies, as an
// server.Admission.Validate hook.
func (p *Policies) Validate(ctx context.Context, a server.Attributes, obj, old server.Object) error {
	s := p.srv.Load()
	if s == nil || a.Resource.Group == admissionregistrationv1.GroupName && configResources[a.Resource.Plural] {
		return nil
	}
	sv := p.served(s)
	hooks, err := p.cache.hooks(ctx, s, sv.policies, sv.bindings)
	if err != nil || len(hooks) == 0 {
		return err
	}
	attrs := admissionAttributes(a, obj, old)
	attrs.ctx = ctx // the dispatcher's annotations go to the request's audit event
	ctx = warning.WithWarningRecorder(ctx, serverWarnings{ctx})
	err = p.dispatch.Dispatch(ctx, attrs, objectInterfaces{sv.equiv}, hooks)
	if err == nil {
		err = attrs.err() // an object a policy read could not be converted
	}
	return fromKube(err)
}

// serverWarnings passes the dispatcher's warnings (Warn) to the server's
// response.
type serverWarnings struct{ ctx context.Context }

func (w serverWarnings) AddWarning(_, text string) { server.AddWarning(w.ctx, text) }

// resourceOf returns the resource of group and plural that s serves, if any.
func resourceOf(s *server.Server, group, plural string) *server.Resource {
	for _, r := range s.Resources() {
		if r.Group == group && r.Plural == plural {
			return r
		}
	}
	return nil
}

// resourceOfKind returns the resource of a kind that s serves, if any.
func resourceOfKind(s *server.Server, gvk schema.GroupVersionKind) *server.Resource {
	for _, r := range s.Resources() {
		if r.Group == gvk.Group && r.Version == gvk.Version && r.Kind == gvk.Kind {
			return r
		}
	}
	return nil
}

// readAny is how the policies, bindings, parameters and Namespaces are
// read: from what the server has, as kube-apiserver's informers.
var readAny = rv.Read{Semantics: rv.Any}

// objectVersion names one stored version of an object.
func objectVersion(m *meta.ObjectMeta) string { return m.UID + "/" + m.ResourceVersion }

// asKube decodes o into out, a Kubernetes type: a copy of the built-in
// object, else (a policy served by something else) its JSON.
func asKube(o server.Object, out runtime.Object) error {
	if bo, ok := o.(*Object); ok && bo.Value != nil {
		v, err := versioned(bo)
		if err != nil {
			return err
		}
		if dst, src := reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem(); dst.Type() == src.Type() {
			dst.Set(src)
			return nil
		}
	}
	b, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// compile compiles the expressions of a policy into the validator the
// dispatcher evaluates, as the plugin's policy source compiles them: the
// variables first, so that the other expressions may use them; the
// validations, matchConditions and auditAnnotations with the authorizer
// and the parameters (if the policy has a paramKind); the
// messageExpressions without the authorizer. An expression that does not
// compile is an error of evaluation, answered by failurePolicy.
func (p *Policies) compile(vap *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	spec := &vap.Spec
	full := plugincel.OptionalVariableDeclarations{HasParams: spec.ParamKind != nil, HasAuthorizer: true}
	messages := plugincel.OptionalVariableDeclarations{HasParams: spec.ParamKind != nil}
	c, err := plugincel.NewCompositedCompiler(p.env)
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, spec.FailurePolicy, err)
	}
	vars := make([]plugincel.NamedExpressionAccessor, len(spec.Variables))
	for i, v := range spec.Variables {
		vars[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	c.CompileAndStoreVariables(vars, full, environment.StoredExpressions)

	var match matchconditions.Matcher
	if len(spec.MatchConditions) > 0 {
		conds := make([]plugincel.ExpressionAccessor, len(spec.MatchConditions))
		for i := range spec.MatchConditions {
			conds[i] = (*matchconditions.MatchCondition)(&spec.MatchConditions[i])
		}
		match = matchconditions.NewMatcher(c.CompileCondition(conds, full, environment.StoredExpressions),
			spec.FailurePolicy, "policy", "validate", vap.Name)
	}
	// One message expression per validation, nil where it has none.
	checks := make([]plugincel.ExpressionAccessor, len(spec.Validations))
	msgs := make([]plugincel.ExpressionAccessor, len(spec.Validations))
	for i, v := range spec.Validations {
		checks[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			msgs[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	audits := make([]plugincel.ExpressionAccessor, len(spec.AuditAnnotations))
	for i, a := range spec.AuditAnnotations {
		audits[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return validating.NewValidator(
		c.CompileCondition(checks, full, environment.StoredExpressions),
		match,
		c.CompileCondition(audits, full, environment.StoredExpressions),
		c.CompileCondition(msgs, messages, environment.StoredExpressions),
		spec.FailurePolicy, nil)
}

// paramSource returns the lister of a policy's parameters, the kind
// paramKind names among the server's resources, or the plugin's
// configuration error when the server serves no such kind.
func paramSource(s *server.Server, pk *admissionregistrationv1.ParamKind) (informers.GenericInformer, apimeta.RESTScope, error) {
	gv, err := schema.ParseGroupVersion(pk.APIVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to parse paramKind APIVersion: %w", err)
	}
	gvk := gv.WithKind(pk.Kind)
	r := resourceOfKind(s, gvk)
	if r == nil {
		return nil, nil, fmt.Errorf("failed to find resource referenced by paramKind: '%v'", gvk)
	}
	scope := apimeta.RESTScopeRoot
	if r.Namespaced {
		scope = apimeta.RESTScopeNamespace
	}
	return paramInformer{params{s: s, res: r}}, scope, nil
}

// paramInformer is the informer of a paramKind the dispatcher reads
// parameters with: its lister reads the server's storage, which needs no
// sync.
type paramInformer struct{ l params }

func (i paramInformer) Informer() cache.SharedIndexInformer { return syncedInformer{} }
func (i paramInformer) Lister() cache.GenericLister         { return i.l }

// syncedInformer is an informer that has synced (the other methods are
// the nil interface's: the dispatcher asks only HasSynced).
type syncedInformer struct{ cache.SharedIndexInformer }

func (syncedInformer) HasSynced() bool { return true }

// params lists the parameter objects of one resource, in one namespace
// or in all.
type params struct {
	s         *server.Server
	res       *server.Resource
	namespace string
}

func (l params) ByNamespace(ns string) cache.GenericNamespaceLister {
	l.namespace = ns
	return l
}

func (l params) List(sel labels.Selector) ([]runtime.Object, error) {
	page, err := l.s.StoreOf(l.res).List(context.Background(), l.namespace, store.ListOptions{Read: readAny})
	if err != nil {
		return nil, toKube(err)
	}
	var out []runtime.Object
	for i := range page.Len() {
		o := page.View(i)
		if !sel.Matches(labels.Set(o.Meta().Labels)) {
			continue
		}
		v, err := paramObject(l.res, o)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (l params) Get(name string) (runtime.Object, error) {
	o, err := l.s.StoreOf(l.res).View(context.Background(), l.namespace, name, readAny)
	if err != nil {
		return nil, toKube(err)
	}
	return paramObject(l.res, o)
}

// paramObject returns a parameter, read through its resource (in its
// version), as the plugin's informers give it: a built-in kind's typed
// object without its kind (which the dispatcher gives it), any other
// unstructured.
func paramObject(r *server.Resource, o server.Object) (runtime.Object, error) {
	if r.Read != nil { // stored in another version
		var err error
		if o, err = r.Read(o); err != nil {
			return nil, toKube(err)
		}
	}
	if bo, ok := o.(*Object); ok && bo.Value != nil {
		return versioned(bo)
	}
	return unstructuredOf(o, schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind})
}

// unstructuredOf returns o as Kubernetes' Unstructured, of kind gvk.
func unstructuredOf(o server.Object, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		return nil, err
	}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// toKube returns an error of the server's storage as Kubernetes' own,
// which the dispatcher tells apart (a missing parameter is a NotFound).
func toKube(err error) error {
	st, ok := err.(*status.Error)
	if !ok {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: st.Status.Code,
		Reason: metav1.StatusReason(st.Status.Reason), Message: st.Status.Message}}
}

// admissionAttributes are the attributes of a write as kube-apiserver's
// validating admission gets them: the new and old objects in the version
// written (a write of the scale subresource has autoscaling/v1 Scales),
// the request's options and user. The objects are made when a policy
// reads them, which most writes' policies do not.
func admissionAttributes(a server.Attributes, obj, old server.Object) *lazyAttributes {
	r := a.Resource
	g, v, k := a.Kind() // a subresource's: a Scale, an Eviction
	gvk := schema.GroupVersionKind{Group: g, Version: v, Kind: k}
	name := a.Name
	if name == "" && obj != nil {
		name = obj.Meta().Name // generated
	}
	var dryRun []string
	if a.DryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	var (
		op   admission.Operation
		opts runtime.Object
	)
	switch a.Operation {
	case server.OperationCreate:
		op, opts = admission.Create, &metav1.CreateOptions{DryRun: dryRun}
	case server.OperationUpdate:
		op, opts = admission.Update, &metav1.UpdateOptions{DryRun: dryRun}
	default:
		op, opts = admission.Delete, &metav1.DeleteOptions{DryRun: dryRun}
	}
	opts.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind(string(op[:1]) + strings.ToLower(string(op[1:])) + "Options"))
	u := a.User
	l := &lazyAttributes{}
	l.Attributes = admission.NewAttributesRecord(nil, nil, gvk, a.Namespace, name,
		schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Plural}, a.Subresource,
		op, opts, a.DryRun, &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra})
	l.obj = lazyObject{get: sync.OnceValues(func() (runtime.Object, error) { return admissionObject(a, gvk, obj) })}
	l.old = lazyObject{get: sync.OnceValues(func() (runtime.Object, error) { return admissionObject(a, gvk, old) })}
	return l
}

// lazyAttributes are admission attributes whose objects are converted
// when first asked for, and whose annotations are the audit event's of
// the request.
type lazyAttributes struct {
	admission.Attributes
	// ctx is the request's, whose audit event takes the annotations
	// (nil: none does).
	ctx      context.Context
	obj, old lazyObject
}

// AddAnnotation adds an annotation to the request's audit event, as
// kube-apiserver's admission passes its plugins' annotations to it
// (admission.WithAudit): the record checks the key's form and refuses a
// second value, as there.
func (l *lazyAttributes) AddAnnotation(key, value string) error {
	return l.AddAnnotationWithLevel(key, value, auditinternal.LevelMetadata)
}

// AddAnnotationWithLevel is AddAnnotation at a level. One above Metadata
// (a webhook's patch, recorded at Request level) is left out of the
// event: server.AddAuditAnnotation's are recorded at every level.
func (l *lazyAttributes) AddAnnotationWithLevel(key, value string, level auditinternal.Level) error {
	if err := l.Attributes.AddAnnotationWithLevel(key, value, level); err != nil {
		return err
	}
	if level == auditinternal.LevelMetadata && l.ctx != nil {
		server.AddAuditAnnotation(l.ctx, key, value)
	}
	return nil
}

type lazyObject struct {
	get  func() (runtime.Object, error)
	read atomic.Bool
}

func (o *lazyObject) object() runtime.Object {
	o.read.Store(true)
	v, err := o.get()
	if err != nil || v == nil {
		return nil // an untyped nil, as admission has for no object
	}
	return v
}

func (o *lazyObject) err() error {
	if !o.read.Load() {
		return nil
	}
	_, err := o.get()
	return err
}

func (l *lazyAttributes) GetObject() runtime.Object    { return l.obj.object() }
func (l *lazyAttributes) GetOldObject() runtime.Object { return l.old.object() }

// err is the error of converting an object that was read.
func (l *lazyAttributes) err() error {
	if err := l.obj.err(); err != nil {
		return err
	}
	return l.old.err()
}

// admissionObject returns obj (nil for none) as admission gives it to a
// policy, of kind gvk: a built-in kind's typed object, the Scale of a
// write of the scale subresource, any other kind's unstructured.
func admissionObject(a server.Attributes, gvk schema.GroupVersionKind, obj server.Object) (runtime.Object, error) {
	if obj == nil {
		return nil, nil
	}
	if a.Subresource == "scale" && a.Resource.Scale != nil {
		spec, st, _, err := a.Resource.Scale.Get(obj)
		if err != nil {
			return nil, err
		}
		m := obj.Meta()
		sc := &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: apitypes.UID(m.UID),
				ResourceVersion: m.ResourceVersion, CreationTimestamp: metav1.NewTime(m.CreationTimestamp.Time)},
			Spec:   autoscalingv1.ScaleSpec{Replicas: spec.Replicas},
			Status: autoscalingv1.ScaleStatus{Replicas: st.Replicas, Selector: st.Selector},
		}
		sc.SetGroupVersionKind(gvk)
		return sc, nil
	}
	if bo, ok := obj.(*Object); ok && bo.Value != nil {
		v, err := versioned(bo)
		if err != nil {
			return nil, err
		}
		v.GetObjectKind().SetGroupVersionKind(gvk)
		return v, nil
	}
	return unstructuredOf(obj, gvk)
}

// objectInterfaces are the scheme and the equivalent resources the
// dispatcher converts and matches with.
type objectInterfaces struct {
	equiv runtime.EquivalentResourceMapper
}

func (objectInterfaces) GetObjectCreater() runtime.ObjectCreater     { return scheme }
func (objectInterfaces) GetObjectTyper() runtime.ObjectTyper         { return scheme }
func (objectInterfaces) GetObjectDefaulter() runtime.ObjectDefaulter { return scheme }
func (objectInterfaces) GetObjectConvertor() runtime.ObjectConvertor { return versionConvertor{scheme} }
func (o objectInterfaces) GetEquivalentResourceMapper() runtime.EquivalentResourceMapper {
	return o.equiv
}

// versionConvertor converts a built-in object from one version to
// another through its internal form, as kube-apiserver's admission
// converts its internal object to the version a policy matched (an
// autoscaling/v1 HorizontalPodAutoscaler for a policy of autoscaling/v2
// ones, under matchPolicy Equivalent).
type versionConvertor struct{ *runtime.Scheme }

func (c versionConvertor) Convert(in, out, context any) error {
	i, ok := in.(runtime.Object)
	if _, u := in.(*unstructured.Unstructured); !ok || u {
		return c.Scheme.Convert(in, out, context)
	}
	gvk := i.GetObjectKind().GroupVersionKind()
	internal, err := c.Scheme.ConvertToVersion(i, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return err
	}
	return c.Scheme.Convert(internal, out, context)
}

// served returns what p needs of the resources s serves now.
func (p *Policies) served(s *server.Server) *served {
	p.mu.Lock()
	defer p.mu.Unlock()
	if sv := p.cur; sv != nil {
		select {
		case <-sv.changed:
		default:
			return sv
		}
	}
	sv := servedOf(s)
	p.cur = sv
	return sv
}

// servedOf returns what the policies need of the resources s serves now.
func servedOf(s *server.Server) *served {
	sv := &served{changed: s.ResourcesChanged()}
	sv.equiv = runtime.NewEquivalentResourceRegistryWithIdentity(func(gr schema.GroupResource) string {
		for _, k := range all {
			if k.Group == gr.Group && k.Plural == gr.Resource {
				return k.storage() // kinds of one storage are equivalent
			}
		}
		return ""
	})
	for _, r := range s.Resources() {
		if r.Group == admissionregistrationv1.GroupName {
			switch r.Plural {
			case "validatingadmissionpolicies":
				sv.policies = r
			case "validatingadmissionpolicybindings":
				sv.bindings = r
			}
		}
		if !isBuiltin(r) {
			// The versions of another resource (a custom resource's)
			// are not converted here: each is matched on its own.
			continue
		}
		gvr := schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Plural}
		gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		sv.equiv.RegisterKindFor(gvr, "", gvk)
		if r.StatusSubresource {
			sv.equiv.RegisterKindFor(gvr, "status", gvk)
		}
		if r.Scale != nil {
			sv.equiv.RegisterKindFor(gvr, "scale", autoscalingv1.SchemeGroupVersion.WithKind("Scale"))
		}
		for _, sr := range r.Subresources {
			if sr.Kind != "" {
				g, v, k := server.Attributes{Resource: r, Subresource: sr.Name}.Kind()
				sv.equiv.RegisterKindFor(gvr, sr.Name, schema.GroupVersionKind{Group: g, Version: v, Kind: k})
			}
		}
	}
	return sv
}

// isBuiltin reports whether r serves a kind of the table.
func isBuiltin(r *server.Resource) bool {
	for _, k := range all {
		if k.Group == r.Group && k.Version == r.Version && k.Kind == r.Kind {
			return true
		}
	}
	return false
}

// serverNamespaceLister reads the Namespaces of the bound server for the
// dispatcher's namespaceSelector and namespaceObject. A server without
// Namespaces has every namespace, without labels.
type serverNamespaceLister struct {
	corev1listers.NamespaceLister // List: the nil interface's; the matcher only gets
	srv                           *atomic.Pointer[server.Server]
}

func (l *serverNamespaceLister) Get(name string) (*corev1.Namespace, error) {
	s := l.srv.Load()
	var r *server.Resource
	if s != nil {
		r = resourceOf(s, "", "namespaces")
	}
	if r == nil {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
	}
	o, err := s.StoreOf(r).View(context.Background(), "", name, readAny)
	if err == nil && r.Read != nil {
		o, err = r.Read(o)
	}
	if err != nil {
		return nil, toKube(err)
	}
	ns := &corev1.Namespace{}
	if err := asKube(o, ns); err != nil {
		return nil, err
	}
	return ns, nil
}

// namespaceGetter is the client the matcher reads a Namespace its lister
// does not have with: the same lister, which reads the storage.
type namespaceGetter struct {
	kubernetes.Interface // the other methods: the nil interface's
	lister               *serverNamespaceLister
}

func (g namespaceGetter) CoreV1() corev1client.CoreV1Interface { return coreGetter{lister: g.lister} }

type coreGetter struct {
	corev1client.CoreV1Interface
	lister *serverNamespaceLister
}

func (g coreGetter) Namespaces() corev1client.NamespaceInterface {
	return namespaceGet{lister: g.lister}
}

type namespaceGet struct {
	corev1client.NamespaceInterface
	lister *serverNamespaceLister
}

func (g namespaceGet) Get(_ context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	return g.lister.Get(name)
}
