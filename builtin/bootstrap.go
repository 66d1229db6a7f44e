package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	apfbootstrap "k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"k8s.io/client-go/util/retry"
	"k8s.io/component-helpers/auth/rbac/reconciliation"
	schedulingapiv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/ensurer"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"

	"github.com/apisem/apisem/server"
)

// BootstrapOptions configure Bootstrap. The zero value makes the
// kubernetes Service point at port 443.
type BootstrapOptions struct {
	// SecurePort is the port the server serves on, the targetPort of the
	// kubernetes Service, as kube-apiserver's --secure-port is; 0 leaves
	// it to default to the Service's port, 443.
	SecurePort int32
}

// apiserverManager is the fieldManager of kube-apiserver's own writes
// at start: its loopback client's User-Agent names it.
const apiserverManager = "kube-apiserver"

// Bootstrap creates in s the objects a kube-apiserver v1.37 creates
// itself at start, those that exist being reconciled as kube-apiserver
// reconciles them on a restart, so that Bootstrap may be called at
// every start of a server on the same storage (package etcdstore):
//
//   - the API Priority and Fairness configuration
//     (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap): the suggested
//     and mandatory FlowSchemas and PriorityLevelConfigurations, with
//     Kubernetes' own ensurer (pkg/registry/flowcontrol/ensurer): a
//     missing one is created, a mandatory one's spec is put back, a
//     suggested one's only while its apf.kubernetes.io/autoupdate-spec
//     annotation is not "false" (or, without the annotation, while the
//     user never changed it), and one annotated "true" that is no longer
//     in the configuration is deleted;
//   - the PriorityClasses system-node-critical and
//     system-cluster-critical, created when missing and else left alone;
//   - the bootstrap RBAC policy
//     (plugin/pkg/auth/authorizer/rbac/bootstrappolicy: cluster-admin,
//     admin, edit, view, the system: roles, the controllers' roles, their
//     bindings, and the Roles and RoleBindings of kube-system and
//     kube-public), reconciled by Kubernetes' own code
//     (k8s.io/component-helpers/auth/rbac/reconciliation): a missing
//     object is created, one that lacks rules, subjects, labels or
//     annotations gets them unless its annotation
//     rbac.authorization.kubernetes.io/autoupdate is "false", nothing
//     is ever taken away, and a binding whose roleRef changed is
//     recreated;
//   - the Service default/kubernetes (labels component=apiserver and
//     provider=kubernetes; port https 443 to opts.SecurePort; cluster IP
//     10.96.0.1, the first of the Service range, which the
//     ServiceAllocator never gives another Service), created when
//     missing and else left alone, as kube-apiserver 1.37 leaves it.
//
// Each kind is skipped when s does not serve it. The objects are
// recorded in managedFields by the managers kube-apiserver's writes have
// ("kube-apiserver", "api-priority-and-fairness-config-producer-v1", and
// "api-priority-and-fairness-config-consumer-v1" for the FlowSchemas'
// status). A kind of which s holds no objects yet (a fresh server) is
// given copies of objects made once per process through the write
// pipeline of a scratch server, stored without s's admission hooks; the
// others are reconciled through s's own write pipeline. A namespace a
// Role needs is created when missing, as by kube-apiserver.
//
// It differs from kube-apiserver in these: it runs once, where
// kube-apiserver keeps the kubernetes Service (every 10 s) and the APF
// configuration (every minute) in place while it runs; no controller
// fills the rules of the aggregated ClusterRoles (admin, edit, view:
// their rules stay empty, as on a kube-apiserver without
// kube-controller-manager, such as envtest's), and the FlowSchemas'
// Dangling condition is written once, not kept up to date. The
// kubernetes Service has no Endpoints or EndpointSlice, as on a
// kube-apiserver that advertises a loopback address: it runs with
// --endpoint-reconciler-type=none (the reference does), refusing to
// start with a reconciler and such an address ("may not be in the
// loopback range").
func Bootstrap(ctx context.Context, s *server.Server, opts BootstrapOptions) error {
	b := &bootstrapper{s: s, opts: opts}
	var err error
	if b.skip, err = b.fresh(ctx); err != nil {
		return err
	}
	return errors.Join(b.flowcontrol(ctx), b.priorityClasses(ctx), b.rbac(ctx), b.kubernetesService(ctx))
}

