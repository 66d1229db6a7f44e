package envelope

import (
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// ObjectMeta is metav1.ObjectMeta in plain Go types, for encoding and
// decoding the metadata field (number 1) of any Kubernetes object.
//
// Presence follows Kubernetes' Go types: value fields are always written,
// even when zero; the pointer fields DeletionTimestamp and
// DeletionGracePeriodSeconds are written only when non-nil; empty maps and
// slices write nothing.
type ObjectMeta struct {
	Name                       string
	GenerateName               string
	Namespace                  string
	SelfLink                   string
	UID                        string
	ResourceVersion            string
	Generation                 int64
	CreationTimestamp          time.Time // whole seconds; zero means unset
	DeletionTimestamp          *time.Time
	DeletionGracePeriodSeconds *int64
	Labels                     map[string]string
	Annotations                map[string]string
	OwnerReferences            []OwnerReference
	Finalizers                 []string
	ManagedFields              []ManagedFieldsEntry
}

// OwnerReference is metav1.OwnerReference.
type OwnerReference struct {
	APIVersion         string
	Kind               string
	Name               string
	UID                string
	Controller         *bool
	BlockOwnerDeletion *bool
}

// ManagedFieldsEntry is metav1.ManagedFieldsEntry.
type ManagedFieldsEntry struct {
	Manager    string
	Operation  string
	APIVersion string
	Time       *time.Time
	FieldsType string
	// FieldsV1 is the raw fieldsV1 JSON. nil leaves the field out; an
	// empty non-nil slice writes an empty FieldsV1 message.
	FieldsV1    []byte
	Subresource string
}

// ListMeta is metav1.ListMeta. ShardInfo (field 5, alpha) is not modelled:
// it is skipped on decode like any unknown field.
type ListMeta struct {
	SelfLink           string
	ResourceVersion    string
	Continue           string
	RemainingItemCount *int64
}

// Field numbers of metav1.ObjectMeta. 15 and 16 are unused.
const (
	omName                       = 1
	omGenerateName               = 2
	omNamespace                  = 3
	omSelfLink                   = 4
	omUID                        = 5
	omResourceVersion            = 6
	omGeneration                 = 7
	omCreationTimestamp          = 8
	omDeletionTimestamp          = 9
	omDeletionGracePeriodSeconds = 10
	omLabels                     = 11
	omAnnotations                = 12
	omOwnerReferences            = 13
	omFinalizers                 = 14
	omManagedFields              = 17
)

// AppendObjectMeta appends the body of m as a Kubernetes server encodes it.
func AppendObjectMeta(b []byte, m *ObjectMeta) []byte {
	b = appendString(b, omName, m.Name)
	b = appendString(b, omGenerateName, m.GenerateName)
	b = appendString(b, omNamespace, m.Namespace)
	b = appendString(b, omSelfLink, m.SelfLink)
	b = appendString(b, omUID, m.UID)
	b = appendString(b, omResourceVersion, m.ResourceVersion)
	b = appendInt(b, omGeneration, m.Generation)
	b = appendTimeField(b, omCreationTimestamp, m.CreationTimestamp)
	if m.DeletionTimestamp != nil {
		b = appendTimeField(b, omDeletionTimestamp, *m.DeletionTimestamp)
	}
	if m.DeletionGracePeriodSeconds != nil {
		b = appendInt(b, omDeletionGracePeriodSeconds, *m.DeletionGracePeriodSeconds)
	}
	b = AppendStringMap(b, omLabels, m.Labels)
	b = AppendStringMap(b, omAnnotations, m.Annotations)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		b = protowire.AppendTag(b, omOwnerReferences, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeOwnerReference(r)))
		b = appendOwnerReference(b, r)
	}
	for _, f := range m.Finalizers {
		b = appendString(b, omFinalizers, f)
	}
	for i := range m.ManagedFields {
		e := &m.ManagedFields[i]
		b = protowire.AppendTag(b, omManagedFields, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeManagedFieldsEntry(e)))
		b = appendManagedFieldsEntry(b, e)
	}
	return b
}

