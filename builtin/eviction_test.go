package builtin

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// An eviction follows a budget's unhealthyPodEvictionPolicy and counts
// only Ready Pods as healthy, as kube-apiserver v1.37.1 does: each case
// below was run on ../shared/reference (a running Pod on a node, one
// budget with minAvailable 1 and the status written), and the answers
// are its.
func TestEvictionPolicies(t *testing.T) {
	cs, url := newClient(t, Options{})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	pdbs := cs.PolicyV1().PodDisruptionBudgets("default")
	const (
		evicted = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`
		refused = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget","message":"`
	)
	alwaysAllow, ifHealthy := policyv1.AlwaysAllow, policyv1.IfHealthyBudget
	for _, tc := range []struct {
		name       string
		ready      bool
		policy     *policyv1.UnhealthyPodEvictionPolicyType
		status     policyv1.PodDisruptionBudgetStatus // observedGeneration 1, expectedPods 1
		code       int
		want       string
		disruption bool // the budget records the Pod's disruption
	}{
		{"unready-healthy-budget", false, nil, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 1}, 201, evicted, false},
		{"unready-unhealthy-budget", false, nil, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 0, DesiredHealthy: 1}, 429,
			refused + `The disruption budget unready-unhealthy-budget needs 1 healthy pods and has 0 currently"}]},"code":429}`, false},
		{"unready-always-allow", false, &alwaysAllow, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 0, DesiredHealthy: 1}, 201, evicted, false},
		{"ready-always-allow", true, &alwaysAllow, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 1}, 429,
			refused + `The disruption budget ready-always-allow needs 1 healthy pods and has 1 currently"}]},"code":429}`, false},
		{"unready-if-healthy", false, &ifHealthy, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 0, DesiredHealthy: 1}, 429,
			refused + `The disruption budget unready-if-healthy needs 1 healthy pods and has 0 currently"}]},"code":429}`, false},
		{"ready-allowed", true, nil, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 1, DisruptionsAllowed: 1}, 201, evicted, true},
		{"unready-allowed", false, nil, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 0, DesiredHealthy: 1, DisruptionsAllowed: 1}, 201, evicted, true},
		{"ready-sync-failed", true, nil, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 1,
			Conditions: []metav1.Condition{{Type: "DisruptionAllowed", Status: "False", Reason: "SyncFailed", Message: "boom", LastTransitionTime: metav1.Now()}}}, 429,
			refused + `The disruption budget ready-sync-failed does not allow evicting pods currently because it failed sync: boom"}]},"code":429}`, false},
		{"ready-other-reason", true, nil, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 1,
			Conditions: []metav1.Condition{{Type: "DisruptionAllowed", Status: "False", Reason: "Other", Message: "why", LastTransitionTime: metav1.Now()}}}, 429,
			refused + `The disruption budget ready-other-reason does not allow evicting pods currently (Other): why"}]},"code":429}`, false},
		{"ready-more-healthy", true, nil, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 2, DesiredHealthy: 1}, 429,
			refused + `The disruption budget ready-more-healthy does not allow evicting pods currently"}]},"code":429}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			labels := map[string]string{"app": tc.name}
			p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tc.name, Labels: labels},
				Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ready := corev1.ConditionFalse
			if tc.ready {
				ready = corev1.ConditionTrue
			}
			p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready}}}
			if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			b, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: tc.name},
				Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrTo(intstr.FromInt32(1)),
					Selector: &metav1.LabelSelector{MatchLabels: labels}, UnhealthyPodEvictionPolicy: tc.policy}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b.Status = tc.status
			b.Status.ObservedGeneration, b.Status.ExpectedPods = 1, 1
			if _, err := pdbs.UpdateStatus(ctx, b, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			code, body := do(t, "POST", url+"/api/v1/namespaces/default/pods/"+tc.name+"/eviction",
				`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"`+tc.name+`"}}`)
			if code != tc.code || strings.TrimSpace(body) != tc.want {
				t.Errorf("eviction: %d %s\nwant %d %s", code, body, tc.code, tc.want)
			}

			p, err = pods.Get(ctx, tc.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var target *corev1.PodCondition
			for i, c := range p.Status.Conditions {
				if c.Type == corev1.DisruptionTarget {
					target = &p.Status.Conditions[i]
				}
			}
			switch {
			case tc.code == 201 && (p.DeletionTimestamp == nil || target == nil || target.Status != corev1.ConditionTrue ||
				target.Reason != "EvictionByEvictionAPI" || target.Message != "Eviction API: evicting"):
				t.Errorf("evicted pod: deletion %v, DisruptionTarget %+v", p.DeletionTimestamp, target)
			case tc.code != 201 && (p.DeletionTimestamp != nil || target != nil):
				t.Errorf("pod not evicted: deletion %v, DisruptionTarget %+v", p.DeletionTimestamp, target)
			}

			b, err = pdbs.Get(ctx, tc.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, recorded := b.Status.DisruptedPods[tc.name]
			if recorded != tc.disruption || tc.disruption && b.Status.DisruptionsAllowed != 0 {
				t.Errorf("budget status after the eviction: %+v", b.Status)
			}
			if tc.disruption {
				// The last disruption taken turns DisruptionAllowed false.
				c := b.Status.Conditions
				if len(c) != 1 || c[0].Type != "DisruptionAllowed" || c[0].Status != "False" || c[0].Reason != "InsufficientPods" ||
					c[0].Message != "" || c[0].ObservedGeneration != 1 {
					t.Errorf("budget conditions: %+v", c)
				}
			}
		})
	}
}

// A Pod that two budgets select is not evicted: kube-apiserver answers
// with a 500 Status of no reason (recorded from ../shared/reference). A
// budget with an empty selector selects every Pod of its namespace.
func TestEvictionTwoBudgets(t *testing.T) {
	cs, url := newClient(t, Options{})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, sel := range map[string]*metav1.LabelSelector{"x": {MatchLabels: map[string]string{"app": "x"}}, "all": {}} {
		if _, err := cs.PolicyV1().PodDisruptionBudgets("default").Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrTo(intstr.FromInt32(1)), Selector: sel}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	code, body := do(t, "POST", url+"/api/v1/namespaces/default/pods/p/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}`)
	const want = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.","code":500}`
	if code != 500 || strings.TrimSpace(body) != want {
		t.Errorf("eviction: %d %s\nwant 500 %s", code, body, want)
	}
	if p, err := pods.Get(ctx, "p", metav1.GetOptions{}); err != nil || p.DeletionTimestamp != nil {
		t.Errorf("pod after the eviction: %v %v", err, p.DeletionTimestamp)
	}
	// A dry run deletes nothing and takes no disruption.
	if err := cs.PolicyV1().PodDisruptionBudgets("default").Delete(ctx, "all", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "x", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
	if _, err := cs.PolicyV1().PodDisruptionBudgets("default").UpdateStatus(ctx, b, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, body := do(t, "POST", url+"/api/v1/namespaces/default/pods/p/eviction?dryRun=All",
		`{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}`); code != 201 {
		t.Errorf("dry run: %d %s", code, body)
	}
	p, err = pods.Get(ctx, "p", metav1.GetOptions{})
	if b, berr := cs.PolicyV1().PodDisruptionBudgets("default").Get(ctx, "x", metav1.GetOptions{}); err != nil || berr != nil ||
		p.DeletionTimestamp != nil || len(p.Status.Conditions) != 1 || b.Status.DisruptionsAllowed != 1 || len(b.Status.DisruptedPods) != 0 {
		t.Errorf("after a dry run: %v %v %+v %+v", err, berr, p.Status.Conditions, b.Status)
	}
	if err := pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p"}}); err != nil {
		t.Fatal(err)
	}
	if p, err := pods.Get(ctx, "p", metav1.GetOptions{}); err != nil || p.DeletionTimestamp == nil {
		t.Errorf("evicted pod: %v %v", err, apierrors.ReasonForError(err))
	}
}
