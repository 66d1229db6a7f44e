package suite

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// An object with a finalizer is only marked by DELETE (deletionTimestamp,
// 200 with the object); removing the last finalizer removes it, and a
// watcher sees MODIFIED then DELETED. Preconditions are checked.
func (e env) finalizerDeletion(t *testing.T) {
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, true)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	cms := cs.CoreV1().ConfigMaps("ns1")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held",
		Finalizers: []string{"example.com/hold", "example.com/second"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	wrongUID := types.UID("not-the-uid")
	if err := cms.Delete(ctx, "held", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with a wrong uid precondition: err %v; want Conflict", err)
	}
	if err := cms.Delete(ctx, "held", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID}}); err != nil {
		t.Fatal(err)
	}
	marked, err := cms.Get(ctx, "held", metav1.GetOptions{})
	if err != nil || marked.DeletionTimestamp == nil || marked.DeletionGracePeriodSeconds == nil || *marked.DeletionGracePeriodSeconds != 0 {
		t.Fatalf("after delete: %+v, %v; want it marked for deletion", marked, err)
	}
	// New finalizers cannot be added to an object being deleted.
	marked.Finalizers = append(marked.Finalizers, "example.com/late")
	if _, err := cms.Update(ctx, marked, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("adding a finalizer during deletion: err %v; want Invalid", err)
	}

	// JSON patch removes one finalizer, a strategic merge patch (as
	// kubectl sends) the other.
	if _, err := cms.Patch(ctx, "held", types.JSONPatchType, []byte(`[{"op":"remove","path":"/metadata/finalizers/0"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "held", metav1.GetOptions{}); err != nil {
		t.Fatalf("gone with a finalizer left: %v", err)
	}
	if _, err := cms.Patch(ctx, "held", types.StrategicMergePatchType,
		[]byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/second"]}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "held", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after the last finalizer: err %v; want NotFound", err)
	}

	var types []watch.EventType
	timeout := time.After(10 * time.Second)
	for len(types) < 3 {
		select {
		case e := <-w.ResultChan():
			types = append(types, e.Type)
		case <-timeout:
			t.Fatalf("events %v; want 3", types)
		}
	}
	want := []watch.EventType{watch.Modified, watch.Modified, watch.Deleted}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("events %v; want %v", types, want)
		}
	}
}

// Deleting a namespace deletes what is in it, waits for finalizers, and
// then the namespace itself, which meanwhile refuses new content.
func (e env) namespaceDeletion(t *testing.T) {
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, false)
	ctx := context.Background()
	namespace(t, cs, "doomed")
	namespace(t, cs, "kept")
	cms := cs.CoreV1().ConfigMaps("doomed")
	for _, name := range []string{"a", "b"} {
		cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	}
	cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}, metav1.CreateOptions{})
	cs.CoreV1().Secrets("doomed").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, metav1.CreateOptions{})
	cs.CoreV1().ConfigMaps("kept").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})

	if err := cs.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
	if err != nil || ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace after delete: %+v, %v; want it Terminating", ns, err)
	}
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("create in a terminating namespace: err %v; want Forbidden", err)
	}

	Eventually(t, "the contents without finalizers to go", func() bool {
		l, err := cms.List(ctx, metav1.ListOptions{})
		s, err2 := cs.CoreV1().Secrets("doomed").List(ctx, metav1.ListOptions{})
		return err == nil && err2 == nil && len(l.Items) == 1 && l.Items[0].Name == "held" && len(s.Items) == 0
	})
	held, _ := cms.Get(ctx, "held", metav1.GetOptions{})
	if held.DeletionTimestamp == nil {
		t.Fatalf("the held configmap is not marked: %+v", held)
	}
	Eventually(t, "the namespace to report what remains", func() bool {
		ns, err := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		for _, c := range ns.Status.Conditions {
			if err == nil && c.Type == corev1.NamespaceFinalizersRemaining && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	})

	held.Finalizers = nil
	if _, err := cms.Update(ctx, held, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	Eventually(t, "the namespace to go", func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if _, err := cs.CoreV1().ConfigMaps("kept").Get(ctx, "a", metav1.GetOptions{}); err != nil {
		t.Errorf("another namespace's object: %v", err)
	}
}
