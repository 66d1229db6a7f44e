package meta

import (
	"bytes"
	"maps"
)

// Object is what a stored or served type offers: a pointer to its own
// metadata. A type gets it by embedding ObjectMeta, whose Meta method is
// promoted:
//
//	type ConfigMap struct {
//		meta.TypeMeta   `json:",inline"`
//		meta.ObjectMeta `json:"metadata"`
//		Data map[string]string `json:"data,omitempty"`
//	}
//
// and *ConfigMap is the Object. Meta must point into the object itself:
// stores fill in generated fields through it.
type Object interface {
	Meta() *ObjectMeta
}

// TypeMeta is metav1.TypeMeta: an object's kind and apiVersion, inlined in
// its JSON and left out when empty. Objects never carry it inside their
// protobuf bytes: the envelope does.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// ObjectMeta is metav1.ObjectMeta with Kubernetes' JSON field names, order
// and omission rules. Servers own the system fields (uid,
// resourceVersion, creationTimestamp, deletionTimestamp,
// deletionGracePeriodSeconds, generation); the rest is the client's.
type ObjectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	SelfLink                   string               `json:"selfLink,omitempty"`
	UID                        string               `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          Time                 `json:"creationTimestamp,omitempty,omitzero"`
	DeletionTimestamp          *Time                `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []OwnerReference     `json:"ownerReferences,omitempty"`
	Finalizers                 []string             `json:"finalizers,omitempty"`
	ManagedFields              []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// Meta returns m, so that a type embedding ObjectMeta satisfies Object.
func (m *ObjectMeta) Meta() *ObjectMeta { return m }

// DeepCopyInto copies m into out, sharing no maps, slices or pointers.
func (m *ObjectMeta) DeepCopyInto(out *ObjectMeta) {
	*out = *m
	out.DeletionTimestamp = clonePtr(m.DeletionTimestamp)
	out.DeletionGracePeriodSeconds = clonePtr(m.DeletionGracePeriodSeconds)
	out.Labels = maps.Clone(m.Labels)
	out.Annotations = maps.Clone(m.Annotations)
	if m.OwnerReferences != nil {
		out.OwnerReferences = make([]OwnerReference, len(m.OwnerReferences))
		for i := range m.OwnerReferences {
			m.OwnerReferences[i].DeepCopyInto(&out.OwnerReferences[i])
		}
	}
	if m.Finalizers != nil {
		out.Finalizers = append([]string(nil), m.Finalizers...)
	}
	if m.ManagedFields != nil {
		out.ManagedFields = make([]ManagedFieldsEntry, len(m.ManagedFields))
		for i := range m.ManagedFields {
			m.ManagedFields[i].DeepCopyInto(&out.ManagedFields[i])
		}
	}
}

// DeepCopy returns a copy of m sharing nothing with it.
func (m *ObjectMeta) DeepCopy() *ObjectMeta {
	if m == nil {
		return nil
	}
	out := new(ObjectMeta)
	m.DeepCopyInto(out)
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// OwnerReference is metav1.OwnerReference. Its JSON order is apiVersion,
// kind, name, uid, controller, blockOwnerDeletion, and the first four are
// written even when empty.
type OwnerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

// DeepCopyInto copies r into out.
func (r *OwnerReference) DeepCopyInto(out *OwnerReference) {
	*out = *r
	out.Controller = clonePtr(r.Controller)
	out.BlockOwnerDeletion = clonePtr(r.BlockOwnerDeletion)
}

// ManagedFieldsEntry is metav1.ManagedFieldsEntry, the record server-side
// apply keeps of who set which fields. This package only carries it.
type ManagedFieldsEntry struct {
	Manager     string    `json:"manager,omitempty"`
	Operation   string    `json:"operation,omitempty"`
	APIVersion  string    `json:"apiVersion,omitempty"`
	Time        *Time     `json:"time,omitempty"`
	FieldsType  string    `json:"fieldsType,omitempty"`
	FieldsV1    *FieldsV1 `json:"fieldsV1,omitempty"`
	Subresource string    `json:"subresource,omitempty"`
}

// DeepCopyInto copies e into out.
func (e *ManagedFieldsEntry) DeepCopyInto(out *ManagedFieldsEntry) {
	*out = *e
	out.Time = clonePtr(e.Time)
	if e.FieldsV1 != nil {
		out.FieldsV1 = &FieldsV1{Raw: bytes.Clone(e.FieldsV1.Raw)}
	}
}

// FieldsV1 is metav1.FieldsV1: a JSON object kept as raw bytes. JSON
// writes it inline (not as base64); protobuf as a message whose only field
// holds the bytes.
type FieldsV1 struct {
	Raw []byte
}

// MarshalJSON writes Raw as is, or null when it is empty.
func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if len(f.Raw) == 0 {
		return []byte("null"), nil
	}
	return f.Raw, nil
}

// UnmarshalJSON keeps a copy of b (null leaves Raw nil).
func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		f.Raw = nil
		return nil
	}
	f.Raw = bytes.Clone(b)
	return nil
}

// ListMeta is metav1.ListMeta: the metadata of a list, and of a Status.
// ShardInfo (an alpha field) is not modelled; its protobuf field is
// skipped on decode like any unknown field.
type ListMeta struct {
	SelfLink           string `json:"selfLink,omitempty"`
	ResourceVersion    string `json:"resourceVersion,omitempty"`
	Continue           string `json:"continue,omitempty"`
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty"`
}

// DeepCopyInto copies m into out.
func (m *ListMeta) DeepCopyInto(out *ListMeta) {
	*out = *m
	out.RemainingItemCount = clonePtr(m.RemainingItemCount)
}

// DeepCopy returns a copy of m sharing nothing with it.
func (m *ListMeta) DeepCopy() *ListMeta {
	if m == nil {
		return nil
	}
	out := new(ListMeta)
	m.DeepCopyInto(out)
	return out
}

// InitialEventsAnnotation is the annotation, set to "true", of the
// bookmark that ends a watch's initial events (a streaming list);
// metav1.InitialEventsAnnotationKey in Kubernetes.
const InitialEventsAnnotation = "k8s.io/initial-events-end"
