package scale

import "github.com/apisem/apisem/meta"

// Scale is autoscaling/v1 Scale, the view of an object's replicas that its
// scale subresource serves (kubectl scale and the HorizontalPodAutoscaler
// use it).
type Scale struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            Spec   `json:"spec"`
	Status          Status `json:"status"`
}

// Spec is the wanted number of replicas.
type Spec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// Status is the observed number of replicas and the label selector of the
// pods (or whatever is counted), in its string form.
type Status struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}

// Meta returns the object's metadata.
func (s *Scale) Meta() *meta.ObjectMeta { return &s.ObjectMeta }

// Types returns the object's kind and apiVersion.
func (s *Scale) Types() *meta.TypeMeta { return &s.TypeMeta }

// DeepCopy returns a copy sharing nothing with s.
func (s *Scale) DeepCopy() *Scale {
	c := *s
	s.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}
