package builtin

import (
	"context"
	"fmt"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apisem/apisem/meta"

	"github.com/apisem/apisem/server"
)

// BenchmarkResources builds the resources of every built-in kind and a
// server of them, as a test that starts a fresh server per case does.
func BenchmarkResources(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		res, err := Resources(Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := server.New(server.Options{Resources: res}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateDeployment measures a write of a built-in kind through
// the server's pipeline: decoding aside, its defaulting, strategy,
// validation and encodings.
func BenchmarkCreateDeployment(b *testing.B) {
	res, err := Resources(Options{Groups: []string{"apps"}})
	if err != nil {
		b.Fatal(err)
	}
	s, err := server.New(server.Options{Resources: res})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	var deploys *server.Resource
	for _, r := range res {
		if r.Kind == "Deployment" {
			deploys = r
		}
	}
	d := newDeployment("web")
	d.ObjectMeta = metav1.ObjectMeta{}
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		o := &Object{ObjectMeta: meta.ObjectMeta{Name: fmt.Sprint("web-", i), Namespace: "default"}, Value: d.DeepCopy()}
		i++
		if _, err := s.Create(ctx, deploys, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadOtherVersion measures Resource.Read of a kind whose
// storage another version shares: an autoscaling/v2 HorizontalPodAutoscaler
// read through v1 is converted through the internal type each time its
// encodings are first made; one written through v1 is returned as it is.
func BenchmarkReadOtherVersion(b *testing.B) {
	var v1 *kind
	for _, k := range all {
		if k.Group == "autoscaling" && k.Version == "v1" {
			v1 = k
		}
	}
	read := v1.read()
	v2 := &Object{ObjectMeta: meta.ObjectMeta{Name: "h", Namespace: "ns", ResourceVersion: "7"},
		Value: &autoscalingv2.HorizontalPodAutoscaler{Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "d"}, MaxReplicas: 3}}}
	same := &Object{ObjectMeta: v2.ObjectMeta, Value: &autoscalingv1.HorizontalPodAutoscaler{}}
	b.Run("other", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if o, err := read(v2); err != nil || o.Meta().ResourceVersion != "7" {
				b.Fatal(o, err)
			}
		}
	})
	b.Run("same", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if o, _ := read(same); o != same {
				b.Fatal("copied")
			}
		}
	})
}

// BenchmarkToStorage measures Resource.ToStorage of autoscaling/v1, whose
// writes are converted to autoscaling/v2 before they are stored.
func BenchmarkToStorage(b *testing.B) {
	var v1 *kind
	for _, k := range all {
		if k.Group == "autoscaling" && k.Version == "v1" {
			v1 = k
		}
	}
	s, err := v1.storageKind()
	if err != nil {
		b.Fatal(err)
	}
	to := v1.toStorage(s)
	pct := int32(60)
	obj := &Object{ObjectMeta: meta.ObjectMeta{Name: "h", Namespace: "ns", Annotations: map[string]string{"a": "b"}},
		Value: &autoscalingv1.HorizontalPodAutoscaler{Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "d"}, MaxReplicas: 3,
			TargetCPUUtilizationPercentage: &pct}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := to(context.Background(), obj); err != nil {
			b.Fatal(err)
		}
	}
}
