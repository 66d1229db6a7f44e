package negotiation

import (
	"encoding/json"
	"fmt"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	kjson "sigs.k8s.io/json"
)

// MetaFromJSON reads the Meta of an object from its JSON encoding, for
// servers that keep objects encoded: the metadata member as it is, and
// decoded. Proto is left empty. Field names are case-sensitive, as in
// Kubernetes' decoder.
func MetaFromJSON(obj []byte) (Meta, error) {
	var o struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(obj, &o); err != nil {
		return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
	}
	m := Meta{ObjectMeta: new(meta.ObjectMeta), JSON: o.Metadata}
	if len(o.Metadata) > 0 {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(o.Metadata, m.ObjectMeta); err != nil {
			return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
		}
	}
	if string(o.Metadata) == "null" {
		m.JSON = nil
	}
	return m, nil
}

// MetaFromProtobuf reads the Meta of an object from its protobuf envelope:
// Proto is the object's field 1 (its ObjectMeta) as it is, aliasing obj,
// and decoded with meta.ConsumeObjectMeta. JSON is left empty.
func MetaFromProtobuf(obj []byte) (Meta, error) {
	env, err := envelope.ConsumeEnvelopeView(obj) // only Raw is read: no copy of the type
	if err != nil {
		return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
	}
	var raw []byte
	err = envelope.RangeFields(env.Raw, func(f envelope.Field) error {
		if f.Num != meta.ObjectMetadataField {
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
	om, err := meta.ConsumeObjectMeta(raw)
	if err != nil {
		return Meta{}, fmt.Errorf("negotiation: reading object metadata: %w", err)
	}
	return Meta{ObjectMeta: &om, Proto: raw}, nil
}
