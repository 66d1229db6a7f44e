package api

import (
	"bytes"
	"encoding/base64"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/internal/jsonfast"
	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// ConfigMap is core v1 ConfigMap. The field order is Kubernetes' (and so
// is the JSON key order); protobuf field numbers are metadata 1, data 2,
// binaryData 3, immutable 4.
type ConfigMap struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Immutable       *bool             `json:"immutable,omitempty"`
	Data            map[string]string `json:"data,omitempty"`
	BinaryData      map[string][]byte `json:"binaryData,omitempty"`
}

// Types returns the object's TypeMeta.
func (c *ConfigMap) Types() *meta.TypeMeta { return &c.TypeMeta }

// DeepCopyObject returns a deep copy of c.
func (c *ConfigMap) DeepCopyObject() server.Object { return c.DeepCopy() }

// DeepCopy returns a deep copy of c.
func (c *ConfigMap) DeepCopy() *ConfigMap {
	out := &ConfigMap{TypeMeta: c.TypeMeta, Immutable: copyBool(c.Immutable)}
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Data = maps.Clone(c.Data)
	out.BinaryData = copyBytesMap(c.BinaryData)
	return out
}

// AppendProto appends the protobuf encoding of c.
func (c *ConfigMap) AppendProto(b []byte) []byte {
	b = meta.AppendObjectMetadata(b, &c.ObjectMeta)
	b = envelope.AppendStringMap(b, 2, c.Data)
	b = envelope.AppendBytesMap(b, 3, c.BinaryData)
	if c.Immutable != nil {
		b = appendBool(b, 4, *c.Immutable)
	}
	return b
}

// SizeProto returns the length of c's protobuf encoding.
func (c *ConfigMap) SizeProto() int {
	n := meta.SizeObjectMetadata(&c.ObjectMeta) + envelope.SizeStringMap(2, c.Data) + envelope.SizeBytesMap(3, c.BinaryData)
	if c.Immutable != nil {
		n += sizeBool(4)
	}
	return n
}

// UnmarshalJSONFast decodes a ConfigMap of the common shape (metadata's
// common members, data, immutable; see package jsonfast) without
// reflection, and declines anything else (negotiation.FastUnmarshaler).
func (c *ConfigMap) UnmarshalJSONFast(b []byte) bool {
	if !reflect.ValueOf(c).Elem().IsZero() {
		return false // the reflective decoder merges into what is there
	}
	var out ConfigMap
	var types uint32
	var seenMeta bool
	d := jsonfast.New(b)
	ok := d.Object(func(name []byte) bool {
		switch string(name) {
		case "metadata":
			if seenMeta {
				return false
			}
			seenMeta = true
			return d.ObjectMeta(&out.ObjectMeta)
		case "data":
			return d.StringMap(&out.Data)
		case "immutable":
			if out.Immutable != nil {
				return false
			}
			v, ok := d.Bool()
			out.Immutable = &v
			return ok
		}
		return d.TypeMember(name, &out.TypeMeta, &types)
	}) && d.End()
	if ok {
		*c = out
	}
	return ok
}