// SizeObjectMeta reports the size of AppendObjectMeta's output.
func SizeObjectMeta(m *ObjectMeta) int {
	n := sizeString(omName, m.Name) +
		sizeString(omGenerateName, m.GenerateName) +
		sizeString(omNamespace, m.Namespace) +
		sizeString(omSelfLink, m.SelfLink) +
		sizeString(omUID, m.UID) +
		sizeString(omResourceVersion, m.ResourceVersion) +
		sizeInt(omGeneration, m.Generation) +
		sizeTimeField(omCreationTimestamp, m.CreationTimestamp)
	if m.DeletionTimestamp != nil {
		n += sizeTimeField(omDeletionTimestamp, *m.DeletionTimestamp)
	}
	if m.DeletionGracePeriodSeconds != nil {
		n += sizeInt(omDeletionGracePeriodSeconds, *m.DeletionGracePeriodSeconds)
	}
	n += SizeStringMap(omLabels, m.Labels) + SizeStringMap(omAnnotations, m.Annotations)
	for i := range m.OwnerReferences {
		n += sizeBytes(omOwnerReferences, sizeOwnerReference(&m.OwnerReferences[i]))
	}
	for _, f := range m.Finalizers {
		n += sizeString(omFinalizers, f)
	}
	for i := range m.ManagedFields {
		n += sizeBytes(omManagedFields, sizeManagedFieldsEntry(&m.ManagedFields[i]))
	}
	return n
}

// AppendObjectMetadata appends m as field 1, where every Kubernetes object
// keeps its metadata, sizing it first so nothing moves.
func AppendObjectMetadata(b []byte, m *ObjectMeta) []byte {
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(SizeObjectMeta(m)))
	return AppendObjectMeta(b, m)
}

// ConsumeObjectMeta decodes the body of an ObjectMeta. Strings and maps are
// copies; a creation or deletion timestamp is in UTC. Unknown fields are
// skipped; repeated scalars keep the last value, repeated list entries
// accumulate, and duplicate map keys keep the last value.
func ConsumeObjectMeta(b []byte) (ObjectMeta, error) {
	var m ObjectMeta
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return ObjectMeta{}, err
		}
		switch f.Num {
		case omName:
			m.Name, err = f.AsString()
		case omGenerateName:
			m.GenerateName, err = f.AsString()
		case omNamespace:
			m.Namespace, err = f.AsString()
		case omSelfLink:
			m.SelfLink, err = f.AsString()
		case omUID:
			m.UID, err = f.AsString()
		case omResourceVersion:
			m.ResourceVersion, err = f.AsString()
		case omGeneration:
			m.Generation, err = f.AsInt64()
		case omCreationTimestamp:
			m.CreationTimestamp, err = consumeTimeField(f)
		case omDeletionTimestamp:
			var t time.Time
			if t, err = consumeTimeField(f); err == nil {
				m.DeletionTimestamp = &t
			}
		case omDeletionGracePeriodSeconds:
			var v int64
			if v, err = f.AsInt64(); err == nil {
				m.DeletionGracePeriodSeconds = &v
			}
		case omLabels:
			m.Labels, err = AddStringMapEntry(m.Labels, f)
		case omAnnotations:
			m.Annotations, err = AddStringMapEntry(m.Annotations, f)
		case omOwnerReferences:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				var r OwnerReference
				if r, err = consumeOwnerReference(body); err == nil {
					m.OwnerReferences = append(m.OwnerReferences, r)
				}
			}
		case omFinalizers:
			var s string
			if s, err = f.AsString(); err == nil {
				m.Finalizers = append(m.Finalizers, s)
			}
		case omManagedFields:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				var e ManagedFieldsEntry
				if e, err = consumeManagedFieldsEntry(body); err == nil {
					m.ManagedFields = append(m.ManagedFields, e)
				}
			}
		}
		if err != nil {
			return ObjectMeta{}, err
		}
		b = b[n:]
	}
	return m, nil
}

func consumeTimeField(f Field) (time.Time, error) {
	body, err := f.AsBytes()
	if err != nil {
		return time.Time{}, err
	}
	return ConsumeTime(body)
}

// AddStringMapEntry decodes f, one entry of a map<string, string> field,
// into m (allocated when nil) and returns m: the decoding step of every
// string map of a message, such as labels or ConfigMap.data.
func AddStringMapEntry(m map[string]string, f Field) (map[string]string, error) {
	entry, err := f.AsBytes()
	if err != nil {
		return m, err
	}
	k, v, err := ConsumeStringMapEntry(entry)
	if err != nil {
		return m, err
	}
	if m == nil {
		m = make(map[string]string)
	}
	m[k] = v
	return m, nil
}

// AddBytesMapEntry decodes f, one entry of a map<string, bytes> field, into
// m (allocated when nil) and returns m. The value is copied, because a
// decoded Field aliases its input and a map kept beyond the decode must own
// its memory; a missing value becomes an empty, non-nil slice, as
// Kubernetes decodes it.
func AddBytesMapEntry(m map[string][]byte, f Field) (map[string][]byte, error) {
	entry, err := f.AsBytes()
	if err != nil {
		return m, err
	}
	k, v, err := ConsumeBytesMapEntry(entry)
	if err != nil {
		return m, err
	}
	if m == nil {
		m = make(map[string][]byte)
	}
	m[k] = append([]byte{}, v...)
	return m, nil
}

