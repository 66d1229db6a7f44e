package apisemtest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/apisem/apisem/apisemtest"
)

// A Pod or Node created in the environment gets what envtest's
// kube-apiserver gives it: its default admission plugins run, except
// ServiceAccount, which envtest disables; a Pod keeps no service account.
func TestDefaultAdmissionPlugins(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{Groups: []string{""}})
	cs := kubernetes.NewForConfigOrDie(env.Config)
	ctx := t.Context()
	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.ServiceAccountName != "" || pod.Spec.DeprecatedServiceAccount != "" {
		t.Errorf("service account %q/%q, want none (envtest disables the ServiceAccount plugin)", pod.Spec.ServiceAccountName, pod.Spec.DeprecatedServiceAccount)
	}
	if pod.Spec.Priority == nil || *pod.Spec.Priority != 0 || pod.Spec.PreemptionPolicy == nil || *pod.Spec.PreemptionPolicy != corev1.PreemptLowerPriority {
		t.Errorf("priority %v, policy %v; want 0 and PreemptLowerPriority (Priority plugin)", pod.Spec.Priority, pod.Spec.PreemptionPolicy)
	}
	want := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
	}
	if diff := cmp.Diff(want, pod.Spec.Tolerations); diff != "" {
		t.Errorf("tolerations (DefaultTolerationSeconds plugin), -want +got:\n%s", diff)
	}
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]corev1.Taint{{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoSchedule}}, node.Spec.Taints); diff != "" {
		t.Errorf("a new Node's taints (TaintNodesByCondition plugin), -want +got:\n%s", diff)
	}
}
