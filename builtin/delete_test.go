package builtin

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
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

// A graceful deletion that ends at once writes the mark first, as
// kube-apiserver's (recorded on v1.37.1): a watcher of a Pod on no node
// sees MODIFIED with deletionTimestamp and deletionGracePeriodSeconds 0,
// generation one more, then DELETED; so does a bound Pod deleted with
// ?gracePeriodSeconds=0, which the query gives when there is no body
// (with one, the body's options are the deletion's).
func TestPodImmediateDeletionEvents(t *testing.T) {
	cs, url := newClient(t, Options{Groups: []string{""}})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	for _, tc := range []struct{ name, node, query string }{
		{"pending", "", ""},
		{"bound", "node-1", "?gracePeriodSeconds=0"},
	} {
		p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tc.name},
			Spec: corev1.PodSpec{NodeName: tc.node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: p.ResourceVersion, FieldSelector: "metadata.name=" + tc.name})
		if err != nil {
			t.Fatal(err)
		}
		code, body := do(t, "DELETE", url+"/api/v1/namespaces/default/pods/"+tc.name+tc.query, "")
		if code != 200 || !strings.Contains(body, `"deletionGracePeriodSeconds":0`) {
			t.Errorf("%s: DELETE answered %d %s", tc.name, code, body)
			w.Stop()
			continue // not deleted: no DELETED event will come
		}
		var got []string
		for ev := range w.ResultChan() {
			m := ev.Object.(*corev1.Pod)
			got = append(got, fmt.Sprintf("%s gen=%d grace=%v marked=%v", ev.Type, m.Generation,
				ptr.Deref(m.DeletionGracePeriodSeconds, -1), m.DeletionTimestamp != nil))
			if ev.Type == watch.Deleted {
				break
			}
		}
		w.Stop()
		want := []string{"MODIFIED gen=2 grace=0 marked=true", "DELETED gen=2 grace=0 marked=true"}
		if !slices.Equal(got, want) {
			t.Errorf("%s: events %q, want %q", tc.name, got, want)
		}
	}

	// The query's period, without a body; a body's replaces it.
	for _, tc := range []struct{ name, query, body string }{
		{"q7", "?gracePeriodSeconds=7", ""},
		{"b20", "?gracePeriodSeconds=7", `{"gracePeriodSeconds":20}`},
		{"b30", "?gracePeriodSeconds=7", `{"propagationPolicy":"Background"}`},
	} {
		if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tc.name},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		code, body := do(t, "DELETE", url+"/api/v1/namespaces/default/pods/"+tc.name+tc.query, tc.body)
		want := `"deletionGracePeriodSeconds":` + strings.TrimLeft(tc.name, "qb")
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: DELETE answered %d %s, want %s", tc.name, code, body, want)
		}
	}
	code, body := do(t, "DELETE", url+"/api/v1/namespaces/default/pods/q7?gracePeriodSeconds=x", "")
	if code != 400 || !strings.Contains(body, `"message":"strconv.ParseInt: parsing \"x\": invalid syntax"`) {
		t.Errorf("bad gracePeriodSeconds: %d %s", code, body)
	}
}

// do sends a request with a JSON body (none when body is "") and returns
// the status code and the body of the answer.
func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
