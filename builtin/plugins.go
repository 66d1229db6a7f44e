package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingapiv1 "k8s.io/kubernetes/pkg/apis/scheduling/v1"
	"k8s.io/utils/ptr"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// Plugins are the mutating admission plugins kube-apiserver enables by
// default that give objects fields a user sees on every cluster, in
// kube-apiserver's order and ahead of the admission policies:
//
//   - ServiceAccount: a Pod without a service account runs as "default"
//     (serviceAccountName, and serviceAccount, its deprecated twin).
//   - Priority: a Pod gets the priority and preemption policy of its
//     PriorityClass, of the global default one when it names none, or 0
//     and PreemptLowerPriority when there is none; a class that does not
//     exist, or a priority that contradicts the class, is a 403.
//   - DefaultTolerationSeconds: a Pod tolerates node.kubernetes.io/not-ready
//     and unreachable NoExecute taints for 300s unless it says otherwise.
//   - TaintNodesByCondition: a new Node is tainted
//     node.kubernetes.io/not-ready:NoSchedule until its kubelet reports.
//
// What works only with a cluster's controllers is left out, this server
// running none: the service account's token volume (it needs the root
// CA publisher's kube-root-ca.crt), refusing a Pod whose service account
// does not exist (the service account controller creates "default"),
// and StorageObjectInUseProtection's finalizers on PersistentVolumes and
// claims (without the protection controllers that remove them, every
// deletion of one would hang). The zero Plugins works once bound (Bind).
type Plugins struct {
	// NoServiceAccount leaves the ServiceAccount plugin out, as envtest
	// starts kube-apiserver (--disable-admission-plugins=ServiceAccount):
	// a Pod keeps the service account it names, or none.
	NoServiceAccount bool

	srv atomic.Pointer[server.Server]
}

// Bind gives p the server whose PriorityClasses it reads.
func (p *Plugins) Bind(s *server.Server) { p.srv.Store(s) }

// Admission returns next with the plugins run first in its mutating
// phase.
func (p *Plugins) Admission(next server.Admission) server.Admission {
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

// The taints DefaultTolerationSeconds tolerates and TaintNodesByCondition
// puts on a new Node.
const (
	taintNotReady           = "node.kubernetes.io/not-ready"
	taintUnreachable        = "node.kubernetes.io/unreachable"
	defaultTolerationSecond = 300
)

// Mutate applies the plugins to a create (they change nothing on update),
// as a server.Admission.Mutate hook: obj is changed in place.
func (p *Plugins) Mutate(ctx context.Context, a server.Attributes, obj, old server.Object) error {
	if a.Operation != server.OperationCreate || a.Subresource != "" || a.Resource.Group != "" {
		return nil
	}
	o, ok := obj.(*Object)
	if !ok {
		return nil
	}
	switch v := o.Value.(type) {
	case *corev1.Pod:
		if !p.NoServiceAccount {
			if v.Spec.ServiceAccountName == "" {
				v.Spec.ServiceAccountName = v.Spec.DeprecatedServiceAccount
			}
			if v.Spec.ServiceAccountName == "" {
				v.Spec.ServiceAccountName = "default"
			}
			v.Spec.DeprecatedServiceAccount = v.Spec.ServiceAccountName
		}
		if err := p.priority(ctx, a, o, v); err != nil {
			return err
		}
		defaultTolerations(v)
	case *corev1.Node:
		if !slices.ContainsFunc(v.Spec.Taints, func(t corev1.Taint) bool {
			return t.Key == taintNotReady && t.Effect == corev1.TaintEffectNoSchedule
		}) {
			v.Spec.Taints = append(v.Spec.Taints, corev1.Taint{Key: taintNotReady, Effect: corev1.TaintEffectNoSchedule})
		}
	}
	return nil
}

// defaultTolerations adds the NoExecute tolerations of the not-ready and
// unreachable taints a Pod has none of (one of any effect, or of a key
// the toleration's Exists operator matches, counts).
func defaultTolerations(pod *corev1.Pod) {
	tolerates := func(key string) bool {
		return slices.ContainsFunc(pod.Spec.Tolerations, func(t corev1.Toleration) bool {
			return (t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute) &&
				(t.Key == key || t.Key == "" && t.Operator == corev1.TolerationOpExists)
		})
	}
	for _, key := range []string{taintNotReady, taintUnreachable} {
		if !tolerates(key) {
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Key: key,
				Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](defaultTolerationSecond)})
		}
	}
}