type bootstrapper struct {
	s    *server.Server
	opts BootstrapOptions
	// skip are the resources fresh filled: nothing to reconcile.
	skip map[*server.Resource]bool
}

// served returns s's resource group/plural, nil when s does not serve
// it or Bootstrap filled it from the template.
func (b *bootstrapper) served(group, plural string) *server.Resource {
	for _, r := range b.s.Resources() {
		if r.Group == group && r.Plural == plural && b.s.StoreOf(r) != nil && !b.skip[r] {
			return r
		}
	}
	return nil
}

// policy is Kubernetes' bootstrap objects, built once per process (the
// RBAC policy is a few hundred objects); users copy what they change.
var policy = sync.OnceValue(func() *bootstrapPolicy {
	return &bootstrapPolicy{
		clusterRoles:        append(bootstrappolicy.ClusterRoles(), bootstrappolicy.ControllerRoles()...),
		clusterRoleBindings: append(bootstrappolicy.ClusterRoleBindings(), bootstrappolicy.ControllerRoleBindings()...),
		roles:               bootstrappolicy.NamespaceRoles(),
		roleBindings:        bootstrappolicy.NamespaceRoleBindings(),
		priorityClasses:     schedulingapiv1.SystemPriorityClasses(),
	}
})

type bootstrapPolicy struct {
	clusterRoles        []rbacv1.ClusterRole
	clusterRoleBindings []rbacv1.ClusterRoleBinding
	roles               map[string][]rbacv1.Role
	roleBindings        map[string][]rbacv1.RoleBinding
	priorityClasses     []*schedulingv1.PriorityClass
}

// ensureNamespace creates the namespace ns when s serves namespaces and
// has none of that name, as kube-apiserver's RBAC reconciliation does
// before it creates a Role or RoleBinding.
func (b *bootstrapper) ensureNamespace(ctx context.Context, ns string) error {
	res := b.served("", "namespaces")
	if res == nil || ns == "" {
		return nil
	}
	c := typedClient[*corev1.Namespace]{s: b.s, res: res, new: func() *corev1.Namespace { return &corev1.Namespace{} }, manager: apiserverManager}
	if _, err := c.get(ctx, "", ns); !apierrors.IsNotFound(err) {
		return err
	}
	if _, err := c.create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// priorityClasses creates the system PriorityClasses that are missing,
// as kube-apiserver's scheduling post-start hook.
func (b *bootstrapper) priorityClasses(ctx context.Context) error {
	res := b.served("scheduling.k8s.io", "priorityclasses")
	if res == nil {
		return nil
	}
	c := typedClient[*schedulingv1.PriorityClass]{s: b.s, res: res, new: func() *schedulingv1.PriorityClass { return &schedulingv1.PriorityClass{} }, manager: apiserverManager}
	for _, pc := range policy().priorityClasses {
		_, err := c.get(ctx, "", pc.Name)
		if apierrors.IsNotFound(err) {
			_, err = c.create(ctx, pc.DeepCopy())
		}
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("builtin: PriorityClass %s: %w", pc.Name, err)
		}
	}
	return nil
}

// kubernetesServiceIP is the cluster IP of the Service default/kubernetes:
// the first of the Service range, as kube-apiserver chooses it.
var kubernetesServiceIP = serviceRange.Addr().Next()

