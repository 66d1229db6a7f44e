package builtin

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// pluginsClient is a client of a server of every built-in kind with
// Plugins bound.
func pluginsClient(t *testing.T) *kubernetes.Clientset {
	t.Helper()
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &Plugins{}
	opts := server.Options{Resources: res}
	opts.Admission = p.Admission(opts.Admission)
	s, url := servertest.New(t, opts)
	p.Bind(s)
	return kubernetes.NewForConfigOrDie(&rest.Config{Host: url})
}

// A Pod is given what kube-apiserver's default plugins give it (as
// kube-apiserver 1.37.1 answered kubectl create of these Pods): the
// default service account, the priority of its class (or 0), the
// NoExecute tolerations it lacks; a class that does not exist, or a
// priority of the Pod's own, is a 403 with the plugin's message.
func TestPluginsPods(t *testing.T) {
	cs := pluginsClient(t)
	ctx := context.Background()
	if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: 7, PreemptionPolicy: ptr.To(corev1.PreemptNever)}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	notReady := corev1.Toleration{Key: taintNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	unreachable := corev1.Toleration{Key: taintUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	own := corev1.Toleration{Key: taintNotReady, Operator: corev1.TolerationOpExists}
	for _, c := range []struct {
		name        string
		spec        corev1.PodSpec
		sa, class   string
		priority    int32
		policy      corev1.PreemptionPolicy
		tolerations []corev1.Toleration
		err         string
	}{
		{name: "plain", sa: "default", policy: corev1.PreemptLowerPriority, tolerations: []corev1.Toleration{notReady, unreachable}},
		{name: "system", spec: corev1.PodSpec{PriorityClassName: "system-node-critical", ServiceAccountName: "bot",
			Tolerations: []corev1.Toleration{own}},
			sa: "bot", class: "system-node-critical", priority: 2000001000, policy: corev1.PreemptLowerPriority,
			tolerations: []corev1.Toleration{own, unreachable}},
		{name: "low", spec: corev1.PodSpec{PriorityClassName: "low", Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
			sa: "default", class: "low", priority: 7, policy: corev1.PreemptNever,
			tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
		{name: "nope", spec: corev1.PodSpec{PriorityClassName: "nope"},
			err: `pods "nope" is forbidden: no PriorityClass with name nope was found`},
		{name: "own", spec: corev1.PodSpec{Priority: ptr.To[int32](5)},
			err: `pods "own" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: c.name}, Spec: c.spec}
			pod.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
			got, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("error %v, want %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := got.Spec
			if s.ServiceAccountName != c.sa || s.DeprecatedServiceAccount != c.sa || s.PriorityClassName != c.class ||
				s.Priority == nil || *s.Priority != c.priority || s.PreemptionPolicy == nil || *s.PreemptionPolicy != c.policy {
				t.Errorf("serviceAccountName %q, serviceAccount %q, class %q, priority %v, preemptionPolicy %v; want %q, %q, %d, %s",
					s.ServiceAccountName, s.DeprecatedServiceAccount, s.PriorityClassName, s.Priority, s.PreemptionPolicy, c.sa, c.class, c.priority, c.policy)
			}
			if d := cmp.Diff(c.tolerations, s.Tolerations); d != "" {
				t.Errorf("tolerations (-want +got):\n%s", d)
			}
		})
	}
}

// A new Node is tainted not-ready, as kube-apiserver 1.37.1 answered; a
// PersistentVolumeClaim gets no protection finalizer, which no
// controller here would remove (its phase is Pending, as there).
func TestPluginsNodesAndVolumes(t *testing.T) {
	cs := pluginsClient(t)
	ctx := context.Background()
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []corev1.Taint{{Key: taintNotReady, Effect: corev1.TaintEffectNoSchedule}}; !cmp.Equal(node.Spec.Taints, want) {
		t.Errorf("node taints %v, want %v", node.Spec.Taints, want)
	}
	storage := corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	pvc, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: storage}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pvc.Finalizers) != 0 || pvc.Status.Phase != corev1.ClaimPending {
		t.Errorf("PersistentVolumeClaim finalizers %v, phase %q; want none, Pending", pvc.Finalizers, pvc.Status.Phase)
	}
}
