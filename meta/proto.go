package meta

// Field numbers of metav1.ObjectMeta (k8s.io/apimachinery
// pkg/apis/meta/v1/generated.proto). 15 and 16 are unused.
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

// ObjectMetadataField is the field number of metadata in every Kubernetes
// object and in PartialObjectMetadata.
const ObjectMetadataField = 1

// AppendObjectMeta appends the protobuf body of m as a Kubernetes server
// encodes it: fields in number order; the value fields always, even when
// zero; the pointer fields (deletionTimestamp,
// deletionGracePeriodSeconds, an owner's controller and
// blockOwnerDeletion, a managed entry's time and fieldsV1) only when
// non-nil; maps in byte-wise key order; empty maps and slices not at all.
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
	b = appendStringMap(b, omLabels, m.Labels)
	b = appendStringMap(b, omAnnotations, m.Annotations)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		b = appendOwnerReference(appendLen(b, omOwnerReferences, sizeOwnerReference(r)), r)
	}
	for _, f := range m.Finalizers {
		b = appendString(b, omFinalizers, f)
	}
	for i := range m.ManagedFields {
		e := &m.ManagedFields[i]
		b = appendManagedFieldsEntry(appendLen(b, omManagedFields, sizeManagedFieldsEntry(e)), e)
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
	n += sizeStringMap(omLabels, m.Labels) + sizeStringMap(omAnnotations, m.Annotations)
	for i := range m.OwnerReferences {
		n += sizeLen(omOwnerReferences, sizeOwnerReference(&m.OwnerReferences[i]))
	}
	for _, f := range m.Finalizers {
		n += sizeString(omFinalizers, f)
	}
	for i := range m.ManagedFields {
		n += sizeLen(omManagedFields, sizeManagedFieldsEntry(&m.ManagedFields[i]))
	}
	return n
}

// AppendObjectMetadata appends m as field 1, where every Kubernetes object
// keeps its metadata, sized first so that nothing moves.
func AppendObjectMetadata(b []byte, m *ObjectMeta) []byte {
	return AppendObjectMeta(appendLen(b, ObjectMetadataField, SizeObjectMeta(m)), m)
}

// SizeObjectMetadata reports the size of AppendObjectMetadata's output.
func SizeObjectMetadata(m *ObjectMeta) int {
	return sizeLen(ObjectMetadataField, SizeObjectMeta(m))
}