// kubernetesService creates the Service default/kubernetes when it is
// missing, as kube-apiserver's kubernetesservice controller does.
func (b *bootstrapper) kubernetesService(ctx context.Context) error {
	res := b.served("", "services")
	if res == nil {
		return nil
	}
	c := typedClient[*corev1.Service]{s: b.s, res: res, new: func() *corev1.Service { return &corev1.Service{} }, manager: apiserverManager}
	_, err := c.get(ctx, metav1.NamespaceDefault, "kubernetes")
	if !apierrors.IsNotFound(err) {
		return err
	}
	if err := b.ensureNamespace(ctx, metav1.NamespaceDefault); err != nil {
		return err
	}
	single := corev1.IPFamilyPolicySingleStack
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"provider": "kubernetes", "component": "apiserver"}},
		Spec: corev1.ServiceSpec{
			Ports: []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443,
				TargetPort: intstr.FromInt32(b.opts.SecurePort)}},
			ClusterIP:       kubernetesServiceIP.String(),
			IPFamilyPolicy:  &single,
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            corev1.ServiceTypeClusterIP,
		},
	}
	if _, err = c.create(ctx, svc); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("builtin: the kubernetes Service: %w", err)
	}
	return nil
}

// rbac reconciles the bootstrap RBAC policy, as kube-apiserver's
// rbac/bootstrap-roles post-start hook: every object, whatever others
// do (an error is returned after the rest were tried).
func (b *bootstrapper) rbac(ctx context.Context) error {
	p := policy()
	var errs []error
	try := func(what string, run func() error) {
		if err := retry.RetryOnConflict(retry.DefaultBackoff, run); err != nil {
			errs = append(errs, fmt.Errorf("builtin: %s: %w", what, err))
		}
	}
	if res := b.served("rbac.authorization.k8s.io", "clusterroles"); res != nil {
		m := clusterRoleModifier{ctx: ctx, c: typedClient[*rbacv1.ClusterRole]{s: b.s, res: res,
			new: func() *rbacv1.ClusterRole { return &rbacv1.ClusterRole{} }, manager: apiserverManager}}
		for i := range p.clusterRoles {
			r := p.clusterRoles[i].DeepCopy()
			try("clusterrole "+r.Name, func() error {
				_, err := (&reconciliation.ReconcileRoleOptions{Role: reconciliation.ClusterRoleRuleOwner{ClusterRole: r},
					Client: m, Confirm: true}).Run()
				return err
			})
		}
	}
	if res := b.served("rbac.authorization.k8s.io", "clusterrolebindings"); res != nil {
		m := clusterRoleBindingModifier{ctx: ctx, c: typedClient[*rbacv1.ClusterRoleBinding]{s: b.s, res: res,
			new: func() *rbacv1.ClusterRoleBinding { return &rbacv1.ClusterRoleBinding{} }, manager: apiserverManager}}
		for i := range p.clusterRoleBindings {
			rb := p.clusterRoleBindings[i].DeepCopy()
			try("clusterrolebinding "+rb.Name, func() error {
				_, err := (&reconciliation.ReconcileRoleBindingOptions{RoleBinding: reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: rb},
					Client: m, Confirm: true}).Run()
				return err
			})
		}
	}
	if res := b.served("rbac.authorization.k8s.io", "roles"); res != nil {
		m := roleModifier{b: b, ctx: ctx, c: typedClient[*rbacv1.Role]{s: b.s, res: res,
			new: func() *rbacv1.Role { return &rbacv1.Role{} }, manager: apiserverManager}}
		for _, ns := range sortedKeys(p.roles) {
			for i := range p.roles[ns] {
				r := p.roles[ns][i].DeepCopy()
				try("role "+ns+"/"+r.Name, func() error {
					_, err := (&reconciliation.ReconcileRoleOptions{Role: reconciliation.RoleRuleOwner{Role: r},
						Client: m, Confirm: true}).Run()
					return err
				})
			}
		}
	}
	if res := b.served("rbac.authorization.k8s.io", "rolebindings"); res != nil {
		m := roleBindingModifier{b: b, ctx: ctx, c: typedClient[*rbacv1.RoleBinding]{s: b.s, res: res,
			new: func() *rbacv1.RoleBinding { return &rbacv1.RoleBinding{} }, manager: apiserverManager}}
		for _, ns := range sortedKeys(p.roleBindings) {
			for i := range p.roleBindings[ns] {
				rb := p.roleBindings[ns][i].DeepCopy()
				try("rolebinding "+ns+"/"+rb.Name, func() error {
					_, err := (&reconciliation.ReconcileRoleBindingOptions{RoleBinding: reconciliation.RoleBindingAdapter{RoleBinding: rb},
						Client: m, Confirm: true}).Run()
					return err
				})
			}
		}
	}
	return errors.Join(errs...)
}

