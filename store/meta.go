package store

import (
	"bytes"
	"encoding/json"
	"time"
)

// Object is what the store asks of a stored type: access to its metadata.
// A type gets it by embedding ObjectMeta (the method is promoted), as in
//
//	type ConfigMap struct {
//		Kind       string            `json:"kind,omitempty"`
//		APIVersion string            `json:"apiVersion,omitempty"`
//		store.ObjectMeta             `json:"metadata"`
//		Data       map[string]string `json:"data,omitempty"`
//	}
//
// and is stored as *ConfigMap. Meta must return a pointer into the object
// itself: the store fills in generated fields through it.
type Object interface {
	Meta() *ObjectMeta
}

// ObjectMeta is Kubernetes' metav1.ObjectMeta with its JSON field names,
// order and omission rules. The store reads and writes
// the system fields (uid, resourceVersion, creationTimestamp,
// deletionTimestamp, deletionGracePeriodSeconds, generation on deletion);
// everything else is the caller's.
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
	if m.DeletionTimestamp != nil {
		t := *m.DeletionTimestamp
		out.DeletionTimestamp = &t
	}
	if m.DeletionGracePeriodSeconds != nil {
		s := *m.DeletionGracePeriodSeconds
		out.DeletionGracePeriodSeconds = &s
	}
	out.Labels = copyStrings(m.Labels)
	out.Annotations = copyStrings(m.Annotations)
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

func copyStrings(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Time is metav1.Time: a time.Time that Kubernetes writes in JSON as RFC
// 3339 in UTC with whole seconds, and a zero value as null. Embedding
// time.Time gives it IsZero, so `omitzero` drops a zero creationTimestamp.
type Time struct {
	time.Time
}

// NewTime returns t as a Time.
func NewTime(t time.Time) Time { return Time{t} }

// MarshalJSON writes null for the zero time, else the UTC RFC 3339 form
// with the fraction dropped.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// UnmarshalJSON reads null as the zero time and a string with
// time.RFC3339 (which accepts a fraction).
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return err
	}
	t.Time = p.Local()
	return nil
}

// OwnerReference is metav1.OwnerReference (JSON order apiVersion, kind,
// name, uid, controller, blockOwnerDeletion; the first four are never
// omitted).
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
	if r.Controller != nil {
		b := *r.Controller
		out.Controller = &b
	}
	if r.BlockOwnerDeletion != nil {
		b := *r.BlockOwnerDeletion
		out.BlockOwnerDeletion = &b
	}
}

// ManagedFieldsEntry is metav1.ManagedFieldsEntry. The store keeps it as
// given; it does not implement server-side apply.
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
	if e.Time != nil {
		t := *e.Time
		out.Time = &t
	}
	if e.FieldsV1 != nil {
		out.FieldsV1 = &FieldsV1{Raw: bytes.Clone(e.FieldsV1.Raw)}
	}
}

// FieldsV1 is metav1.FieldsV1: a JSON object kept as raw bytes and written
// inline (not as base64).
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

// UnmarshalJSON keeps a copy of b (null leaves Raw empty).
func (f *FieldsV1) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		f.Raw = nil
		return nil
	}
	f.Raw = bytes.Clone(b)
	return nil
}
