package namespace

import (
	"errors"
	"fmt"
	"slices"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"google.golang.org/protobuf/encoding/protowire"
)

// Namespace phases, and the finalizer of spec.finalizers that keeps a
// namespace until its contents are gone.
const (
	PhaseActive         = "Active"
	PhaseTerminating    = "Terminating"
	FinalizerKubernetes = "kubernetes"
)

// Condition types the controller sets while it deletes a namespace's
// contents (Kubernetes' names).
const (
	ConditionContentRemaining    = "NamespaceContentRemaining"
	ConditionFinalizersRemaining = "NamespaceFinalizersRemaining"
)

// Finalize is the subresource, namespaces/<name>/finalize, whose update
// (PUT) sets a namespace's spec.finalizers, as a cluster serves it.
const Finalize = "finalize"

// NameLabel is the label Kubernetes gives every namespace, holding its
// name, so that label selectors can pick namespaces by name.
const NameLabel = "kubernetes.io/metadata.name"

// Namespace is core v1 Namespace. Spec and status are value structs, so
// JSON always carries "spec":{} and "status":{}, as Kubernetes does.
type Namespace struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            Spec   `json:"spec,omitempty"`
	Status          Status `json:"status,omitempty"`

	// subresource is that of the write n is the new object of, which
	// the server tells ObserveWrite: a write of finalize may change
	// spec.finalizers. Copies leave it out.
	subresource string
}

// ObserveWrite keeps the subresource of the write n is the new object
// of (server.WriteObserver).
func (n *Namespace) ObserveWrite(a server.Attributes) { n.subresource = a.Subresource }

// Spec holds the namespace's finalizers (not metadata.finalizers):
// FinalizerKubernetes while its contents exist.
type Spec struct {
	Finalizers []string `json:"finalizers,omitempty"`
}

// Status is the namespace's phase and conditions.
type Status struct {
	Phase      string      `json:"phase,omitempty"`
	Conditions []Condition `json:"conditions,omitempty"`
}

// Condition is one condition of a namespace. A zero LastTransitionTime
// is written as null, as Kubernetes writes it.
type Condition struct {
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
	return n.DeletionTimestamp != nil || n.Status.Phase == PhaseTerminating
}

// ErrProto is wrapped by every error of decoding a Namespace's protobuf
// form.
var ErrProto = errors.New("namespace: malformed protobuf")

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func sizeString(num protowire.Number, s string) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(len(s))
}

func appendMessage(b []byte, num protowire.Number, size int, body func([]byte) []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(size))
	return body(b)
}

func sizeMessage(num protowire.Number, size int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(size)
}

func (s *Spec) size() int {
	n := 0
	for _, f := range s.Finalizers {
		n += sizeString(1, f)
	}
	return n
}

func (c *Condition) size() int {
	return sizeString(1, c.Type) + sizeString(2, c.Status) +
		sizeMessage(4, meta.SizeTime(c.LastTransitionTime)) +
		sizeString(5, c.Reason) + sizeString(6, c.Message)
}

func (s *Status) size() int {
	n := sizeString(1, s.Phase)
	for i := range s.Conditions {
		n += sizeMessage(2, s.Conditions[i].size())
	}
	return n
}

// AppendProto appends the protobuf encoding of n (k8s.io/api's
// generated.proto): metadata 1, spec 2 (finalizers 1), status 3 (phase
// 1, conditions 2).
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

// DecodeProto decodes the protobuf encoding of a Namespace (without
// envelope). Errors wrap ErrProto; fields it does not know are skipped.
func DecodeProto(b []byte) (server.Object, error) {
	n := &Namespace{}
	err := envelope.RangeFields(b, func(f envelope.Field) (err error) {
		switch f.Num {
		case 1:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				n.ObjectMeta, err = meta.ConsumeObjectMeta(body)
			}
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
					var c Condition
					if c, err = decodeCondition(f); err == nil {
						n.Status.Conditions = append(n.Status.Conditions, c)
					}
				}
				return err
			})
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProto, err)
	}
	return n, nil
}

// decodeSub decodes the fields of the embedded message f with fn.
func decodeSub(f envelope.Field, fn func(envelope.Field) error) error {
	body, err := f.AsBytes()
	if err != nil {
		return err
	}
	return envelope.RangeFields(body, fn)
}

func decodeCondition(f envelope.Field) (Condition, error) {
	var c Condition
	err := decodeSub(f, func(f envelope.Field) (err error) {
		switch f.Num {
		case 1:
			c.Type, err = f.AsString()
		case 2:
			c.Status, err = f.AsString()
		case 4:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				c.LastTransitionTime, err = meta.ConsumeTime(body)
			}
		case 5:
			c.Reason, err = f.AsString()
		case 6:
			c.Message, err = f.AsString()
		}
		return err
	})
	return c, err
}