// The modifiers of Kubernetes' RBAC reconciliation, on the server.
type (
	clusterRoleModifier struct {
		ctx context.Context
		c   typedClient[*rbacv1.ClusterRole]
	}
	clusterRoleBindingModifier struct {
		ctx context.Context
		c   typedClient[*rbacv1.ClusterRoleBinding]
	}
	roleModifier struct {
		b   *bootstrapper
		ctx context.Context
		c   typedClient[*rbacv1.Role]
	}
	roleBindingModifier struct {
		b   *bootstrapper
		ctx context.Context
		c   typedClient[*rbacv1.RoleBinding]
	}
)

func (m clusterRoleModifier) Get(_, name string) (reconciliation.RuleOwner, error) {
	r, err := m.c.get(m.ctx, "", name)
	if err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleRuleOwner{ClusterRole: r}, nil
}

func (m clusterRoleModifier) Create(in reconciliation.RuleOwner) (reconciliation.RuleOwner, error) {
	r, err := m.c.create(m.ctx, in.(reconciliation.ClusterRoleRuleOwner).ClusterRole)
	if err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleRuleOwner{ClusterRole: r}, nil
}

func (m clusterRoleModifier) Update(in reconciliation.RuleOwner) (reconciliation.RuleOwner, error) {
	r, err := m.c.update(m.ctx, in.(reconciliation.ClusterRoleRuleOwner).ClusterRole)
	if err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleRuleOwner{ClusterRole: r}, nil
}

func (m roleModifier) Get(namespace, name string) (reconciliation.RuleOwner, error) {
	r, err := m.c.get(m.ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return reconciliation.RoleRuleOwner{Role: r}, nil
}

func (m roleModifier) Create(in reconciliation.RuleOwner) (reconciliation.RuleOwner, error) {
	role := in.(reconciliation.RoleRuleOwner).Role
	if err := m.b.ensureNamespace(m.ctx, role.Namespace); err != nil {
		return nil, err
	}
	r, err := m.c.create(m.ctx, role)
	if err != nil {
		return nil, err
	}
	return reconciliation.RoleRuleOwner{Role: r}, nil
}

func (m roleModifier) Update(in reconciliation.RuleOwner) (reconciliation.RuleOwner, error) {
	r, err := m.c.update(m.ctx, in.(reconciliation.RoleRuleOwner).Role)
	if err != nil {
		return nil, err
	}
	return reconciliation.RoleRuleOwner{Role: r}, nil
}

func (m clusterRoleBindingModifier) Get(_, name string) (reconciliation.RoleBinding, error) {
	rb, err := m.c.get(m.ctx, "", name)
	if err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: rb}, nil
}

func (m clusterRoleBindingModifier) Delete(_, name string, uid types.UID) error {
	return m.c.delete(m.ctx, "", name, &metav1.Preconditions{UID: &uid})
}

func (m clusterRoleBindingModifier) Create(in reconciliation.RoleBinding) (reconciliation.RoleBinding, error) {
	rb, err := m.c.create(m.ctx, in.(reconciliation.ClusterRoleBindingAdapter).ClusterRoleBinding)
	if err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: rb}, nil
}

func (m clusterRoleBindingModifier) Update(in reconciliation.RoleBinding) (reconciliation.RoleBinding, error) {
	rb, err := m.c.update(m.ctx, in.(reconciliation.ClusterRoleBindingAdapter).ClusterRoleBinding)
	if err != nil {
		return nil, err
	}
	return reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: rb}, nil
}

