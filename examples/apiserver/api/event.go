package api

import (
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/table"
	"github.com/apisem/apisem/validation"
	"strconv"
	"strings"
	"time"

	"github.com/apisem/apisem/envelope"
	"google.golang.org/protobuf/encoding/protowire"
)

// Event is core v1 Event, served so that kubectl describe (which lists
// the events of what it describes) and client-go's event recorders work.
// Protobuf field numbers: metadata 1, involvedObject 2, reason 3,
// message 4, source 5, firstTimestamp 6, lastTimestamp 7, count 8, type 9,
// eventTime 10, series 11, action 12, related 13, reportingComponent 14,
// reportingInstance 15.
type Event struct {
	meta.TypeMeta
	meta.ObjectMeta    `json:"metadata"`
	InvolvedObject     ObjectReference  `json:"involvedObject"`
	Reason             string           `json:"reason,omitempty"`
	Message            string           `json:"message,omitempty"`
	Source             EventSource      `json:"source,omitempty"`
	FirstTimestamp     meta.Time        `json:"firstTimestamp,omitempty"`
	LastTimestamp      meta.Time        `json:"lastTimestamp,omitempty"`
	Count              int32            `json:"count,omitempty"`
	Type               string           `json:"type,omitempty"`
	EventTime          meta.MicroTime   `json:"eventTime,omitempty"`
	Series             *EventSeries     `json:"series,omitempty"`
	Action             string           `json:"action,omitempty"`
	Related            *ObjectReference `json:"related,omitempty"`
	ReportingComponent string           `json:"reportingComponent"`
	ReportingInstance  string           `json:"reportingInstance"`
}

