package scale

import (
	"errors"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apisem/apisem/meta"
)

// The protobuf form of autoscaling/v1 Scale (k8s.io/api/autoscaling/v1
// generated.proto): Scale{metadata 1, spec 2, status 3},
// ScaleSpec{replicas 1}, ScaleStatus{replicas 1, selector 2}. As
// Kubernetes' generated code, it writes every field, zero or not.

// AppendProto appends the protobuf encoding of s (without envelope).
func (s *Scale) AppendProto(b []byte) []byte {
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, meta.AppendObjectMeta(nil, &s.ObjectMeta))
	var spec, st []byte
	spec = protowire.AppendTag(spec, 1, protowire.VarintType)
	spec = protowire.AppendVarint(spec, uint64(int64(s.Spec.Replicas)))
	st = protowire.AppendTag(st, 1, protowire.VarintType)
	st = protowire.AppendVarint(st, uint64(int64(s.Status.Replicas)))
	st = protowire.AppendTag(st, 2, protowire.BytesType)
	st = protowire.AppendString(st, s.Status.Selector)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, spec)
	b = protowire.AppendTag(b, 3, protowire.BytesType)
	return protowire.AppendBytes(b, st)
}

// SizeProto returns the length AppendProto appends.
func (s *Scale) SizeProto() int { return len(s.AppendProto(nil)) }

var errScaleWireType = errors.New("proto: wrong wireType for a Scale field")

// DecodeProto decodes the protobuf encoding of a Scale (without
// envelope). As Kubernetes' generated decoders, it skips unknown fields,
// keeps the last of a repeated scalar, and refuses a known field of the
// wrong wire type.
func DecodeProto(raw []byte) (*Scale, error) {
	s := &Scale{}
	err := protoFields(raw, func(num protowire.Number, typ protowire.Type, v []byte) error {
		if num < 1 || num > 3 {
			return nil
		}
		if typ != protowire.BytesType {
			return errScaleWireType
		}
		body, _ := protowire.ConsumeBytes(v)
		switch num {
		case 1:
			m, err := meta.ConsumeObjectMeta(body)
			s.ObjectMeta = m
			return err
		case 2:
			return protoFields(body, func(num protowire.Number, typ protowire.Type, v []byte) error {
				return protoInt32(num, 1, typ, v, &s.Spec.Replicas)
			})
		case 3:
			return protoFields(body, func(num protowire.Number, typ protowire.Type, v []byte) error {
				if num == 2 {
					if typ != protowire.BytesType {
						return errScaleWireType
					}
					sel, _ := protowire.ConsumeBytes(v)
					s.Status.Selector = string(sel)
					return nil
				}
				return protoInt32(num, 1, typ, v, &s.Status.Replicas)
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// protoFields calls f with each field of a message: its number, wire
// type and the bytes of its value; f is not called for unknown fields
// it is given (only the caller knows them), so it returns nil for them.
func protoFields(b []byte, f func(num protowire.Number, typ protowire.Type, v []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return protowire.ParseError(m)
		}
		if err := f(num, typ, b[:m]); err != nil {
			return err
		}
		b = b[m:]
	}
	return nil
}

// protoInt32 sets *dst from field want, a varint; other fields are
// skipped.
func protoInt32(num, want protowire.Number, typ protowire.Type, v []byte, dst *int32) error {
	if num != want {
		return nil
	}
	if typ != protowire.VarintType {
		return errScaleWireType
	}
	x, _ := protowire.ConsumeVarint(v)
	*dst = int32(x)
	return nil
}
