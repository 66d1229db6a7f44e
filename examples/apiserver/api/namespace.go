package api

import (
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"slices"

	"github.com/apisem/apisem/envelope"
)

// Namespace phases and the finalizer that keeps a namespace until its
// contents are gone.
const (
	NamespaceActive      = "Active"
	NamespaceTerminating = "Terminating"
	FinalizerKubernetes  = "kubernetes"
)

// Namespace condition types the example server sets while it deletes a
// namespace's contents (Kubernetes' names).
const (
	NamespaceContentRemaining    = "NamespaceContentRemaining"
	NamespaceFinalizersRemaining = "NamespaceFinalizersRemaining"
)

// Namespace is core v1 Namespace. Spec and status are value structs, so
// JSON always carries "spec":{} and "status":{}, as Kubernetes does.
type Namespace struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            NamespaceSpec   `json:"spec,omitempty"`
	Status          NamespaceStatus `json:"status,omitempty"`
}

// NamespaceSpec holds the namespace's finalizers (not metadata.finalizers):
// FinalizerKubernetes while its contents exist.
type NamespaceSpec struct {
	Finalizers []string `json:"finalizers,omitempty"`
}

// NamespaceStatus is the namespace's phase and conditions.
type NamespaceStatus struct {
	Phase      string               `json:"phase,omitempty"`
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// NamespaceCondition is one condition of a namespace. A zero
// LastTransitionTime is written as null, as Kubernetes writes it.
type NamespaceCondition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	LastTransitionTime meta.Time `json:"lastTransitionTime,omitempty"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
}

// Types returns the object's TypeMeta.
func (n *Namespace) Types() *meta.TypeMeta { return &n.TypeMeta }

// DeepCopyObject returns a deep copy of n.
func (n *Namespace) DeepCopyObject() server.Object { return n.DeepCopy() }

// DeepCopy returns a deep copy of n.
func (n *Namespace) DeepCopy() *Namespace {
	out := &Namespace{TypeMeta: n.TypeMeta}
	n.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Finalizers = slices.Clone(n.Spec.Finalizers)
	out.Status.Phase = n.Status.Phase
	out.Status.Conditions = slices.Clone(n.Status.Conditions)
	return out
}

// Terminating reports whether n is being deleted.
func (n *Namespace) Terminating() bool {
	return n.DeletionTimestamp != nil || n.Status.Phase == NamespaceTerminating
}

func (n *NamespaceSpec) size() int {
	s := 0
	for _, f := range n.Finalizers {
		s += sizeString(1, f)
	}
	return s
}

func (c *NamespaceCondition) size() int {
	return sizeString(1, c.Type) + sizeString(2, c.Status) +
		sizeMessage(4, meta.SizeTime(c.LastTransitionTime)) +
		sizeString(5, c.Reason) + sizeString(6, c.Message)
}

func (n *NamespaceStatus) size() int {
	s := sizeString(1, n.Phase)
	for i := range n.Conditions {
		s += sizeMessage(2, n.Conditions[i].size())
	}
	return s
}

// AppendProto appends the protobuf encoding of n: metadata 1, spec 2
// (finalizers 1), status 3 (phase 1, conditions 2).
func (n *Namespace) AppendProto(b []byte) []byte {
	b = meta.AppendObjectMetadata(b, &n.ObjectMeta)
	b = appendMessage(b, 2, n.Spec.size(), func(b []byte) []byte {
		for _, f := range n.Spec.Finalizers {
			b = appendString(b, 1, f)
		}
		return b
	})
	return appendMessage(b, 3, n.Status.size(), func(b []byte) []byte {
		b = appendString(b, 1, n.Status.Phase)
		for i := range n.Status.Conditions {
			c := &n.Status.Conditions[i]
			b = appendMessage(b, 2, c.size(), func(b []byte) []byte {
				b = appendString(b, 1, c.Type)
				b = appendString(b, 2, c.Status)
				b = appendMessage(b, 4, meta.SizeTime(c.LastTransitionTime), func(b []byte) []byte {
					return meta.AppendTime(b, c.LastTransitionTime)
				})
				b = appendString(b, 5, c.Reason)
				return appendString(b, 6, c.Message)
			})
		}
		return b
	})
}

// SizeProto returns the length of n's protobuf encoding.
func (n *Namespace) SizeProto() int {
	return meta.SizeObjectMetadata(&n.ObjectMeta) + sizeMessage(2, n.Spec.size()) + sizeMessage(3, n.Status.size())
}

func decodeNamespace(b []byte) (server.Object, error) {
	n := &Namespace{}
	return decodeObject(b, n, func(f envelope.Field) (err error) {
		switch f.Num {
		case 2:
			err = decodeSub(f, func(f envelope.Field) error {
				if f.Num != 1 {
					return nil
				}
				s, err := f.AsString()
				n.Spec.Finalizers = append(n.Spec.Finalizers, s)
				return err
			})
		case 3:
			err = decodeSub(f, func(f envelope.Field) (err error) {
				switch f.Num {
				case 1:
					n.Status.Phase, err = f.AsString()
				case 2:
					var c NamespaceCondition
					if c, err = decodeCondition(f); err == nil {
						n.Status.Conditions = append(n.Status.Conditions, c)
					}
				}
				return err
			})
		}
		return err
	})
}

func decodeCondition(f envelope.Field) (NamespaceCondition, error) {
	var c NamespaceCondition
	err := decodeSub(f, func(f envelope.Field) (err error) {
		switch f.Num {
		case 1:
			c.Type, err = f.AsString()
		case 2:
			c.Status, err = f.AsString()
		case 4:
			c.LastTransitionTime, err = decodeTime(f)
		case 5:
			c.Reason, err = f.AsString()
		case 6:
			c.Message, err = f.AsString()
		}
		return err
	})
	return c, err
}

// prepareNamespace applies Kubernetes' namespace strategy: a new namespace
// is Active with the kubernetes finalizer; an update through the main
// resource cannot change spec.finalizers or status (Kubernetes changes
// them through the finalize and status subresources, which the example
// server's namespace controller does internally).
// NameLabel is the label Kubernetes gives every namespace, holding its
// name, so that label selectors can pick namespaces by name.
const NameLabel = "kubernetes.io/metadata.name"

// defaultNamespace sets the name label, as Kubernetes' defaulting of
// Namespace does on every write.
func defaultNamespace(o server.Object) {
	m := o.Meta()
	if m.Name == "" {
		return
	}
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[NameLabel] = m.Name
}

func prepareNamespace(o, old server.Object) {
	n := o.(*Namespace)
	if old == nil {
		n.Spec.Finalizers = []string{FinalizerKubernetes}
		n.Status = NamespaceStatus{Phase: NamespaceActive}
		return
	}
	prev := old.(*Namespace)
	n.Spec.Finalizers = slices.Clone(prev.Spec.Finalizers)
	n.Status = NamespaceStatus{Phase: prev.Status.Phase, Conditions: slices.Clone(prev.Status.Conditions)}
}
