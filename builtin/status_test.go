package builtin

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// warnings collects the Warning headers a client gets.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeader(code int, agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}

// A write of the status subresource runs the status strategy even when
// it changes nothing, as kube-apiserver's status registry does: the
// Pod status strategy's warnings for a non-canonical IP come with every
// status write, the main strategy's (none on update) with the others.
func TestStatusWriteUsesStatusStrategy(t *testing.T) {
	res, err := Resources(Options{Groups: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: res})
	var ws warnings
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: url, WarningHandler: &ws})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ws.take()
	const ip = "2001:db8:0::5" // valid, not in canonical form
	p.Status.PodIP = ip
	p.Status.PodIPs = []corev1.PodIP{{IP: ip}}
	hasIPWarning := func(l []string) bool {
		return slices.ContainsFunc(l, func(s string) bool { return strings.Contains(s, "status.podIPs[0].ip") })
	}
	for i, step := range []struct {
		name  string
		write func() (*corev1.Pod, error)
		warn  bool
	}{
		{"status write that sets the IP", func() (*corev1.Pod, error) { return pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}) }, true},
		{"status write that changes nothing", func() (*corev1.Pod, error) { return pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}) }, true},
		{"write of the object that changes nothing", func() (*corev1.Pod, error) { return pods.Update(ctx, p, metav1.UpdateOptions{}) }, false},
	} {
		got, err := step.write()
		if err != nil {
			t.Fatalf("%d %s: %v", i, step.name, err)
		}
		p = got
		if l := ws.take(); hasIPWarning(l) != step.warn {
			t.Errorf("%d %s: warnings %q, want the status strategy's IP warning: %v", i, step.name, l, step.warn)
		}
	}
}
