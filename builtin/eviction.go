package builtin

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	pdbhelper "k8s.io/component-helpers/apps/poddisruptionbudget"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// The rules of kube-apiserver's EvictionREST (pkg/registry/core/pod/storage),
// which the eviction subresource follows:
//
//   - a Pod that is pending, finished or being deleted goes without a
//     look at budgets;
//   - else the one PodDisruptionBudget whose selector matches it decides
//     (more than one is a 500; an empty selector matches every Pod, a
//     missing one none). A Pod that is not Ready does not count among
//     the healthy: it goes without taking a disruption if the budget's
//     spec.unhealthyPodEvictionPolicy is AlwaysAllow, or, under the
//     default IfHealthyBudget, if the budget has the healthy Pods it
//     needs (status.currentHealthy >= desiredHealthy > 0); a Ready Pod,
//     or an unhealthy one the budget keeps, takes one of the budget's
//     status.disruptionsAllowed, recorded in status.disruptedPods, or is
//     refused (429, with the cause the budget's state gives);
//   - the Pod is marked with the DisruptionTarget condition, then
//     deleted as a DELETE deletes it (gracefully), on the condition that
//     it is still the Pod that was judged (its resourceVersion), unless
//     the client set a resourceVersion precondition of its own.
//
// The budget's status is written as kube-apiserver's loopback client
// writes it (takeDisruption).

// evictionAttempts bounds the tries of an eviction whose Pod changes
// between its reading and its deletion (kube-apiserver retries too).
const evictionAttempts = 5

// maxDisruptedPods is kube-apiserver's bound on a budget's
// status.disruptedPods, beyond which evictions are refused until the
// disruption controller catches up.
const maxDisruptedPods = 2000

// evict answers pods/<name>/eviction. The Eviction is put to admission
// as kube-apiserver's create handler and EvictionREST put it: the
// mutating phase first, the validating phase once the eviction's own
// checks have passed, with the attributes of a create of pods/eviction
// (the Eviction of policy/v1, whatever version was posted).
func evict(pods *server.Resource) func(http.ResponseWriter, *http.Request, server.SubresourceRequest) error {
	return func(w http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
		ctx := r.Context()
		queryDryRun := r.URL.Query()["dryRun"]
		dryRun, err := negotiation.ParseDryRun(queryDryRun, negotiation.CreateOptions)
		if err != nil {
			return err
		}
		ev := &policyv1.Eviction{}
		if err := decodeBody(r, ev); err != nil {
			return err
		}
		a, obj, err := admitSubresource(ctx, req, pods, "eviction", dryRun, ev)
		if err != nil {
			return err
		}
		ev = obj.Value.(*policyv1.Eviction) // as admission left it, its metadata in obj
		if obj.Name != req.Name {
			return status.NewBadRequest("name in URL does not match name in Eviction object")
		}
		opts := store.DeleteOptions{DryRun: dryRun}
		if d := ev.DeleteOptions; d != nil {
			if d.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *d.IgnoreStoreReadErrorWithClusterBreakingPotential {
				return status.NewInvalid(status.GroupKind{Group: "policy", Kind: "Eviction"}, req.Name,
					status.InvalidValue("deleteOptions.ignoreStoreReadErrorWithClusterBreakingPotential", true,
						"can not be set for pod eviction, try after removing the option"))
			}
			opts.GracePeriodSeconds = d.GracePeriodSeconds
			if d.Preconditions != nil {
				opts.Preconditions = store.Preconditions{UID: (*string)(d.Preconditions.UID), ResourceVersion: d.Preconditions.ResourceVersion}
			}
			if len(d.DryRun) > 0 {
				if opts.DryRun, err = negotiation.ParseDryRun(d.DryRun, negotiation.DeleteOptions); err != nil {
					return err
				}
			} else {
				// The options the eviction deletes with take the
				// request's dryRun, which validating admission sees.
				d.DryRun = queryDryRun
			}
		}
		if err := req.Server.AdmitValidating(ctx, a, obj, nil); err != nil {
			return err
		}
		e := eviction{pods: pods, req: req, opts: opts, clientVersion: opts.Preconditions.ResourceVersion != nil}
		if err := e.run(ctx); err != nil {
			return err
		}
		return writeSuccess(w)
	}
}

