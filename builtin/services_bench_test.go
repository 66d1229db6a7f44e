package builtin

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/store"
)

// BenchmarkCreateService measures the create of a NodePort Service
// through the server's pipeline with its allocations: kept in memory
// (unbound), and kept in the store (bound: an IPAddress object per
// Service, looked up and created, and the store's Services read).
func BenchmarkCreateService(b *testing.B) {
	for _, bound := range []bool{false, true} {
		b.Run(fmt.Sprintf("bound=%v", bound), func(b *testing.B) {
			a := NewServiceAllocator()
			res, err := Resources(Options{Groups: []string{"", "networking.k8s.io"}, Allocator: a})
			if err != nil {
				b.Fatal(err)
			}
			s, err := server.New(server.Options{Resources: res})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(context.Background())
			if bound {
				a.Bind(s)
			}
			svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
				Selector: map[string]string{"app": "x"}, Ports: []corev1.ServicePort{{Port: 80}}}}
			ctx := context.Background()
			b.ReportAllocs()
			cpu := cputime.Process()
			i := 0
			for b.Loop() {
				// Node ports run out at 2,768 Services: delete as they go.
				name := fmt.Sprint("svc-", i%2000)
				if i >= 2000 {
					if _, _, err := a.deleteService(ctx, s.StoreOf(a.services), "default", name, storeDelete); err != nil {
						b.Fatal(err)
					}
				}
				i++
				o := &Object{ObjectMeta: meta.ObjectMeta{Name: name, Namespace: "default"}, Value: svc.DeepCopy()}
				if _, err := s.Create(ctx, a.services, o); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

var storeDelete = store.DeleteOptions{}
