package api

import (
	"time"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/store"
)

// fromEnvelopeMeta converts decoded protobuf metadata; the envelope's
// decoder already copied everything.
func fromEnvelopeMeta(e *envelope.ObjectMeta) store.ObjectMeta {
	m := store.ObjectMeta{
		Name:                       e.Name,
		GenerateName:               e.GenerateName,
		Namespace:                  e.Namespace,
		SelfLink:                   e.SelfLink,
		UID:                        e.UID,
		ResourceVersion:            e.ResourceVersion,
		Generation:                 e.Generation,
		CreationTimestamp:          storeTime(e.CreationTimestamp),
		DeletionGracePeriodSeconds: e.DeletionGracePeriodSeconds,
		Labels:                     e.Labels,
		Annotations:                e.Annotations,
		Finalizers:                 e.Finalizers,
	}
	if e.DeletionTimestamp != nil {
		t := storeTime(*e.DeletionTimestamp)
		m.DeletionTimestamp = &t
	}
	for _, r := range e.OwnerReferences {
		m.OwnerReferences = append(m.OwnerReferences, store.OwnerReference{
			APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name, UID: r.UID,
			Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion,
		})
	}
	for _, f := range e.ManagedFields {
		sf := store.ManagedFieldsEntry{
			Manager: f.Manager, Operation: f.Operation, APIVersion: f.APIVersion,
			FieldsType: f.FieldsType, Subresource: f.Subresource,
		}
		if f.Time != nil {
			t := storeTime(*f.Time)
			sf.Time = &t
		}
		if f.FieldsV1 != nil {
			sf.FieldsV1 = &store.FieldsV1{Raw: f.FieldsV1}
		}
		m.ManagedFields = append(m.ManagedFields, sf)
	}
	return m
}

func storeTime(t time.Time) store.Time {
	if t.IsZero() {
		return store.Time{}
	}
	return store.NewTime(t)
}
