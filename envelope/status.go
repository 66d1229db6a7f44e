package envelope

import (
	"github.com/apisem/apisem/meta"
	"google.golang.org/protobuf/encoding/protowire"
)

// Status is metav1.Status in plain Go types: the body of every error
// response and of ERROR watch events. In an envelope its type is
// apiVersion "v1", kind "Status", whatever the API group.
//
// All value fields are always written; Details only when non-nil.
type Status struct {
	Metadata meta.ListMeta
	Status   string // "Success" or "Failure"
	Message  string
	Reason   string
	Details  *StatusDetails
	Code     int32
}

// StatusDetails is metav1.StatusDetails.
type StatusDetails struct {
	Name              string
	Group             string
	Kind              string
	UID               string
	Causes            []StatusCause
	RetryAfterSeconds int32
}

// StatusCause is metav1.StatusCause. Type is written as "reason" on the
// wire and in JSON, as in Kubernetes' Go type.
type StatusCause struct {
	Type    string
	Message string
	Field   string
}

// Field numbers of metav1.Status, StatusDetails and StatusCause.
const (
	stMetadata = 1
	stStatus   = 2
	stMessage  = 3
	stReason   = 4
	stDetails  = 5
	stCode     = 6

	sdName              = 1
	sdGroup             = 2
	sdKind              = 3
	sdCauses            = 4
	sdRetryAfterSeconds = 5
	sdUID               = 6

	scReason  = 1
	scMessage = 2
	scField   = 3
)

// AppendStatus appends the body of s as a Kubernetes server encodes it.
func AppendStatus(b []byte, s *Status) []byte {
	b = protowire.AppendTag(b, stMetadata, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(meta.SizeListMeta(&s.Metadata)))
	b = meta.AppendListMeta(b, &s.Metadata)
	b = appendString(b, stStatus, s.Status)
	b = appendString(b, stMessage, s.Message)
	b = appendString(b, stReason, s.Reason)
	if d := s.Details; d != nil {
		b = protowire.AppendTag(b, stDetails, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeStatusDetails(d)))
		b = appendStatusDetails(b, d)
	}
	return appendInt(b, stCode, int64(s.Code))
}

// SizeStatus reports the size of AppendStatus's output.
func SizeStatus(s *Status) int {
	n := sizeBytes(stMetadata, meta.SizeListMeta(&s.Metadata)) +
		sizeString(stStatus, s.Status) +
		sizeString(stMessage, s.Message) +
		sizeString(stReason, s.Reason) +
		sizeInt(stCode, int64(s.Code))
	if s.Details != nil {
		n += sizeBytes(stDetails, sizeStatusDetails(s.Details))
	}
	return n
}

// ConsumeStatus decodes the body of a Status.
func ConsumeStatus(b []byte) (Status, error) {
	var s Status
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return Status{}, err
		}
		switch f.Num {
		case stMetadata:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				err = metaError(meta.MergeListMeta(&s.Metadata, body))
			}
		case stStatus:
			s.Status, err = f.AsString()
		case stMessage:
			s.Message, err = f.AsString()
		case stReason:
			s.Reason, err = f.AsString()
		case stDetails:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				if s.Details == nil {
					s.Details = new(StatusDetails)
				}
				err = consumeStatusDetailsInto(s.Details, body)
			}
		case stCode:
			s.Code, err = f.AsInt32()
		}
		if err != nil {
			return Status{}, err
		}
		b = b[n:]
	}
	return s, nil
}

func appendStatusDetails(b []byte, d *StatusDetails) []byte {
	b = appendString(b, sdName, d.Name)
	b = appendString(b, sdGroup, d.Group)
	b = appendString(b, sdKind, d.Kind)
	for i := range d.Causes {
		c := &d.Causes[i]
		b = protowire.AppendTag(b, sdCauses, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(sizeStatusCause(c)))
		b = appendString(b, scReason, c.Type)
		b = appendString(b, scMessage, c.Message)
		b = appendString(b, scField, c.Field)
	}
	b = appendInt(b, sdRetryAfterSeconds, int64(d.RetryAfterSeconds))
	return appendString(b, sdUID, d.UID)
}

func sizeStatusDetails(d *StatusDetails) int {
	n := sizeString(sdName, d.Name) + sizeString(sdGroup, d.Group) + sizeString(sdKind, d.Kind) +
		sizeInt(sdRetryAfterSeconds, int64(d.RetryAfterSeconds)) + sizeString(sdUID, d.UID)
	for i := range d.Causes {
		n += sizeBytes(sdCauses, sizeStatusCause(&d.Causes[i]))
	}
	return n
}

