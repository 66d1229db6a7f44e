package interop

import (
	"context"
	"testing"

	"github.com/apisem/apisem/examples/apiserver/server"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDebug(t *testing.T) {
	ts := start(t, server.Options{})
	cs := ts.clientset(t, false)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	immutable := false
	cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm1"}, Immutable: &immutable, BinaryData: map[string][]byte{"b": {1}}}, metav1.CreateOptions{})
	res := cs.CoreV1().RESTClient().Delete().Namespace("ns1").Resource("configmaps").Name("cm1").Body(&metav1.DeleteOptions{}).Do(ctx)
	raw, err := res.Raw()
	t.Logf("%s %v", raw, err)
}