// Field numbers of metav1.OwnerReference. 2 is unused.
const (
	orKind               = 1
	orName               = 3
	orUID                = 4
	orAPIVersion         = 5
	orController         = 6
	orBlockOwnerDeletion = 7
)

func appendOwnerReference(b []byte, r *OwnerReference) []byte {
	b = appendString(b, orKind, r.Kind)
	b = appendString(b, orName, r.Name)
	b = appendString(b, orUID, r.UID)
	b = appendString(b, orAPIVersion, r.APIVersion)
	if r.Controller != nil {
		b = appendBool(b, orController, *r.Controller)
	}
	if r.BlockOwnerDeletion != nil {
		b = appendBool(b, orBlockOwnerDeletion, *r.BlockOwnerDeletion)
	}
	return b
}

func sizeOwnerReference(r *OwnerReference) int {
	n := sizeString(orKind, r.Kind) + sizeString(orName, r.Name) +
		sizeString(orUID, r.UID) + sizeString(orAPIVersion, r.APIVersion)
	if r.Controller != nil {
		n += sizeBool(orController)
	}
	if r.BlockOwnerDeletion != nil {
		n += sizeBool(orBlockOwnerDeletion)
	}
	return n
}

func consumeOwnerReference(b []byte) (OwnerReference, error) {
	var r OwnerReference
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return OwnerReference{}, err
		}
		switch f.Num {
		case orKind:
			r.Kind, err = f.AsString()
		case orName:
			r.Name, err = f.AsString()
		case orUID:
			r.UID, err = f.AsString()
		case orAPIVersion:
			r.APIVersion, err = f.AsString()
		case orController:
			var v bool
			if v, err = f.AsBool(); err == nil {
				r.Controller = &v
			}
		case orBlockOwnerDeletion:
			var v bool
			if v, err = f.AsBool(); err == nil {
				r.BlockOwnerDeletion = &v
			}
		}
		if err != nil {
			return OwnerReference{}, err
		}
		b = b[n:]
	}
	return r, nil
}

// Field numbers of metav1.ManagedFieldsEntry. 5 is unused.
const (
	mfManager     = 1
	mfOperation   = 2
	mfAPIVersion  = 3
	mfTime        = 4
	mfFieldsType  = 6
	mfFieldsV1    = 7
	mfSubresource = 8

	fieldsV1Raw = 1
)

func appendManagedFieldsEntry(b []byte, e *ManagedFieldsEntry) []byte {
	b = appendString(b, mfManager, e.Manager)
	b = appendString(b, mfOperation, e.Operation)
	b = appendString(b, mfAPIVersion, e.APIVersion)
	if e.Time != nil {
		b = appendTimeField(b, mfTime, *e.Time)
	}
	b = appendString(b, mfFieldsType, e.FieldsType)
	if e.FieldsV1 != nil {
		b = protowire.AppendTag(b, mfFieldsV1, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeFieldsV1(e.FieldsV1)))
		if len(e.FieldsV1) > 0 {
			b = appendBytes(b, fieldsV1Raw, e.FieldsV1)
		}
	}
	return appendString(b, mfSubresource, e.Subresource)
}

// sizeFieldsV1 is the body size of a FieldsV1, whose hand-written
// marshaller leaves the raw field out when it is empty.
func sizeFieldsV1(raw []byte) int {
	if len(raw) == 0 {
		return 0
	}
	return sizeBytes(fieldsV1Raw, len(raw))
}

func sizeManagedFieldsEntry(e *ManagedFieldsEntry) int {
	n := sizeString(mfManager, e.Manager) + sizeString(mfOperation, e.Operation) +
		sizeString(mfAPIVersion, e.APIVersion) + sizeString(mfFieldsType, e.FieldsType) +
		sizeString(mfSubresource, e.Subresource)
	if e.Time != nil {
		n += sizeTimeField(mfTime, *e.Time)
	}
	if e.FieldsV1 != nil {
		n += sizeBytes(mfFieldsV1, sizeFieldsV1(e.FieldsV1))
	}
	return n
}

func consumeManagedFieldsEntry(b []byte) (ManagedFieldsEntry, error) {
	var e ManagedFieldsEntry
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return ManagedFieldsEntry{}, err
		}
		switch f.Num {
		case mfManager:
			e.Manager, err = f.AsString()
		case mfOperation:
			e.Operation, err = f.AsString()
		case mfAPIVersion:
			e.APIVersion, err = f.AsString()
		case mfTime:
			var t time.Time
			if t, err = consumeTimeField(f); err == nil {
				e.Time = &t
			}
		case mfFieldsType:
			e.FieldsType, err = f.AsString()
		case mfFieldsV1:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				e.FieldsV1, err = consumeFieldsV1(body)
			}
		case mfSubresource:
			e.Subresource, err = f.AsString()
		}
		if err != nil {
			return ManagedFieldsEntry{}, err
		}
		b = b[n:]
	}
	return e, nil
}

