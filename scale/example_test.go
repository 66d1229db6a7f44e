package scale_test

import (
	"encoding/json"
	"fmt"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/scale"
)

// A Scale in its two forms: the JSON a scale subresource answers, and
// protobuf, decoded back.
func ExampleScale() {
	s := &scale.Scale{
		TypeMeta:   meta.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: meta.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       scale.Spec{Replicas: 3},
		Status:     scale.Status{Replicas: 2, Selector: "app=web"},
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	back, err := scale.DecodeProto(s.AppendProto(nil))
	if err != nil {
		panic(err)
	}
	fmt.Println(back.Name, back.Spec.Replicas, back.Status.Replicas, back.Status.Selector)
	// Output:
	// {"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":3},"status":{"replicas":2,"selector":"app=web"}}
	// web 3 2 app=web
}
