package negotiation

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
	"google.golang.org/protobuf/encoding/protowire"
)

// ErrNoConversion reports a conversion asked of a Result whose Target is
// TargetNone: the caller encodes such responses itself.
var ErrNoConversion = errors.New("negotiation: the result asks for no conversion")

// ErrNoObjectFunc reports a Table with includeObject=Object from a
// Converter without an Object function.
var ErrNoObjectFunc = errors.New("negotiation: Converter.Object is nil")

// ErrNoMetaProto reports a protobuf PartialObjectMetadata for an object
// whose Meta has no Proto.
var ErrNoMetaProto = errors.New("negotiation: protobuf PartialObjectMetadata needs Meta.Proto")

// Converter produces the conversions a client can ask for, Table and
// PartialObjectMetadata(List), for objects of type T. Meta is required;
// the rest is optional. A Converter is safe for concurrent use if its
// functions are.
//
// The zero Columns prints the default Name and Created At columns, which
// need only Meta; user-defined Columns replace them.
type Converter[T any] struct {
	// Meta returns what conversions need of an object's metadata.
	Meta func(obj T) Meta
	// Object returns the object's compact JSON, for Table rows with
	// includeObject=Object.
	Object func(obj T) ([]byte, error)
	// Columns are the Table columns; nil means DefaultColumns.
	Columns []Column[T]
	// EmptyRows writes the rows of an empty list's Table as [] rather
	// than null. Kubernetes' printers (those of its built-in types, and
	// custom resources' converter) make the rows up front and write [];
	// its default converter, and the definitions', append them one by
	// one and write null.
	EmptyRows bool
}