// consumeFieldsV1 returns a copy of the raw bytes, non-nil even when empty
// so that re-encoding writes the FieldsV1 message again.
func consumeFieldsV1(b []byte) ([]byte, error) {
	raw := []byte{}
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return nil, err
		}
		if f.Num == fieldsV1Raw {
			v, err := f.AsBytes()
			if err != nil {
				return nil, err
			}
			raw = append(raw[:0], v...)
		}
		b = b[n:]
	}
	return raw, nil
}

// Field numbers of metav1.ListMeta.
const (
	lmSelfLink           = 1
	lmResourceVersion    = 2
	lmContinue           = 3
	lmRemainingItemCount = 4
)

// AppendListMeta appends the body of m as a Kubernetes server encodes it:
// the three strings always, remainingItemCount only when non-nil.
func AppendListMeta(b []byte, m *ListMeta) []byte {
	b = appendString(b, lmSelfLink, m.SelfLink)
	b = appendString(b, lmResourceVersion, m.ResourceVersion)
	b = appendString(b, lmContinue, m.Continue)
	if m.RemainingItemCount != nil {
		b = appendInt(b, lmRemainingItemCount, *m.RemainingItemCount)
	}
	return b
}

// SizeListMeta reports the size of AppendListMeta's output.
func SizeListMeta(m *ListMeta) int {
	n := sizeString(lmSelfLink, m.SelfLink) + sizeString(lmResourceVersion, m.ResourceVersion) +
		sizeString(lmContinue, m.Continue)
	if m.RemainingItemCount != nil {
		n += sizeInt(lmRemainingItemCount, *m.RemainingItemCount)
	}
	return n
}

// ConsumeListMeta decodes the body of a ListMeta.
func ConsumeListMeta(b []byte) (ListMeta, error) {
	var m ListMeta
	if err := consumeListMetaInto(&m, b); err != nil {
		return ListMeta{}, err
	}
	return m, nil
}

// consumeListMetaInto decodes b into m, keeping fields b does not set: a
// message field that occurs twice merges, as protobuf requires.
func consumeListMetaInto(m *ListMeta, b []byte) error {
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return err
		}
		switch f.Num {
		case lmSelfLink:
			m.SelfLink, err = f.AsString()
		case lmResourceVersion:
			m.ResourceVersion, err = f.AsString()
		case lmContinue:
			m.Continue, err = f.AsString()
		case lmRemainingItemCount:
			var v int64
			if v, err = f.AsInt64(); err == nil {
				m.RemainingItemCount = &v
			}
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// Lists. Every Kubernetes XxxList is {metadata = 1: ListMeta, items = 2:
// repeated Xxx}: the list metadata first, then each item as a
// length-delimited message, in order.
const (
	listMetadata = 1
	listItems    = 2
)

// AppendListMetadata appends m as a list's metadata field. Write it before
// the items.
func AppendListMetadata(b []byte, m *ListMeta) []byte {
	b = protowire.AppendTag(b, listMetadata, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(SizeListMeta(m)))
	return AppendListMeta(b, m)
}

// AppendListItem appends one already-encoded item (the object's own bytes,
// without an envelope) to a list.
func AppendListItem(b, item []byte) []byte {
	return appendBytes(b, listItems, item)
}

// AppendListItemHead appends what AppendListItem writes before an item
// of size bytes: a writer that streams a list sends the item after it.
func AppendListItemHead(b []byte, size int) []byte {
	b = protowire.AppendTag(b, listItems, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(size))
}

// AppendListItemFunc appends one item that appendItem encodes directly into
// b; sizeHint is as for AppendMessageFunc.
func AppendListItemFunc(b []byte, sizeHint int, appendItem func([]byte) []byte) []byte {
	return AppendMessageFunc(b, listItems, sizeHint, appendItem)
}

// ConsumeList decodes a list's body: it returns the list metadata and calls
// item with each item's bytes (aliasing b), in order, stopping at the first
// error item returns. A nil item skips the items.
func ConsumeList(b []byte, item func([]byte) error) (ListMeta, error) {
	var m ListMeta
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return ListMeta{}, err
		}
		switch f.Num {
		case listMetadata:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				err = consumeListMetaInto(&m, body)
			}
		case listItems:
			var body []byte
			if body, err = f.AsBytes(); err == nil && item != nil {
				err = item(body)
			}
		}
		if err != nil {
			return ListMeta{}, err
		}
		b = b[n:]
	}
	return m, nil
}