// ObjectReference is core v1 ObjectReference (protobuf: kind 1,
// namespace 2, name 3, uid 4, apiVersion 5, resourceVersion 6,
// fieldPath 7).
type ObjectReference struct {
	Kind            string `json:"kind,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	FieldPath       string `json:"fieldPath,omitempty"`
}

// EventSource is core v1 EventSource (component 1, host 2).
type EventSource struct {
	Component string `json:"component,omitempty"`
	Host      string `json:"host,omitempty"`
}

// EventSeries is core v1 EventSeries (count 1, lastObservedTime 2).
type EventSeries struct {
	Count            int32          `json:"count,omitempty"`
	LastObservedTime meta.MicroTime `json:"lastObservedTime,omitempty"`
}

// Types returns the object's TypeMeta.
func (e *Event) Types() *meta.TypeMeta { return &e.TypeMeta }

// DeepCopyObject returns a deep copy of e.
func (e *Event) DeepCopyObject() server.Object { return e.DeepCopy() }

// DeepCopy returns a deep copy of e.
func (e *Event) DeepCopy() *Event {
	out := *e
	out.ObjectMeta = meta.ObjectMeta{}
	e.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if e.Series != nil {
		s := *e.Series
		out.Series = &s
	}
	if e.Related != nil {
		r := *e.Related
		out.Related = &r
	}
	return &out
}

func (r *ObjectReference) size() int {
	return sizeString(1, r.Kind) + sizeString(2, r.Namespace) + sizeString(3, r.Name) + sizeString(4, r.UID) +
		sizeString(5, r.APIVersion) + sizeString(6, r.ResourceVersion) + sizeString(7, r.FieldPath)
}

func (r *ObjectReference) appendProto(b []byte) []byte {
	b = appendString(b, 1, r.Kind)
	b = appendString(b, 2, r.Namespace)
	b = appendString(b, 3, r.Name)
	b = appendString(b, 4, r.UID)
	b = appendString(b, 5, r.APIVersion)
	b = appendString(b, 6, r.ResourceVersion)
	return appendString(b, 7, r.FieldPath)
}

func (s *EventSeries) size() int {
	return 1 + protowire.SizeVarint(uint64(int64(s.Count))) + sizeMessage(2, meta.SizeMicroTime(s.LastObservedTime))
}

func sizeInt32(num protowire.Number, v int32) int {
	return protowire.SizeTag(num) + protowire.SizeVarint(uint64(int64(v)))
}

func appendInt32(b []byte, num protowire.Number, v int32) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(int64(v)))
}

// AppendProto appends the protobuf encoding of e.
func (e *Event) AppendProto(b []byte) []byte {
	b = meta.AppendObjectMetadata(b, &e.ObjectMeta)
	b = appendMessage(b, 2, e.InvolvedObject.size(), e.InvolvedObject.appendProto)
	b = appendString(b, 3, e.Reason)
	b = appendString(b, 4, e.Message)
	b = appendMessage(b, 5, sizeString(1, e.Source.Component)+sizeString(2, e.Source.Host), func(b []byte) []byte {
		return appendString(appendString(b, 1, e.Source.Component), 2, e.Source.Host)
	})
	b = appendMessage(b, 6, meta.SizeTime(e.FirstTimestamp), func(b []byte) []byte { return meta.AppendTime(b, e.FirstTimestamp) })
	b = appendMessage(b, 7, meta.SizeTime(e.LastTimestamp), func(b []byte) []byte { return meta.AppendTime(b, e.LastTimestamp) })
	b = appendInt32(b, 8, e.Count)
	b = appendString(b, 9, e.Type)
	b = appendMessage(b, 10, meta.SizeMicroTime(e.EventTime), func(b []byte) []byte { return meta.AppendMicroTime(b, e.EventTime) })
	if s := e.Series; s != nil {
		b = appendMessage(b, 11, s.size(), func(b []byte) []byte {
			b = appendInt32(b, 1, s.Count)
			return appendMessage(b, 2, meta.SizeMicroTime(s.LastObservedTime), func(b []byte) []byte {
				return meta.AppendMicroTime(b, s.LastObservedTime)
			})
		})
	}
	b = appendString(b, 12, e.Action)
	if e.Related != nil {
		b = appendMessage(b, 13, e.Related.size(), e.Related.appendProto)
	}
	b = appendString(b, 14, e.ReportingComponent)
	return appendString(b, 15, e.ReportingInstance)
}

// SizeProto returns the length of e's protobuf encoding.
func (e *Event) SizeProto() int {
	n := meta.SizeObjectMetadata(&e.ObjectMeta) + sizeMessage(2, e.InvolvedObject.size()) + sizeString(3, e.Reason) + sizeString(4, e.Message) +
		sizeMessage(5, sizeString(1, e.Source.Component)+sizeString(2, e.Source.Host)) +
		sizeMessage(6, meta.SizeTime(e.FirstTimestamp)) + sizeMessage(7, meta.SizeTime(e.LastTimestamp)) +
		sizeInt32(8, e.Count) + sizeString(9, e.Type) + sizeMessage(10, meta.SizeMicroTime(e.EventTime)) +
		sizeString(12, e.Action) + sizeString(14, e.ReportingComponent) + sizeString(15, e.ReportingInstance)
	if e.Series != nil {
		n += sizeMessage(11, e.Series.size())
	}
	if e.Related != nil {
		n += sizeMessage(13, e.Related.size())
	}
	return n
}

func decodeObjectReference(f envelope.Field) (ObjectReference, error) {
	var r ObjectReference
	err := decodeSub(f, func(f envelope.Field) (err error) {
		switch f.Num {
		case 1:
			r.Kind, err = f.AsString()
		case 2:
			r.Namespace, err = f.AsString()
		case 3:
			r.Name, err = f.AsString()
		case 4:
			r.UID, err = f.AsString()
		case 5:
			r.APIVersion, err = f.AsString()
		case 6:
			r.ResourceVersion, err = f.AsString()
		case 7:
			r.FieldPath, err = f.AsString()
		}
		return err
	})
	return r, err
}

func decodeMicroTimeField(f envelope.Field) (meta.MicroTime, error) {
	body, err := f.AsBytes()
	if err != nil {
		return meta.MicroTime{}, err
	}
	return meta.ConsumeMicroTime(body)
}

func decodeEvent(b []byte) (server.Object, error) {
	e := &Event{}
	return decodeObject(b, e, func(f envelope.Field) (err error) {
		switch f.Num {
		case 2:
			e.InvolvedObject, err = decodeObjectReference(f)
		case 3:
			e.Reason, err = f.AsString()
		case 4:
			e.Message, err = f.AsString()
		case 5:
			err = decodeSub(f, func(f envelope.Field) (err error) {
				switch f.Num {
				case 1:
					e.Source.Component, err = f.AsString()
				case 2:
					e.Source.Host, err = f.AsString()
				}
				return err
			})
		case 6:
			e.FirstTimestamp, err = decodeTime(f)
		case 7:
			e.LastTimestamp, err = decodeTime(f)
		case 8:
			e.Count, err = f.AsInt32()
		case 9:
			e.Type, err = f.AsString()
		case 10:
			e.EventTime, err = decodeMicroTimeField(f)
		case 11:
			s := &EventSeries{}
			err = decodeSub(f, func(f envelope.Field) (err error) {
				switch f.Num {
				case 1:
					s.Count, err = f.AsInt32()
				case 2:
					s.LastObservedTime, err = decodeMicroTimeField(f)
				}
				return err
			})
			e.Series = s
		case 12:
			e.Action, err = f.AsString()
		case 13:
			var r ObjectReference
			if r, err = decodeObjectReference(f); err == nil {
				e.Related = &r
			}
		case 14:
			e.ReportingComponent, err = f.AsString()
		case 15:
			e.ReportingInstance, err = f.AsString()
		}
		return err
	})
}

// eventAge is the age of the event's last (or first) occurrence, as
// kubectl's LAST SEEN and FIRST SEEN columns print it.
func eventAge(e *Event, now time.Time, first bool) string {
	switch {
	case !first && e.Series != nil:
		return table.Age(e.Series.LastObservedTime.Time, now)
	case first && !e.FirstTimestamp.IsZero():
		return table.Age(e.FirstTimestamp.Time, now)
	case !first && !e.LastTimestamp.IsZero():
		return table.Age(e.LastTimestamp.Time, now)
	}
	return table.Age(e.EventTime.Time, now)
}

func eventColumns() []table.Column {
	ev := func(f func(*Event, time.Time) any) func(meta.Object, time.Time) any {
		return func(o meta.Object, now time.Time) any { return f(o.(*Event), now) }
	}
	return []table.Column{
		{Name: "Last Seen", Type: "string", Description: "When the event last occurred.",
			Cell: ev(func(e *Event, now time.Time) any { return eventAge(e, now, false) })},
		{Name: "Type", Type: "string", Description: "Normal or Warning.",
			Cell: ev(func(e *Event, _ time.Time) any { return e.Type })},
		{Name: "Reason", Type: "string", Description: "A short, machine understandable reason for the event.",
			Cell: ev(func(e *Event, _ time.Time) any { return e.Reason })},
		{Name: "Object", Type: "string", Description: "The object the event is about.",
			Cell: ev(func(e *Event, _ time.Time) any {
				return strings.ToLower(e.InvolvedObject.Kind) + "/" + e.InvolvedObject.Name
			})},
		{Name: "Subobject", Type: "string", Priority: 1, Description: "The part of the object the event is about.",
			Cell: ev(func(e *Event, _ time.Time) any { return e.InvolvedObject.FieldPath })},
		{Name: "Source", Type: "string", Priority: 1, Description: "The component that reported the event.",
			Cell: ev(func(e *Event, _ time.Time) any {
				if e.Source.Host == "" {
					return e.Source.Component
				}
				return e.Source.Component + ", " + e.Source.Host
			})},
		{Name: "Message", Type: "string", Description: "A human-readable description of the event.",
			Cell: ev(func(e *Event, _ time.Time) any { return strings.TrimSpace(e.Message) })},
		{Name: "First Seen", Type: "string", Priority: 1, Description: "When the event first occurred.",
			Cell: ev(func(e *Event, now time.Time) any { return eventAge(e, now, true) })},
		{Name: "Count", Type: "string", Priority: 1, Description: "How many times the event occurred.",
			Cell: ev(func(e *Event, _ time.Time) any {
				if e.Series != nil {
					return strconv.Itoa(int(e.Series.Count))
				}
				return strconv.Itoa(int(e.Count))
			})},
		{Name: "Name", Type: "string", Format: "name", Priority: 1, Description: table.NameDescription,
			Cell: ev(func(e *Event, _ time.Time) any { return e.Name })},
	}
}

// eventFields are the field selectors Kubernetes offers for events; kubectl
// describe selects on the involvedObject ones.
var eventFields = map[string]func(server.Object) string{
	"involvedObject.kind":            func(o server.Object) string { return o.(*Event).InvolvedObject.Kind },
	"involvedObject.namespace":       func(o server.Object) string { return o.(*Event).InvolvedObject.Namespace },
	"involvedObject.name":            func(o server.Object) string { return o.(*Event).InvolvedObject.Name },
	"involvedObject.uid":             func(o server.Object) string { return o.(*Event).InvolvedObject.UID },
	"involvedObject.apiVersion":      func(o server.Object) string { return o.(*Event).InvolvedObject.APIVersion },
	"involvedObject.resourceVersion": func(o server.Object) string { return o.(*Event).InvolvedObject.ResourceVersion },
	"involvedObject.fieldPath":       func(o server.Object) string { return o.(*Event).InvolvedObject.FieldPath },
	"reason":                         func(o server.Object) string { return o.(*Event).Reason },
	"reportingComponent":             func(o server.Object) string { return o.(*Event).ReportingComponent },
	"source":                         func(o server.Object) string { return o.(*Event).Source.Component },
	"type":                           func(o server.Object) string { return o.(*Event).Type },
}

// The length limits of an Event's strings (k8s.io/kubernetes
// pkg/apis/core/validation/events.go).
const (
	reportingInstanceLengthLimit = 128
	actionLengthLimit            = 128
	reasonLengthLimit            = 128
	messageLengthLimit           = 1024
)

// validateEvent checks an Event as Kubernetes checks one written through
// core v1 (ValidateEventCreate and ValidateEventUpdate with the v1 request
// version, which keep the old API's rules and check an update as a new
// Event). An Event without eventTime is of the old kind: only its
// involvedObject's namespace must agree with its own. One with eventTime
// must also name its reporter, action and reason.
func validateEvent(o, _ server.Object) []FieldError {
	e := o.(*Event)
	var errs []FieldError
	nsMismatch := func() {
		errs = append(errs, invalid("involvedObject.namespace", e.InvolvedObject.Namespace, "does not match event.namespace"))
	}
	if e.EventTime.IsZero() {
		if e.InvolvedObject.Namespace == "" {
			// Old clients write "default" for a cluster-scoped object.
			if e.Namespace != "" && e.Namespace != "default" {
				nsMismatch()
			}
		} else if e.Namespace != e.InvolvedObject.Namespace {
			nsMismatch()
		}
		return errs
	}
	if e.InvolvedObject.Namespace == "" && e.Namespace != "default" && e.Namespace != "kube-system" {
		nsMismatch()
	}
	if e.ReportingComponent == "" {
		errs = append(errs, required("reportingComponent", ""))
	}
	for _, m := range validation.IsQualifiedName(e.ReportingComponent) {
		errs = append(errs, invalid("reportingComponent", e.ReportingComponent, m))
	}
	errs = appendEventString(errs, "reportingInstance", e.ReportingInstance, true, reportingInstanceLengthLimit)
	errs = appendEventString(errs, "action", e.Action, true, actionLengthLimit)
	errs = appendEventString(errs, "reason", e.Reason, true, reasonLengthLimit)
	return appendEventString(errs, "message", e.Message, false, messageLengthLimit)
}

// appendEventString checks one of an Event's strings: present when
// needed, and at most limit bytes (the value is not repeated, as in
// Kubernetes' message).
func appendEventString(errs []FieldError, field, v string, needed bool, limit int) []FieldError {
	if needed && v == "" {
		errs = append(errs, required(field, ""))
	}
	if len(v) > limit {
		errs = append(errs, invalid(field, "", "can have at most "+strconv.Itoa(limit)+" characters"))
	}
	return errs
}
