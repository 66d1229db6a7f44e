package builtin

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/apisem/apisem/scale"
	"github.com/apisem/apisem/server"
)

// scale serves the kind's scale subresource as kube-apiserver's
// registry does (pkg/registry/apps/deployment/storage ScaleREST and its
// peers): spec.replicas, status.replicas and the selector of the pods
// in its string form.
func (k *kind) scale() *server.ScaleSubresource {
	return &server.ScaleSubresource{
		SpecReplicasPath: k.ScalePath,
		CheckUID:         true, // ScaleREST's UpdatedObject checks it
		Get: func(o server.Object) (scale.Spec, scale.Status, bool, error) {
			spec, st, sel, err := replicas(o.(*Object).Value)
			if err != nil || spec == nil {
				return scale.Spec{}, scale.Status{}, false, err
			}
			return scale.Spec{Replicas: *spec}, scale.Status{Replicas: st, Selector: sel}, true, nil
		},
		Set: func(o server.Object, n int32) error {
			switch v := o.(*Object).Value.(type) {
			case *appsv1.Deployment:
				v.Spec.Replicas = &n
			case *appsv1.ReplicaSet:
				v.Spec.Replicas = &n
			case *appsv1.StatefulSet:
				v.Spec.Replicas = &n
			case *corev1.ReplicationController:
				v.Spec.Replicas = &n
			default:
				return fmt.Errorf("builtin: no scale for a %T", v)
			}
			return nil
		},
	}
}

// replicas returns the spec replicas of v (nil when unset), its status
// replicas and its pods' selector.
func replicas(v any) (spec *int32, st int32, selector string, err error) {
	var ls *metav1.LabelSelector
	switch v := v.(type) {
	case *appsv1.Deployment:
		spec, st, ls = v.Spec.Replicas, v.Status.Replicas, v.Spec.Selector
	case *appsv1.ReplicaSet:
		spec, st, ls = v.Spec.Replicas, v.Status.Replicas, v.Spec.Selector
	case *appsv1.StatefulSet:
		spec, st, ls = v.Spec.Replicas, v.Status.Replicas, v.Spec.Selector
	case *corev1.ReplicationController:
		return v.Spec.Replicas, v.Status.Replicas, labels.SelectorFromSet(v.Spec.Selector).String(), nil
	default:
		return nil, 0, "", fmt.Errorf("builtin: no scale for a %T", v)
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, 0, "", err
	}
	return spec, st, sel.String(), nil
}