// ConsumeObjectMeta decodes the protobuf body of an ObjectMeta. The result
// shares no memory with b; times are in UTC. As in Kubernetes' generated
// decoders, unknown fields are skipped, a repeated scalar keeps the last
// value, list entries accumulate, and a repeated map key keeps the last
// value. Errors wrap ErrMalformed.
func ConsumeObjectMeta(b []byte) (ObjectMeta, error) {
	var m ObjectMeta
	for len(b) > 0 {
		f, n, err := consumeField(b)
		if err != nil {
			return ObjectMeta{}, err
		}
		switch f.num {
		case omName:
			m.Name, err = f.string()
		case omGenerateName:
			m.GenerateName, err = f.string()
		case omNamespace:
			m.Namespace, err = f.string()
		case omSelfLink:
			m.SelfLink, err = f.string()
		case omUID:
			m.UID, err = f.string()
		case omResourceVersion:
			m.ResourceVersion, err = f.string()
		case omGeneration:
			m.Generation, err = f.int64()
		case omCreationTimestamp:
			m.CreationTimestamp, err = consumeTimeField(f)
		case omDeletionTimestamp:
			var t Time
			if t, err = consumeTimeField(f); err == nil {
				m.DeletionTimestamp = &t
			}
		case omDeletionGracePeriodSeconds:
			var v int64
			if v, err = f.int64(); err == nil {
				m.DeletionGracePeriodSeconds = &v
			}
		case omLabels:
			m.Labels, err = addStringMapEntry(m.Labels, f)
		case omAnnotations:
			m.Annotations, err = addStringMapEntry(m.Annotations, f)
		case omOwnerReferences:
			var body []byte
			if body, err = f.content(); err == nil {
				var r OwnerReference
				if r, err = consumeOwnerReference(body); err == nil {
					m.OwnerReferences = append(m.OwnerReferences, r)
				}
			}
		case omFinalizers:
			var s string
			if s, err = f.string(); err == nil {
				m.Finalizers = append(m.Finalizers, s)
			}
		case omManagedFields:
			var body []byte
			if body, err = f.content(); err == nil {
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

func consumeTimeField(f field) (Time, error) {
	body, err := f.content()
	if err != nil {
		return Time{}, err
	}
	return ConsumeTime(body)
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
		f, n, err := consumeField(b)
		if err != nil {
			return OwnerReference{}, err
		}
		switch f.num {
		case orKind:
			r.Kind, err = f.string()
		case orName:
			r.Name, err = f.string()
		case orUID:
			r.UID, err = f.string()
		case orAPIVersion:
			r.APIVersion, err = f.string()
		case orController:
			var v bool
			if v, err = f.bool(); err == nil {
				r.Controller = &v
			}
		case orBlockOwnerDeletion:
			var v bool
			if v, err = f.bool(); err == nil {
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

// Field numbers of metav1.ManagedFieldsEntry (5 is unused) and of
// metav1.FieldsV1.
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
		raw := e.FieldsV1.Raw
		b = appendLen(b, mfFieldsV1, sizeFieldsV1(raw))
		if len(raw) > 0 {
			b = append(appendLen(b, fieldsV1Raw, len(raw)), raw...)
		}
	}
	return appendString(b, mfSubresource, e.Subresource)
}

// sizeFieldsV1 is the body size of a FieldsV1, whose hand-written
// marshaller in Kubernetes leaves the raw field out when it is empty.
func sizeFieldsV1(raw []byte) int {
	if len(raw) == 0 {
		return 0
	}
	return sizeLen(fieldsV1Raw, len(raw))
}

func sizeManagedFieldsEntry(e *ManagedFieldsEntry) int {
	n := sizeString(mfManager, e.Manager) + sizeString(mfOperation, e.Operation) +
		sizeString(mfAPIVersion, e.APIVersion) + sizeString(mfFieldsType, e.FieldsType) +
		sizeString(mfSubresource, e.Subresource)
	if e.Time != nil {
		n += sizeTimeField(mfTime, *e.Time)
	}
	if e.FieldsV1 != nil {
		n += sizeLen(mfFieldsV1, sizeFieldsV1(e.FieldsV1.Raw))
	}
	return n
}

func consumeManagedFieldsEntry(b []byte) (ManagedFieldsEntry, error) {
	var e ManagedFieldsEntry
	for len(b) > 0 {
		f, n, err := consumeField(b)
		if err != nil {
			return ManagedFieldsEntry{}, err
		}
		switch f.num {
		case mfManager:
			e.Manager, err = f.string()
		case mfOperation:
			e.Operation, err = f.string()
		case mfAPIVersion:
			e.APIVersion, err = f.string()
		case mfTime:
			var t Time
			if t, err = consumeTimeField(f); err == nil {
				e.Time = &t
			}
		case mfFieldsType:
			e.FieldsType, err = f.string()
		case mfFieldsV1:
			var body []byte
			if body, err = f.content(); err == nil {
				e.FieldsV1, err = consumeFieldsV1(body)
			}
		case mfSubresource:
			e.Subresource, err = f.string()
		}
		if err != nil {
			return ManagedFieldsEntry{}, err
		}
		b = b[n:]
	}
	return e, nil
}

// consumeFieldsV1 returns a FieldsV1 owning a copy of the raw bytes (nil
// when there are none), so that re-encoding writes the message again.
func consumeFieldsV1(b []byte) (*FieldsV1, error) {
	fv := &FieldsV1{}
	for len(b) > 0 {
		f, n, err := consumeField(b)
		if err != nil {
			return nil, err
		}
		if f.num == fieldsV1Raw {
			raw, err := f.content()
			if err != nil {
				return nil, err
			}
			fv.Raw = append(fv.Raw[:0], raw...)
		}
		b = b[n:]
	}
	return fv, nil
}

// Field numbers of metav1.ListMeta. shardInfo (5, alpha) is not modelled.
const (
	lmSelfLink           = 1
	lmResourceVersion    = 2
	lmContinue           = 3
	lmRemainingItemCount = 4
)

// AppendListMeta appends the protobuf body of m as a Kubernetes server
// encodes it: the three strings always, remainingItemCount when non-nil.
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

// ConsumeListMeta decodes the protobuf body of a ListMeta. Errors wrap
// ErrMalformed.
func ConsumeListMeta(b []byte) (ListMeta, error) {
	var m ListMeta
	if err := MergeListMeta(&m, b); err != nil {
		return ListMeta{}, err
	}
	return m, nil
}

// MergeListMeta decodes the protobuf body b into m, keeping the fields b
// does not set: a message field that occurs twice on the wire (a list's
// or a Status's metadata) merges, as protobuf requires. On error m may be
// partly updated.
func MergeListMeta(m *ListMeta, b []byte) error {
	for len(b) > 0 {
		f, n, err := consumeField(b)
		if err != nil {
			return err
		}
		switch f.num {
		case lmSelfLink:
			m.SelfLink, err = f.string()
		case lmResourceVersion:
			m.ResourceVersion, err = f.string()
		case lmContinue:
			m.Continue, err = f.string()
		case lmRemainingItemCount:
			var v int64
			if v, err = f.int64(); err == nil {
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
