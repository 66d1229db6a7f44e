package envelope

import (
	"github.com/apisem/apisem/meta"
	"google.golang.org/protobuf/encoding/protowire"
)

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

// Lists. Every Kubernetes XxxList is {metadata = 1: ListMeta, items = 2:
// repeated Xxx}: the list metadata first, then each item as a
// length-delimited message, in order.
const (
	listMetadata = 1
	listItems    = 2
)

// AppendListMetadata appends m as a list's metadata field. Write it before
// the items.
func AppendListMetadata(b []byte, m *meta.ListMeta) []byte {
	b = protowire.AppendTag(b, listMetadata, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(meta.SizeListMeta(m)))
	return meta.AppendListMeta(b, m)
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
func ConsumeList(b []byte, item func([]byte) error) (meta.ListMeta, error) {
	var m meta.ListMeta
	for len(b) > 0 {
		f, n, err := ConsumeField(b)
		if err != nil {
			return meta.ListMeta{}, err
		}
		switch f.Num {
		case listMetadata:
			var body []byte
			if body, err = f.AsBytes(); err == nil {
				err = metaError(meta.MergeListMeta(&m, body))
			}
		case listItems:
			var body []byte
			if body, err = f.AsBytes(); err == nil && item != nil {
				err = item(body)
			}
		}
		if err != nil {
			return meta.ListMeta{}, err
		}
		b = b[n:]
	}
	return m, nil
}
