package builtin

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// The k8s.io/api types carry their protobuf form (the generated Marshal
// and Unmarshal methods), in which metadata is field 1.
const metadataField protowire.Number = 1

type protoValue interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

var _ server.ProtoObject = (*Object)(nil)

// AppendProto appends the protobuf form of o (without an envelope), as
// kube-apiserver writes it: Value's, with ObjectMeta's metadata.
func (o *Object) AppendProto(b []byte) []byte {
	pv, ok := o.Value.(protoValue)
	if !ok {
		return b
	}
	raw, err := pv.Marshal()
	if err != nil {
		return b
	}
	// Value's empty metadata comes first: replace it with ours.
	if num, typ, n := protowire.ConsumeTag(raw); n > 0 && num == metadataField && typ == protowire.BytesType {
		if _, m := protowire.ConsumeBytes(raw[n:]); m > 0 {
			raw = raw[n+m:]
		}
	}
	b = protowire.AppendTag(b, metadataField, protowire.BytesType)
	mb := meta.AppendObjectMeta(nil, &o.ObjectMeta)
	b = protowire.AppendBytes(b, mb)
	return append(b, raw...)
}

// SizeProto returns the length AppendProto appends.
func (o *Object) SizeProto() int { return len(o.AppendProto(nil)) }

// decodeProto returns the object of k whose protobuf form is raw.
func (k *kind) decodeProto(raw []byte) (server.Object, error) {
	v := k.newValue()
	pv, ok := v.(protoValue)
	if !ok {
		return nil, fmt.Errorf("builtin: %s has no protobuf form", k.Kind)
	}
	if err := pv.Unmarshal(raw); err != nil {
		return nil, err
	}
	clearMeta(v)
	o := &Object{Value: v}
	// The metadata, read again into ours; a repeated field merges, as
	// protobuf's do, which Kubernetes' clients never send.
	for b := raw; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		if num == metadataField && typ == protowire.BytesType {
			mb, _ := protowire.ConsumeBytes(b)
			om, err := meta.ConsumeObjectMeta(mb)
			if err != nil {
				return nil, err
			}
			o.ObjectMeta = om
		}
		b = b[m:]
	}
	return o, nil
}