// Table converts objs into a Table for target (TargetTable or
// TargetTableV1beta1), with metadata list and a row per object whose
// object is chosen by include. For the Table of one object, pass its
// resourceVersion in list.
func (c *Converter[T]) Table(target Target, include IncludeObjectPolicy, list meta.ListMeta, objs []T) (*Table, error) {
	if !target.IsTable() {
		return nil, fmt.Errorf("negotiation: Table called for target %v", target)
	}
	t := &Table{Kind: "Table", APIVersion: target.APIVersion(), Metadata: list, ColumnDefinitions: c.columns()}
	if c.EmptyRows {
		t.Rows = make([]TableRow, 0, len(objs))
	}
	for _, obj := range objs {
		row, err := c.row(target, include, obj)
		if err != nil {
			return nil, err
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

func (c *Converter[T]) columns() []TableColumnDefinition {
	if c.Columns == nil {
		return DefaultColumns()
	}
	defs := make([]TableColumnDefinition, len(c.Columns))
	for i, col := range c.Columns {
		defs[i] = col.Definition
	}
	return defs
}

func (c *Converter[T]) row(target Target, include IncludeObjectPolicy, obj T) (TableRow, error) {
	m := c.Meta(obj)
	var row TableRow
	if c.Columns == nil {
		om := m.object()
		row.Cells = []any{om.Name, om.CreationTimestamp.UTC().Format(time.RFC3339)}
	} else {
		row.Cells = make([]any, len(c.Columns))
		for i := range c.Columns {
			if text := c.Columns[i].Text; text != nil {
				row.Cells[i] = text(obj)
			} else {
				row.Cells[i] = c.Columns[i].Cell(obj)
			}
		}
	}
	switch {
	case include == IncludeMetadata || m.initialEventsEnd():
		b, err := appendPartialJSON(nil, target.APIVersion(), m.JSON)
		if err != nil {
			return TableRow{}, err
		}
		row.Object = b
	case include == IncludeObject:
		if c.Object == nil {
			return TableRow{}, ErrNoObjectFunc
		}
		b, err := c.Object(obj)
		if err != nil {
			return TableRow{}, err
		}
		row.Object = b
	}
	return row, nil
}

// appendRow appends obj's row in JSON, as appendRowJSON writes c.row's,
// without making the row: no slice of cells, and the metadata of a
// PartialObjectMetadata compacted once, straight into b (or copied, when
// Meta says it is encoding/json's already). A list's Table is mostly
// rows (BenchmarkTableListBody).
func (c *Converter[T]) appendRow(b []byte, target Target, include IncludeObjectPolicy, obj T) ([]byte, error) {
	m := c.Meta(obj)
	b = append(b, `{"cells":[`...)
	if c.Columns == nil {
		om := m.object()
		b = jsonvalue.AppendString(b, om.Name)
		b = append(b, ',')
		b = jsonvalue.AppendString(b, om.CreationTimestamp.UTC().Format(time.RFC3339))
	} else {
		for i, col := range c.Columns {
			if i > 0 {
				b = append(b, ',')
			}
			if col.Text != nil {
				b = jsonvalue.AppendString(b, col.Text(obj))
				continue
			}
			var err error
			if b, err = appendCellJSON(b, col.Cell(obj)); err != nil {
				return nil, err
			}
		}
	}
	b = append(b, `],"object":`...)
	switch {
	case include == IncludeMetadata || m.initialEventsEnd():
		start := len(b)
		b = append(b, `{"kind":"PartialObjectMetadata","apiVersion":"`...)
		b = append(b, target.APIVersion()...)
		b = append(b, `","metadata":`...)
		switch {
		case m.JSON == nil:
			b = append(b, "{}"...)
		case m.Compact:
			b = append(b, m.JSON...)
		default:
			var ok bool
			if b, ok = appendCompactFast(b, m.JSON, true); !ok {
				// Invalid or deeply nested: encoding/json's error, or
				// its output, by the long way.
				p, err := appendPartialJSON(nil, target.APIVersion(), m.JSON)
				if err != nil {
					return nil, err
				}
				if b, err = appendRawJSON(b[:start], p); err != nil {
					return nil, err
				}
				return append(b, '}'), nil
			}
		}
		b = append(b, '}')
	case include == IncludeObject:
		if c.Object == nil {
			return nil, ErrNoObjectFunc
		}
		o, err := c.Object(obj)
		if err != nil {
			return nil, err
		}
		if o == nil {
			b = append(b, "null"...)
		} else if b, err = appendRawJSON(b, o); err != nil {
			return nil, err
		}
	default:
		b = append(b, "null"...)
	}
	return append(b, '}'), nil
}

// EncodeList returns the body of a list response converted as res asks: a
// Table or a PartialObjectMetadataList in res's media type (with res's
// pretty rule). include matters for Tables only.
func (c *Converter[T]) EncodeList(res Result, include IncludeObjectPolicy, list meta.ListMeta, objs []T) ([]byte, error) {
	switch res.Target {
	case TargetNone:
		return nil, ErrNoConversion
	case TargetTable, TargetTableV1beta1:
		t, err := c.Table(res.Target, include, list, objs)
		if err != nil {
			return nil, err
		}
		return encodeTable(res, t)
	case TargetPartialObjectMetadataList, TargetPartialObjectMetadataListV1beta1:
		if res.MediaType == Protobuf {
			return c.appendPartialListProto(nil, res.Target, list, objs)
		}
		b, err := c.appendPartialListJSON(nil, res.Target.APIVersion(), list, objs)
		if err != nil {
			return nil, err
		}
		return res.textBody(b)
	}
	return nil, status.NewNotAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%T)", objs))
}

// ListBody returns a list response converted as res asks, a Table or a
// PartialObjectMetadataList in JSON or YAML, in pieces for WriteList: the
// rows and items are made one at a time as it writes them. For a
// PartialObjectMetadataList in protobuf use ListParts; a Table has no
// protobuf form (406).
func (c *Converter[T]) ListBody(res Result, include IncludeObjectPolicy, list meta.ListMeta, objs []T) (ListBody, error) {
	var l ListBody
	switch res.Target {
	case TargetNone:
		return l, ErrNoConversion
	case TargetTable, TargetTableV1beta1:
		if res.MediaType == Protobuf {
			return l, errTableProtobuf()
		}
		target := res.Target
		l.Head = appendTableHead(nil, &Table{Kind: "Table", APIVersion: target.APIVersion(), Metadata: list, ColumnDefinitions: c.columns()})
		var buf []byte
		l.Item = func(i int) ([]byte, error) {
			var err error
			buf, err = c.appendRow(buf[:0], target, include, objs[i])
			return buf, err
		}
	case TargetPartialObjectMetadataList, TargetPartialObjectMetadataListV1beta1:
		if res.MediaType == Protobuf {
			return l, ErrNoProtobuf
		}
		apiVersion := res.Target.APIVersion()
		l.Head = append(l.Head, `{"kind":"PartialObjectMetadataList","apiVersion":"`...)
		l.Head = append(l.Head, apiVersion...)
		l.Head = append(l.Head, `","metadata":`...)
		l.Head = AppendListMetaJSON(l.Head, &list)
		l.Head = append(l.Head, `,"items":`...)
		var buf []byte
		l.Item = func(i int) ([]byte, error) {
			var err error
			buf, err = appendPartialJSON(buf[:0], apiVersion, c.Meta(objs[i]).JSON)
			return buf, err
		}
	default:
		return l, status.NewNotAcceptable(fmt.Sprintf("you requested PartialObjectMetadata, but the requested object is a list (%T)", objs))
	}
	// Kubernetes writes no items as null, and no rows as null or [].
	if l.Len = len(objs); l.Len == 0 && !(res.Target.IsTable() && c.EmptyRows) {
		l.Tail = []byte("null}")
	} else {
		l.Head = append(l.Head, '[')
		l.Tail = []byte("]}")
	}
	return l, nil
}

// ListParts returns a PartialObjectMetadataList in protobuf (res's target)
// in parts for WriteParts: the envelope, and each item's metadata, which
// Meta.Proto holds already encoded, with its field headers.
func (c *Converter[T]) ListParts(res Result, list meta.ListMeta, objs []T) ([]Part, error) {
	if res.MediaType != Protobuf || (res.Target != TargetPartialObjectMetadataList && res.Target != TargetPartialObjectMetadataListV1beta1) {
		return nil, fmt.Errorf("negotiation: ListParts for %v in %v", res.Target, res.MediaType)
	}
	beta := res.Target == TargetPartialObjectMetadataListV1beta1
	itemField := protowire.Number(partialListItems)
	if beta {
		itemField = partialListItemsBeta
	}
	parts := make([]Part, len(objs)+2)
	items := parts[1 : len(objs)+1]
	heads := make([]byte, 0, len(objs)*(2*binary.MaxVarintLen32+2))
	size := 0
	for i, obj := range objs {
		m := c.Meta(obj).Proto
		if m == nil {
			return nil, ErrNoMetaProto
		}
		start := len(heads)
		heads = protowire.AppendTag(heads, itemField, protowire.BytesType)
		heads = protowire.AppendVarint(heads, uint64(protowire.SizeTag(partialMetadata)+protowire.SizeBytes(len(m))))
		heads = protowire.AppendTag(heads, partialMetadata, protowire.BytesType)
		heads = protowire.AppendVarint(heads, uint64(len(m)))
		items[i] = Part{Sep: heads[start:len(heads):len(heads)], Plain: m}
		size += items[i].Len()
	}
	// Kubernetes writes fields in number order: v1 has the list metadata
	// first, v1beta1 the items.
	lm := &list
	var lmField []byte
	if beta {
		lmField = protowire.AppendTag(nil, partialListMetaBeta, protowire.BytesType)
		lmField = protowire.AppendVarint(lmField, uint64(meta.SizeListMeta(lm)))
		lmField = meta.AppendListMeta(lmField, lm)
	} else {
		lmField = envelope.AppendListMetadata(nil, lm)
	}
	size += len(lmField)
	head := envelope.AppendEnvelopeHead(nil, res.Target.APIVersion(), "PartialObjectMetadataList", size)
	tail := []byte(nil)
	if beta {
		tail = lmField
	} else {
		head = append(head, lmField...)
	}
	parts[0].Plain = head
	parts[len(parts)-1].Plain = envelope.AppendEnvelopeTail(tail)
	return parts, nil
}

// EncodeObject returns the body of a single-object response converted as
// res asks: a one-row Table (its metadata holding the object's
// resourceVersion) or a PartialObjectMetadata.
func (c *Converter[T]) EncodeObject(res Result, include IncludeObjectPolicy, obj T) ([]byte, error) {
	return c.encodeObject(res, include, obj, true)
}

func (c *Converter[T]) encodeObject(res Result, include IncludeObjectPolicy, obj T, headers bool) ([]byte, error) {
	switch res.Target {
	case TargetNone:
		return nil, ErrNoConversion
	case TargetTable, TargetTableV1beta1:
		row, err := c.row(res.Target, include, obj)
		if err != nil {
			return nil, err
		}
		m := c.Meta(obj)
		t := &Table{
			Kind: "Table", APIVersion: res.Target.APIVersion(),
			Metadata: meta.ListMeta{ResourceVersion: m.object().ResourceVersion},
			Rows:     []TableRow{row},
		}
		if headers {
			t.ColumnDefinitions = c.columns()
		}
		return encodeTable(res, t)
	case TargetPartialObjectMetadata, TargetPartialObjectMetadataV1beta1:
		m := c.Meta(obj)
		if res.MediaType == Protobuf {
			return appendPartialProto(nil, res.Target.APIVersion(), m.Proto)
		}
		b, err := appendPartialJSON(nil, res.Target.APIVersion(), m.JSON)
		if err != nil {
			return nil, err
		}
		return res.textBody(b)
	}
	return nil, status.NewNotAcceptable(fmt.Sprintf("you requested PartialObjectMetadataList, but the requested object is not a list (%T)", obj))
}

// WatchEncoder converts the objects of one watch stream's events. Create
// one per stream: a Table stream sends its column definitions in the
// first event only. A WatchEncoder is not safe for concurrent use.
type WatchEncoder[T any] struct {
	c       *Converter[T]
	res     Result
	include IncludeObjectPolicy
	sent    bool
}

// NewWatchEncoder returns the encoder of the event objects of a watch
// stream that negotiated res (a Table or PartialObjectMetadata target).
// ERROR events are not converted: use StreamWriter.WriteError.
func (c *Converter[T]) NewWatchEncoder(res Result, include IncludeObjectPolicy) *WatchEncoder[T] {
	return &WatchEncoder[T]{c: c, res: res, include: include}
}

// Encode returns an event's object: a one-row Table, whose column
// definitions are null after the first event, or a PartialObjectMetadata.
// Watch streams are never pretty-printed.
func (w *WatchEncoder[T]) Encode(obj T) ([]byte, error) {
	res := w.res
	res.Pretty = false
	b, err := w.c.encodeObject(res, w.include, obj, !w.sent)
	if err == nil {
		w.sent = true
	}
	return b, err
}

// errTableProtobuf is Kubernetes' 406 for a Table in protobuf.
func errTableProtobuf() error {
	return status.NewNotAcceptable("object *v1.Table does not implement the protobuf marshalling interface and cannot be encoded to a protobuf message")
}

// encodeTable writes t in res's media type. Tables have no protobuf form.
func encodeTable(res Result, t *Table) ([]byte, error) {
	if res.MediaType == Protobuf {
		return nil, errTableProtobuf()
	}
	b, err := appendTableJSON(make([]byte, 0, tableJSONSizeHint(t)), t)
	if err != nil {
		return nil, err
	}
	return res.textBody(b)
}

// textBody renders freshly encoded compact JSON (which it may append to)
// in res's media type.
func (res Result) textBody(b []byte) ([]byte, error) {
	if res.MediaType == JSON && !res.Pretty && !res.Stream {
		return append(b, '\n'), nil
	}
	if res.Stream {
		return b, nil
	}
	return res.fromJSON(b)
}

// appendPartialJSON appends a PartialObjectMetadata of apiVersion holding
// the metadata JSON meta (validated and compacted; nil is {}).
func appendPartialJSON(b []byte, apiVersion string, meta []byte) ([]byte, error) {
	b = append(b, `{"kind":"PartialObjectMetadata","apiVersion":"`...)
	b = append(b, apiVersion...)
	b = append(b, `","metadata":`...)
	if meta == nil {
		return append(b, "{}}"...), nil
	}
	b, err := appendCompactJSON(b, meta)
	if err != nil {
		return nil, fmt.Errorf("negotiation: metadata JSON: %w", err)
	}
	return append(b, '}'), nil
}

func (c *Converter[T]) appendPartialListJSON(b []byte, apiVersion string, list meta.ListMeta, objs []T) ([]byte, error) {
	b = append(b, `{"kind":"PartialObjectMetadataList","apiVersion":"`...)
	b = append(b, apiVersion...)
	b = append(b, `","metadata":`...)
	b = AppendListMetaJSON(b, &list)
	b = append(b, `,"items":`...)
	if len(objs) == 0 {
		return append(b, "null}"...), nil
	}
	for i, obj := range objs {
		if i == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		var err error
		if b, err = appendPartialJSON(b, apiVersion, c.Meta(obj).JSON); err != nil {
			return nil, err
		}
	}
	return append(b, "]}"...), nil
}

// Field numbers of PartialObjectMetadata and PartialObjectMetadataList. The
// v1beta1 list swaps them.
const (
	partialMetadata      = 1
	partialListMetadata  = 1
	partialListItems     = 2
	partialListItemsBeta = 1
	partialListMetaBeta  = 2
)

// appendPartialProto appends the envelope of a PartialObjectMetadata whose
// ObjectMeta message is meta.
func appendPartialProto(b []byte, apiVersion string, meta []byte) ([]byte, error) {
	if meta == nil {
		return nil, ErrNoMetaProto
	}
	size := protowire.SizeTag(partialMetadata) + protowire.SizeBytes(len(meta))
	return envelope.AppendEnvelopeFunc(b, apiVersion, "PartialObjectMetadata", size, func(b []byte) []byte {
		return appendPartialBody(b, meta)
	}), nil
}

func appendPartialBody(b, meta []byte) []byte {
	b = protowire.AppendTag(b, partialMetadata, protowire.BytesType)
	return protowire.AppendBytes(b, meta)
}

func (c *Converter[T]) appendPartialListProto(b []byte, target Target, list meta.ListMeta, objs []T) ([]byte, error) {
	metas := make([][]byte, len(objs))
	size := 0
	for i, obj := range objs {
		m := c.Meta(obj).Proto
		if m == nil {
			return nil, ErrNoMetaProto
		}
		metas[i] = m
		item := protowire.SizeTag(partialMetadata) + protowire.SizeBytes(len(m))
		size += protowire.SizeTag(partialListItems) + protowire.SizeBytes(item)
	}
	lm := &list
	size += protowire.SizeTag(partialListMetadata) + protowire.SizeBytes(meta.SizeListMeta(lm))
	beta := target == TargetPartialObjectMetadataListV1beta1
	return envelope.AppendEnvelopeFunc(b, target.APIVersion(), "PartialObjectMetadataList", size, func(b []byte) []byte {
		// Kubernetes writes fields in number order: v1 has the list
		// metadata first, v1beta1 the items.
		if !beta {
			b = envelope.AppendListMetadata(b, lm)
		}
		itemField := protowire.Number(partialListItems)
		if beta {
			itemField = partialListItemsBeta
		}
		for _, m := range metas {
			b = protowire.AppendTag(b, itemField, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(protowire.SizeTag(partialMetadata)+protowire.SizeBytes(len(m))))
			b = appendPartialBody(b, m)
		}
		if beta {
			b = protowire.AppendTag(b, partialListMetaBeta, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(meta.SizeListMeta(lm)))
			b = meta.AppendListMeta(b, lm)
		}
		return b
	}), nil
}