// AppendJSON appends c as encoding/json writes it, without reflection
// (server.JSONAppender): members in the struct's order, maps with their
// keys sorted.
func (c *ConfigMap) AppendJSON(dst []byte) ([]byte, error) {
	// Room for what it writes, in one allocation: the strings, and a
	// bound of everything else of a common ConfigMap.
	n := 256 + len(c.Name) + len(c.GenerateName) + len(c.Namespace) + len(c.UID) + len(c.ResourceVersion) +
		mapLen(c.Labels) + mapLen(c.Annotations) + mapLen(c.Data)
	for k, v := range c.BinaryData {
		n += len(k) + base64.StdEncoding.EncodedLen(len(v)) + 8
	}
	dst = slices.Grow(dst, n)
	start := len(dst)
	dst = append(dst, '{')
	if c.Kind != "" {
		dst = jsonvalue.AppendString(append(dst, `"kind":`...), c.Kind)
	}
	if c.APIVersion != "" {
		dst = appendComma(dst, start)
		dst = jsonvalue.AppendString(append(dst, `"apiVersion":`...), c.APIVersion)
	}
	dst = append(appendComma(dst, start), `"metadata":`...)
	dst, err := server.AppendMetaJSON(dst, &c.ObjectMeta)
	if err != nil {
		return dst, err
	}
	if c.Immutable != nil {
		dst = strconv.AppendBool(append(dst, `,"immutable":`...), *c.Immutable)
	}
	if len(c.Data) > 0 {
		dst = append(dst, `,"data":{`...)
		var arr [16]string // the keys of most ConfigMaps, without an allocation
		for i, k := range appendSortedKeys(arr[:0], c.Data) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(jsonvalue.AppendString(dst, k), ':')
			dst = jsonvalue.AppendString(dst, c.Data[k])
		}
		dst = append(dst, '}')
	}
	if len(c.BinaryData) > 0 {
		dst = append(dst, `,"binaryData":{`...)
		var arr [16]string
		for i, k := range appendSortedKeys(arr[:0], c.BinaryData) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(jsonvalue.AppendString(dst, k), ':')
			if v := c.BinaryData[k]; v == nil {
				dst = append(dst, "null"...)
			} else {
				dst = append(dst, '"')
				dst = base64.StdEncoding.AppendEncode(dst, v)
				dst = append(dst, '"')
			}
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendSortedKeys appends the keys of m to dst, sorted.
func appendSortedKeys[V any](dst []string, m map[string]V) []string {
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst)
	return dst
}

// mapLen is what the keys and values of m take, with their quotes and
// separators.
func mapLen(m map[string]string) int {
	n := 0
	for k, v := range m {
		n += len(k) + len(v) + 6
	}
	return n
}

// appendComma appends the comma before a member of the object that
// begins at dst[start], unless it is the first.
func appendComma(dst []byte, start int) []byte {
	if len(dst) > start+1 {
		return append(dst, ',')
	}
	return dst
}

func decodeConfigMap(b []byte) (server.Object, error) {
	c := &ConfigMap{}
	return decodeObject(b, c, func(f envelope.Field) (err error) {
		switch f.Num {
		case 2:
			c.Data, err = envelope.AddStringMapEntry(c.Data, f)
		case 3:
			c.BinaryData, err = envelope.AddBytesMapEntry(c.BinaryData, f)
		case 4:
			c.Immutable, err = decodeOptionalBool(f)
		}
		return err
	})
}

// validateConfigMap checks a ConfigMap as Kubernetes' ValidateConfigMap
// and ValidateConfigMapUpdate do, in their order: on update, when the old
// ConfigMap is immutable, its data may not change; then the keys of data
// (each also not in binaryData) and of binaryData, sorted here (Kubernetes
// walks the maps in random order), and the total size of the values,
// reported for the whole object: at field.NewPath(""), which prints as
// "[]".
func validateConfigMap(o, old server.Object) []FieldError {
	c := o.(*ConfigMap)
	var errs []FieldError
	if old != nil {
		if prev := old.(*ConfigMap); isTrue(prev.Immutable) {
			errs = frozen(c.Immutable,
				change{"data", !maps.Equal(c.Data, prev.Data)},
				change{"binaryData", !maps.EqualFunc(c.BinaryData, prev.BinaryData, bytes.Equal)})
		}
	}
	if !validKeys(c.Data) || !validKeys(c.BinaryData) || shareKey(c.Data, c.BinaryData) {
		for _, k := range sortedKeys(c.Data) {
			errs = appendKeyErrors(errs, "data", k)
			if _, dup := c.BinaryData[k]; dup {
				errs = append(errs, invalid("data["+k+"]", k, "duplicate of key present in binaryData"))
			}
		}
		for _, k := range sortedKeys(c.BinaryData) {
			errs = appendKeyErrors(errs, "binaryData", k)
		}
	}
	if valuesSize(c.Data)+valuesSize(c.BinaryData) > maxDataSize {
		errs = append(errs, status.TooLong("[]", maxDataSize))
	}
	return errs
}

// shareKey reports whether data and binaryData have a key in common.
func shareKey(data map[string]string, binary map[string][]byte) bool {
	for k := range binary {
		if _, ok := data[k]; ok {
			return true
		}
	}
	return false
}
