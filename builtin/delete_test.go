package builtin

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// A Pod's deletion is graceful as in kube-apiserver: one bound to a node
// stays, marked for spec.terminationGracePeriodSeconds (30 by default),
// until a deletion with a shorter period (its kubelet's 0); one on no node
// is deleted at once.
func TestPodGracefulDeletion(t *testing.T) {
	cs, _ := newClient(t, Options{Groups: []string{""}})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	create := func(name, node string) *corev1.Pod {
		t.Helper()
		p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := func(name string) bool {
		_, err := pods.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	}

	// On no node: deleted at once, whatever the period.
	create("pending", "")
	if err := pods.Delete(ctx, "pending", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](60)}); err != nil || !gone("pending") {
		t.Errorf("delete of a pod on no node: %v, gone %v", err, gone("pending"))
	}

	// On a node: marked for 30 seconds.
	p := create("bound", "node-1")
	before := time.Now().Truncate(time.Second)
	if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	marked, err := pods.Get(ctx, "bound", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("a bound pod is gone at once: %v", err)
	}
	if g := marked.DeletionGracePeriodSeconds; g == nil || *g != 30 || marked.DeletionTimestamp == nil ||
		marked.DeletionTimestamp.Time.Before(before.Add(30*time.Second)) || marked.DeletionTimestamp.Time.After(time.Now().Add(31*time.Second)) ||
		marked.Generation != p.Generation+1 {
		t.Errorf("marked pod: deletionTimestamp %v, deletionGracePeriodSeconds %v, generation %d (was %d); want now+30s, 30, +1",
			marked.DeletionTimestamp, marked.DeletionGracePeriodSeconds, marked.Generation, p.Generation)
	}
	// Another deletion without a shorter period changes nothing.
	if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](45)}); err != nil {
		t.Fatal(err)
	}
	if again, err := pods.Get(ctx, "bound", metav1.GetOptions{}); err != nil || again.ResourceVersion != marked.ResourceVersion {
		t.Errorf("a longer period changed the pod: %v %v", err, again)
	}
	// A shorter one moves the mark; 0 deletes it.
	if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](10)}); err != nil {
		t.Fatal(err)
	}
	short, err := pods.Get(ctx, "bound", metav1.GetOptions{})
	if err != nil || *short.DeletionGracePeriodSeconds != 10 || !short.DeletionTimestamp.Time.Equal(marked.DeletionTimestamp.Add(-20*time.Second)) {
		t.Errorf("after a 10 s deletion: %v %v %v", err, short.DeletionTimestamp, short.DeletionGracePeriodSeconds)
	}
	if err := pods.Delete(ctx, "bound", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil || !gone("bound") {
		t.Errorf("delete with period 0: %v, gone %v", err, gone("bound"))
	}

	// A finished pod on a node goes at once.
	f := create("finished", "node-1")
	f.Status.Phase = corev1.PodSucceeded
	if _, err := pods.UpdateStatus(ctx, f, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.Delete(ctx, "finished", metav1.DeleteOptions{}); err != nil || !gone("finished") {
		t.Errorf("delete of a finished pod: %v, gone %v", err, gone("finished"))
	}
}
