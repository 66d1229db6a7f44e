package suite

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// client-go's event recorder creates events, and patches their count when
// they repeat (a strategic merge patch); kubectl describe finds them with
// the involvedObject field selectors.
func (e env) eventRecorderAndSearch(t *testing.T) {
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, true)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	cm, err := cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Kind, cm.APIVersion = "ConfigMap", "v1"

	b := record.NewBroadcaster()
	defer b.Shutdown()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	rec := b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "interop-test"})
	rec.Event(cm, corev1.EventTypeNormal, "Seen", "first sighting")
	rec.Event(cm, corev1.EventTypeNormal, "Seen", "first sighting")

	Eventually(t, "the repeated event to be counted", func() bool {
		l, err := cs.CoreV1().Events("ns1").Search(scheme.Scheme, cm)
		return err == nil && len(l.Items) == 1 && l.Items[0].Count == 2 && l.Items[0].Reason == "Seen" &&
			l.Items[0].InvolvedObject.UID == cm.UID && l.Items[0].Source.Component == "interop-test"
	})
	if got := ts.served("PATCH /api/v1/namespaces/ns1/events/"); len(got) == 0 {
		t.Errorf("the repeat was not sent as a patch: %q", ts.served("events"))
	}
	other, err := cs.CoreV1().Events("ns1").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=nope"})
	if err != nil || len(other.Items) != 0 {
		t.Errorf("events of another object: %+v, %v", other, err)
	}
}