func (m roleBindingModifier) Get(namespace, name string) (reconciliation.RoleBinding, error) {
	rb, err := m.c.get(m.ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return reconciliation.RoleBindingAdapter{RoleBinding: rb}, nil
}

func (m roleBindingModifier) Delete(namespace, name string, uid types.UID) error {
	return m.c.delete(m.ctx, namespace, name, &metav1.Preconditions{UID: &uid})
}

func (m roleBindingModifier) Create(in reconciliation.RoleBinding) (reconciliation.RoleBinding, error) {
	rb := in.(reconciliation.RoleBindingAdapter).RoleBinding
	if err := m.b.ensureNamespace(m.ctx, rb.Namespace); err != nil {
		return nil, err
	}
	out, err := m.c.create(m.ctx, rb)
	if err != nil {
		return nil, err
	}
	return reconciliation.RoleBindingAdapter{RoleBinding: out}, nil
}

func (m roleBindingModifier) Update(in reconciliation.RoleBinding) (reconciliation.RoleBinding, error) {
	rb, err := m.c.update(m.ctx, in.(reconciliation.RoleBindingAdapter).RoleBinding)
	if err != nil {
		return nil, err
	}
	return reconciliation.RoleBindingAdapter{RoleBinding: rb}, nil
}

// flowcontrol ensures the API Priority and Fairness configuration, as
// kube-apiserver's priority-and-fairness-config-producer post-start hook:
// the suggested objects, then the mandatory ones, then the removal of
// those annotated for auto-update that the configuration no longer has;
// then the FlowSchemas' status, as its APF controller writes it.
func (b *bootstrapper) flowcontrol(ctx context.Context) error {
	plRes := b.served("flowcontrol.apiserver.k8s.io", "prioritylevelconfigurations")
	fsRes := b.served("flowcontrol.apiserver.k8s.io", "flowschemas")
	if plRes == nil || fsRes == nil {
		return nil
	}
	pl := typedClient[*flowcontrolv1.PriorityLevelConfiguration]{s: b.s, res: plRes,
		new: func() *flowcontrolv1.PriorityLevelConfiguration { return &flowcontrolv1.PriorityLevelConfiguration{} }}
	fs := typedClient[*flowcontrolv1.FlowSchema]{s: b.s, res: fsRes,
		new: func() *flowcontrolv1.FlowSchema { return &flowcontrolv1.FlowSchema{} }}
	plOps := ensurer.NewPriorityLevelConfigurationOps(plClient{ctx: ctx, c: pl}, plLister{ctx: ctx, c: pl})
	fsOps := ensurer.NewFlowSchemaOps(fsClient{ctx: ctx, c: fs}, fsLister{ctx: ctx, c: fs})
	suggested := ensurer.NewSuggestedEnsureStrategy[*flowcontrolv1.PriorityLevelConfiguration]()
	mandatory := ensurer.NewMandatoryEnsureStrategy[*flowcontrolv1.PriorityLevelConfiguration]()
	if err := ensurer.EnsureConfigurations(ctx, plOps, apfbootstrap.SuggestedPriorityLevelConfigurations, suggested); err != nil {
		return err
	}
	if err := ensurer.EnsureConfigurations(ctx, fsOps, apfbootstrap.SuggestedFlowSchemas,
		ensurer.NewSuggestedEnsureStrategy[*flowcontrolv1.FlowSchema]()); err != nil {
		return err
	}
	if err := ensurer.EnsureConfigurations(ctx, plOps, apfbootstrap.MandatoryPriorityLevelConfigurations, mandatory); err != nil {
		return err
	}
	if err := ensurer.EnsureConfigurations(ctx, fsOps, apfbootstrap.MandatoryFlowSchemas,
		ensurer.NewMandatoryEnsureStrategy[*flowcontrolv1.FlowSchema]()); err != nil {
		return err
	}
	allFS := append(append([]*flowcontrolv1.FlowSchema(nil), apfbootstrap.MandatoryFlowSchemas...), apfbootstrap.SuggestedFlowSchemas...)
	if err := ensurer.RemoveUnwantedObjects(ctx, fsOps, allFS); err != nil {
		return err
	}
	allPL := append(append([]*flowcontrolv1.PriorityLevelConfiguration(nil), apfbootstrap.MandatoryPriorityLevelConfigurations...),
		apfbootstrap.SuggestedPriorityLevelConfigurations...)
	if err := ensurer.RemoveUnwantedObjects(ctx, plOps, allPL); err != nil {
		return err
	}
	return b.flowSchemaStatus(ctx, fsRes, plRes)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
