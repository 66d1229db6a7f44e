package negotiation

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/apisem/apisem/envelope"
	kjson "sigs.k8s.io/json"
)

// InitialEventsEndAnnotation is the annotation of the bookmark that ends a
// watch's initial events.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// MetaFromJSON reads the Meta of an object from its JSON encoding, for
// servers that keep objects encoded: the metadata member as it is, its
// name, creationTimestamp and resourceVersion, and the initial-events-end
// annotation. Proto is left empty. Field names are case-sensitive, as in
// Kubernetes' decoder.
func MetaFromJSON(obj []byte) (Meta, error) {
	var o struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(obj, &o); err != nil {
		return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
	}
	var m struct {
		Name              string            `json:"name"`
		ResourceVersion   string            `json:"resourceVersion"`
		CreationTimestamp *time.Time        `json:"creationTimestamp"`
		Annotations       map[string]string `json:"annotations"`
	}
	if len(o.Metadata) > 0 {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(o.Metadata, &m); err != nil {
			return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
		}
	}
	meta := Meta{
		Name:             m.Name,
		ResourceVersion:  m.ResourceVersion,
		JSON:             o.Metadata,
		InitialEventsEnd: m.Annotations[InitialEventsEndAnnotation] == "true",
	}
	if m.CreationTimestamp != nil {
		meta.CreationTimestamp = *m.CreationTimestamp
	}
	if string(o.Metadata) == "null" {
		meta.JSON = nil
	}
	return meta, nil
}

// MetaFromProtobuf reads the Meta of an object from its protobuf envelope:
// Proto is the object's field 1 (its ObjectMeta) as it is, aliasing obj,
// and name, creationTimestamp, resourceVersion and the initial-events-end
// annotation are decoded from it. JSON is left empty.
func MetaFromProtobuf(obj []byte) (Meta, error) {
	env, err := envelope.ConsumeEnvelopeView(obj) // only Raw is read: no copy of the type
	if err != nil {
		return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
	}
	var raw []byte
	err = envelope.RangeFields(env.Raw, func(f envelope.Field) error {
		if f.Num != 1 {
			return nil
		}
		var err error
		raw, err = f.AsBytes()
		return err
	})
	if err != nil {
		return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
	}
	if raw == nil {
		raw = []byte{}
	}
	om, err := envelope.ConsumeObjectMeta(raw)
	if err != nil {
		return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
	}
	return Meta{
		Name:              om.Name,
		CreationTimestamp: om.CreationTimestamp,
		ResourceVersion:   om.ResourceVersion,
		Proto:             raw,
		InitialEventsEnd:  om.Annotations[InitialEventsEndAnnotation] == "true",
	}, nil
}