func sizeStatusCause(c *StatusCause) int {
	return sizeString(scReason, c.Type) + sizeString(scMessage, c.Message) + sizeString(scField, c.Field)
}

func consumeStatusDetailsInto(d *StatusDetails, b []byte) error {
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return err
		}
		switch f.Num {
		case sdName:
			d.Name, err = f.AsString()
		case sdGroup:
			d.Group, err = f.AsString()
		case sdKind:
			d.Kind, err = f.AsString()
		case sdCauses:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				var c StatusCause
				if c, err = consumeStatusCause(body); err == nil {
					d.Causes = append(d.Causes, c)
				}
			}
		case sdRetryAfterSeconds:
			d.RetryAfterSeconds, err = f.AsInt32()
		case sdUID:
			d.UID, err = f.AsString()
		}
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func consumeStatusCause(b []byte) (StatusCause, error) {
	var c StatusCause
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return StatusCause{}, err
		}
		switch f.Num {
		case scReason:
			c.Type, err = f.AsString()
		case scMessage:
			c.Message, err = f.AsString()
		case scField:
			c.Field, err = f.AsString()
		}
		if err != nil {
			return StatusCause{}, err
		}
		b = b[n:]
	}
	return c, nil
}

// WatchEvent is metav1.WatchEvent: one event of a watch stream. On a
// protobuf stream each event is one frame holding the WatchEvent's bytes
// directly (no envelope around the event); Object is the envelope of the
// object.
type WatchEvent struct {
	// Type is ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.
	Type string

	// Object is the raw bytes of the event's object, normally an
	// envelope. nil means the RawExtension carried no raw field.
	Object []byte
}

// Field numbers of metav1.WatchEvent and runtime.RawExtension.
const (
	weType   = 1
	weObject = 2

	rawExtensionRaw = 1
)

// AppendWatchEvent appends a WatchEvent's bytes. The object field is
// always written; inside it the raw bytes are written when object is
// non-nil, so a nil object gives an empty RawExtension.
func AppendWatchEvent(b []byte, eventType string, object []byte) []byte {
	b = appendString(b, weType, eventType)
	b = protowire.AppendTag(b, weObject, protowire.BytesType)
	if object == nil {
		return append(b, 0)
	}
	b = protowire.AppendVarint(b, uint64(sizeBytes(rawExtensionRaw, len(object))))
	return appendBytes(b, rawExtensionRaw, object)
}

// AppendWatchEventFunc is AppendWatchEvent for an object that appendObject
// writes directly into b, such as AppendEnvelopeFunc or a cached envelope.
// sizeHint is the object's expected size, as for AppendMessageFunc.
func AppendWatchEventFunc(b []byte, eventType string, sizeHint int, appendObject func([]byte) []byte) []byte {
	b = appendString(b, weType, eventType)
	hint := 0
	if sizeHint > 0 {
		hint = sizeBytes(rawExtensionRaw, sizeHint)
	}
	return AppendMessageFunc(b, weObject, hint, func(b []byte) []byte {
		return AppendMessageFunc(b, rawExtensionRaw, sizeHint, appendObject)
	})
}

// SizeWatchEvent reports the size of AppendWatchEvent's output for a
// non-nil object of objectSize bytes.
func SizeWatchEvent(eventType string, objectSize int) int {
	return sizeString(weType, eventType) + sizeBytes(weObject, sizeBytes(rawExtensionRaw, objectSize))
}

// ConsumeWatchEvent decodes a WatchEvent. Object aliases b. The five event
// types Kubernetes defines are returned without allocating.
func ConsumeWatchEvent(b []byte) (WatchEvent, error) {
	var e WatchEvent
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return WatchEvent{}, err
		}
		switch f.Num {
		case weType:
			var v []byte
			if v, err = f.AsBytes(); err == nil {
				e.Type = eventTypeString(v)
			}
		case weObject:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				err = consumeRawExtensionInto(&e.Object, body)
			}
		}
		if err != nil {
			return WatchEvent{}, err
		}
		b = b[n:]
	}
	return e, nil
}

func consumeRawExtensionInto(raw *[]byte, b []byte) error {
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return err
		}
		if f.Num == rawExtensionRaw {
			if *raw, err = f.AsBytes(); err != nil {
				return err
			}
		}
		b = b[n:]
	}
	return nil
}

// eventTypeString returns b as a string, sharing the constant for the event
// types Kubernetes sends (the switch on string(b) does not allocate).
func eventTypeString(b []byte) string {
	switch string(b) {
	case "ADDED":
		return "ADDED"
	case "MODIFIED":
		return "MODIFIED"
	case "DELETED":
		return "DELETED"
	case "BOOKMARK":
		return "BOOKMARK"
	case "ERROR":
		return "ERROR"
	}
	return string(b)
}
