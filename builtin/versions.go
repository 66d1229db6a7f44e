package builtin

import (
	"reflect"

	"github.com/apisem/apisem/server"
)

// read returns the Resource.Read of a kind whose storage holds objects of
// another version too (autoscaling/v1 and v2 HorizontalPodAutoscalers,
// core/v1 and events.k8s.io/v1 Events): an object written through the
// other version is converted to this one through the internal type with
// Kubernetes' own conversion functions, as kube-apiserver decodes a
// stored object for the version a request names. Its metadata is the
// stored one (resourceVersion included), but for the annotations a
// conversion writes (autoscaling/v1 keeps v2's metrics in
// autoscaling.alpha.kubernetes.io/* annotations).
func (k *kind) read() func(server.Object) (server.Object, error) {
	own := reflect.TypeOf(k.newValue())
	return func(o server.Object) (server.Object, error) {
		obj := o.(*Object)
		if obj.Value == nil || reflect.TypeOf(obj.Value) == own {
			return o, nil // written through this version: the cheap case
		}
		return k.convert(obj)
	}
}

// convert returns obj, an object of another version of the kind, in the
// kind's version.
func (k *kind) convert(obj *Object) (server.Object, error) {
	in, err := k.internal(obj)
	if err != nil {
		return nil, err // a stored object that does not convert fails its read
	}
	out := &Object{TypeMeta: obj.TypeMeta}
	if err := k.setInternal(out, in); err != nil {
		return nil, err
	}
	return out, nil
}
