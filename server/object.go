package server

import (
	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/store"
)

// TypeMeta is metav1.TypeMeta: kind and apiVersion, inlined in an
// object's JSON and left out when empty.
type TypeMeta struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// Object is an object of one of the served types, as the store keeps it.
type Object interface {
	store.Object
	// DeepCopyObject returns a copy that shares no memory with the
	// receiver.
	DeepCopyObject() Object
	// Types returns the object's TypeMeta, through which the server sets
	// or clears kind and apiVersion.
	Types() *TypeMeta
}

// ProtoObject is implemented by the types that have a protobuf form.
type ProtoObject interface {
	Object
	// AppendProto appends the object's protobuf encoding (without an
	// envelope) to b.
	AppendProto(b []byte) []byte
	// SizeProto returns the length AppendProto appends.
	SizeProto() int
}

// InitialEventsAnnotation marks the bookmark that ends the initial events
// of a streaming list.
const InitialEventsAnnotation = "k8s.io/initial-events-end"

// EnvelopeMeta converts metadata for protobuf encoding with package
// envelope. Maps and slices are shared, not copied: the result must only
// be read.
func EnvelopeMeta(m *store.ObjectMeta) envelope.ObjectMeta {
	e := envelope.ObjectMeta{
		Name:                       m.Name,
		GenerateName:               m.GenerateName,
		Namespace:                  m.Namespace,
		SelfLink:                   m.SelfLink,
		UID:                        m.UID,
		ResourceVersion:            m.ResourceVersion,
		Generation:                 m.Generation,
		CreationTimestamp:          m.CreationTimestamp.Time,
		DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
		Labels:                     m.Labels,
		Annotations:                m.Annotations,
		Finalizers:                 m.Finalizers,
	}
	if m.DeletionTimestamp != nil {
		t := m.DeletionTimestamp.Time
		e.DeletionTimestamp = &t
	}
	if len(m.OwnerReferences) > 0 {
		e.OwnerReferences = make([]envelope.OwnerReference, len(m.OwnerReferences))
		for i, r := range m.OwnerReferences {
			e.OwnerReferences[i] = envelope.OwnerReference{
				APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: r.UID,
				Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion,
			}
		}
	}
	if len(m.ManagedFields) > 0 {
		e.ManagedFields = make([]envelope.ManagedFieldsEntry, len(m.ManagedFields))
		for i, f := range m.ManagedFields {
			ef := envelope.ManagedFieldsEntry{
				Manager: f.Manager, Operation: f.Operation, APIVersion: f.APIVersion,
				FieldsType: f.FieldsType, Subresource: f.Subresource,
			}
			if f.Time != nil {
				t := f.Time.Time
				ef.Time = &t
			}
			if f.FieldsV1 != nil {
				ef.FieldsV1 = f.FieldsV1.Raw
				if ef.FieldsV1 == nil {
					ef.FieldsV1 = []byte{}
				}
			}
			e.ManagedFields[i] = ef
		}
	}
	return e
}