// admitSubresource puts v, the object of a create of pods' subresource
// sub (an Eviction, a Binding), to the mutating phase of admission, as
// kube-apiserver's create handler: with the request's namespace, which
// v's must be, and the URL's name. It returns the attributes of the
// create and the object as admission left it, for the validating phase.
func admitSubresource(ctx context.Context, req server.SubresourceRequest, pods *server.Resource, sub string, dryRun bool, v runtime.Object) (server.Attributes, *Object, error) {
	m := objectMetaOf(v)
	switch {
	case m.Namespace == "":
		m.Namespace = req.Namespace
	case m.Namespace != req.Namespace:
		return server.Attributes{}, nil, status.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	a := createAttributes(ctx, pods, sub, req.Namespace, req.Name, dryRun)
	obj := &Object{}
	if err := setVersioned(obj, v); err != nil {
		return a, nil, err
	}
	if err := req.Server.AdmitMutating(ctx, a, obj, nil); err != nil {
		return a, nil, err
	}
	return a, obj, nil
}

// createAttributes are the admission attributes of a create that the
// request of ctx makes of res's subresource sub (or of res, for ""), of
// the object of that namespace and name.
func createAttributes(ctx context.Context, res *server.Resource, sub, namespace, name string, dryRun bool) server.Attributes {
	a := server.Attributes{Operation: server.OperationCreate, Verb: "create", Resource: res, Subresource: sub,
		Namespace: namespace, Name: name, DryRun: dryRun}
	a.User, _ = auth.UserFrom(ctx)
	return a
}

// eviction is one eviction of the Pod req names.
type eviction struct {
	pods *server.Resource
	req  server.SubresourceRequest
	opts store.DeleteOptions
	// clientVersion: the client's options carry a resourceVersion
	// precondition, which is then the only one.
	clientVersion bool
}

func (e *eviction) run(ctx context.Context) error {
	var p *Object
	for attempt := 1; ; attempt++ {
		cur, err := e.req.Store.Get(ctx, e.req.Namespace, e.req.Name, rv.Read{Semantics: rv.MostRecent})
		if err != nil {
			return err
		}
		p = cur.(*Object)
		pod := p.Value.(*corev1.Pod)
		ph := pod.Status.Phase
		if ph != corev1.PodPending && ph != corev1.PodSucceeded && ph != corev1.PodFailed && p.DeletionTimestamp == nil {
			break // its budget decides
		}
		// A pending Pod is pinned to the version read: it may have
		// started meanwhile. A finished or deleted one may go anyway.
		err = e.delete(ctx, p, ph == corev1.PodPending)
		if status.IsConflict(err) && !e.clientVersion && attempt < evictionAttempts {
			continue
		}
		return err
	}

	budget, err := e.budget(ctx, p)
	if err != nil || budget == nil {
		if err == nil {
			err = e.delete(ctx, p, false)
		}
		return err
	}
	b := budget.Value.(*policyv1.PodDisruptionBudget)
	unhealthy := !podutil.IsPodReady(p.Value.(*corev1.Pod))
	if unhealthy && (b.Spec.UnhealthyPodEvictionPolicy != nil && *b.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow ||
		b.Status.CurrentHealthy >= b.Status.DesiredHealthy && b.Status.DesiredHealthy > 0) {
		// An unready Pod is no healthy one the budget counts: it goes
		// without a disruption, if it is still unready when deleted.
		err := e.delete(ctx, p, true)
		if status.IsConflict(err) && !e.clientVersion {
			return budgetProcessing(budget.Name) // the Pod changed: try again
		}
		return err
	}
	if err := e.takeDisruption(ctx, budget, p.Name); err != nil {
		return err
	}
	return e.delete(ctx, p, false)
}

// budget returns the PodDisruptionBudget that guards p, nil for none.
func (e *eviction) budget(ctx context.Context, p *Object) (*Object, error) {
	st := e.budgets()
	if st == nil {
		return nil, nil // no budgets served
	}
	page, err := st.List(ctx, e.req.Namespace, store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil {
		return nil, err
	}
	var budget *Object
	for _, o := range page.Views() {
		b := o.(*Object)
		// policy/v1: an empty selector matches every Pod, a missing one
		// (labels.Nothing) none.
		sel, err := metav1.LabelSelectorAsSelector(b.Value.(*policyv1.PodDisruptionBudget).Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		if budget != nil {
			// kube-apiserver answers with this Status, code 500 and no
			// reason.
			return nil, status.New(http.StatusInternalServerError, status.ReasonUnknown,
				"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", nil)
		}
		budget = b
	}
	return budget, nil
}

// budgets returns the store of PodDisruptionBudgets, nil if they are not
// served.
func (e *eviction) budgets() store.Backend[server.Object] {
	if r := e.budgetResource(); r != nil {
		return e.req.Server.StoreOf(r)
	}
	return nil
}

// budgetResource returns the resource of PodDisruptionBudgets, nil if
// they are not served.
func (e *eviction) budgetResource() *server.Resource {
	for _, r := range e.req.Server.Resources() {
		if r.Group == "policy" && r.Plural == "poddisruptionbudgets" {
			return r
		}
	}
	return nil
}

// loopbackUser is the user of kube-apiserver's loopback client, with
// which its eviction writes a budget's status (its uid is made at each
// start).
var loopbackUser = auth.User{Name: "system:apiserver", Groups: []string{"system:authenticated", "system:masters"}}

// takeDisruption takes one of the budget's allowed disruptions for the
// Pod pod, or refuses the eviction as the budget's state says. It writes
// the budget's status as kube-apiserver's eviction does, through its
// loopback client: an update of poddisruptionbudgets/status by
// system:apiserver, field manager kube-apiserver, put to admission. A dry
// run checks and writes nothing.
func (e *eviction) takeDisruption(ctx context.Context, budget *Object, pod string) error {
	if e.opts.DryRun {
		return refusal(budget.Name, budget.Generation, budget.Value.(*policyv1.PodDisruptionBudget))
	}
	ctx = auth.WithUser(ctx, loopbackUser)
	_, err := e.req.Server.Update(ctx, e.budgetResource(), "status", e.req.Namespace, budget.Name, "kube-apiserver", false,
		func(cur server.Object) (server.Object, error) {
			o := cur.DeepCopyObject().(*Object)
			b := o.Value.(*policyv1.PodDisruptionBudget)
			if err := refusal(o.Name, o.Generation, b); err != nil {
				return nil, err
			}
			b.Status.DisruptionsAllowed--
			if b.Status.DisruptionsAllowed == 0 {
				pdbhelper.UpdateDisruptionAllowedCondition(b)
			}
			if b.Status.DisruptedPods == nil {
				b.Status.DisruptedPods = map[string]metav1.Time{}
			}
			// The disruption controller counts the Pod as gone from here.
			b.Status.DisruptedPods[pod] = metav1.Now()
			return o, nil
		})
	return err
}

// refusal is the error with which a budget of that name and generation
// refuses an eviction, nil if it allows one.
func refusal(name string, generation int64, b *policyv1.PodDisruptionBudget) error {
	forbidden := func(err, cause string) error {
		e := status.NewForbidden(status.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}, name, errors.New(err))
		e.Status.Details.Causes = append(e.Status.Details.Causes, status.Cause{Type: status.CauseType(policyv1.DisruptionBudgetCause),
			Message: fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: %s", name, cause)})
		return e
	}
	st := b.Status
	switch {
	case st.ObservedGeneration < generation:
		return budgetProcessing(name)
	case st.DisruptionsAllowed < 0:
		return forbidden("pdb disruptions allowed is negative", "pdb disruptions allowed is negative")
	case len(st.DisruptedPods) > maxDisruptedPods:
		return forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller",
			"too many pending evictions not confirmed by PDB controller")
	case st.DisruptionsAllowed > 0:
		return nil
	}
	// None allowed: the cause says why, as far as the status tells. A
	// failed sync makes the healthy counts untrustworthy, so it comes
	// first.
	c := apimeta.FindStatusCondition(st.Conditions, policyv1.DisruptionAllowedCondition)
	falseWithMessage := c != nil && c.Status == metav1.ConditionFalse && c.Message != ""
	var msg string
	switch {
	case falseWithMessage && c.Reason == policyv1.SyncFailedReason:
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", name, c.Message)
	case st.CurrentHealthy <= st.DesiredHealthy:
		msg = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", name, st.DesiredHealthy, st.CurrentHealthy)
	case falseWithMessage:
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", name, c.Reason, c.Message)
	default:
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", name)
	}
	return tooManyRequests(msg, 0)
}

// budgetProcessing is the 429 of a budget the disruption controller has
// not caught up with, and of an eviction whose Pod changed while it was
// judged: the client tries again after 10 seconds.
func budgetProcessing(name string) error {
	return tooManyRequests(fmt.Sprintf("The disruption budget %s is still being processed by the server.", name), 10)
}

func tooManyRequests(cause string, retryAfter int32) error {
	return status.New(http.StatusTooManyRequests, status.ReasonTooManyRequests, "Cannot evict pod as it would violate the pod's disruption budget.",
		&status.Details{Causes: []status.Cause{{Type: status.CauseType(policyv1.DisruptionBudgetCause), Message: cause}}, RetryAfterSeconds: retryAfter})
}

// delete marks p with the DisruptionTarget condition and deletes it;
// pin makes the deletion conditional on p's resourceVersion (when the
// client set none). A dry run marks nothing.
func (e *eviction) delete(ctx context.Context, p *Object, pin bool) error {
	opts := e.opts
	if pin && !e.clientVersion {
		v := p.ResourceVersion
		opts.Preconditions.ResourceVersion = &v
	}
	if !opts.DryRun {
		pre := opts.Preconditions
		marked, err := e.req.Store.GuaranteedUpdate(ctx, e.req.Namespace, e.req.Name, store.UpdateOptions{},
			func(cur server.Object) (server.Object, error) {
				m := cur.Meta()
				// kube-apiserver's texts, of the resource "Pod".
				podResource := status.GroupResource{Resource: "Pod"}
				if pre.UID != nil && *pre.UID != "" && *pre.UID != m.UID {
					return nil, status.NewConflict(podResource, m.Name, fmt.Sprintf(
						"the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, m.UID))
				}
				if pre.ResourceVersion != nil && *pre.ResourceVersion != "" && *pre.ResourceVersion != m.ResourceVersion {
					return nil, status.NewConflict(podResource, m.Name, fmt.Sprintf(
						"the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pre.ResourceVersion, m.ResourceVersion))
				}
				o := cur.DeepCopyObject().(*Object)
				podutil.UpdatePodCondition(&o.Value.(*corev1.Pod).Status, &corev1.PodCondition{Type: corev1.DisruptionTarget,
					Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"})
				return o, nil
			})
		if err != nil {
			return err
		}
		if opts.Preconditions.ResourceVersion != nil {
			// The mark is this eviction's own write.
			v := marked.Meta().ResourceVersion
			opts.Preconditions.ResourceVersion = &v
		}
	}
	var err error
	if e.pods.Delete != nil {
		_, _, err = e.pods.Delete(ctx, e.req.Store, e.req.Namespace, e.req.Name, opts)
	} else {
		_, _, err = e.req.Store.Delete(ctx, e.req.Namespace, e.req.Name, opts)
	}
	return err
}