// priority sets a Pod's priority as the Priority plugin does.
func (p *Plugins) priority(ctx context.Context, a server.Attributes, o *Object, pod *corev1.Pod) error {
	value, policy := int32(0), corev1.PreemptLowerPriority
	classes, err := p.priorityClasses(ctx)
	if err != nil {
		return err
	}
	if name := pod.Spec.PriorityClassName; name != "" {
		i := slices.IndexFunc(classes, func(c *schedulingv1.PriorityClass) bool { return c.Name == name })
		if i < 0 {
			return forbidden(a, o, fmt.Sprintf("no PriorityClass with name %s was found", name))
		}
		value = classes[i].Value
		if classes[i].PreemptionPolicy != nil {
			policy = *classes[i].PreemptionPolicy
		}
	} else {
		// The global default class with the lowest value, if any.
		var def *schedulingv1.PriorityClass
		for _, c := range classes {
			if c.GlobalDefault && (def == nil || c.Value < def.Value) {
				def = c
			}
		}
		if def != nil {
			pod.Spec.PriorityClassName, value = def.Name, def.Value
			if def.PreemptionPolicy != nil {
				policy = *def.PreemptionPolicy
			}
		}
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != value {
		return forbidden(a, o, fmt.Sprintf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name",
			*pod.Spec.Priority, value))
	}
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return forbidden(a, o, fmt.Sprintf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name",
			*pod.Spec.PreemptionPolicy, policy))
	}
	pod.Spec.Priority, pod.Spec.PreemptionPolicy = ptr.To(value), ptr.To(policy)
	return nil
}

// priorityClasses are the server's PriorityClasses (only the system
// ones before Bind).
func (p *Plugins) priorityClasses(ctx context.Context) ([]*schedulingv1.PriorityClass, error) {
	s := p.srv.Load()
	if s == nil {
		return nil, nil
	}
	for _, r := range s.Resources() {
		if r.Group != schedulingv1.GroupName || r.Plural != "priorityclasses" || r.Version != "v1" {
			continue
		}
		page, err := s.StoreOf(r).List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
		if err != nil {
			return nil, err
		}
		var out []*schedulingv1.PriorityClass
		for _, item := range page.Views() {
			o, ok := item.(*Object)
			if !ok {
				continue
			}
			c, ok := o.Value.(*schedulingv1.PriorityClass)
			if !ok {
				continue
			}
			c = c.DeepCopy()
			c.Name = o.Name
			out = append(out, c)
		}
		return withSystemClasses(out), nil
	}
	return withSystemClasses(nil), nil
}

// withSystemClasses adds to classes the system ones they lack:
// kube-apiserver creates system-node-critical and
// system-cluster-critical at start, and the plugin finds them on any
// cluster.
func withSystemClasses(classes []*schedulingv1.PriorityClass) []*schedulingv1.PriorityClass {
	for _, c := range schedulingapiv1.SystemPriorityClasses() {
		if !slices.ContainsFunc(classes, func(have *schedulingv1.PriorityClass) bool { return have.Name == c.Name }) {
			classes = append(classes, c)
		}
	}
	return classes
}

// forbidden is the 403 of a plugin refusing the create of o.
func forbidden(a server.Attributes, o *Object, reason string) error {
	return status.NewForbidden(status.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Plural}, o.Name, errors.New(reason))
}
