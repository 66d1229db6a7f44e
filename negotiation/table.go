package negotiation

import (
	"encoding/json"
	"strconv"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

// Table is metav1.Table (identical in meta.k8s.io/v1 and v1beta1): rows of
// cells under column definitions, the server-side printing kubectl asks
// for. It has no protobuf form.
type Table struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	// Metadata is copied from the list (resourceVersion, continue,
	// remainingItemCount), or holds the object's resourceVersion for the
	// Table of one object.
	Metadata meta.ListMeta `json:"metadata"`
	// ColumnDefinitions is null in every watch event but the first.
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	// Rows is null for an empty list, as Kubernetes' default converter
	// writes it, or [] (Converter.EmptyRows), as its printers do.
	Rows []TableRow `json:"rows"`
}

// TableColumnDefinition is metav1.TableColumnDefinition. All five fields
// are always written.
type TableColumnDefinition struct {
	Name string `json:"name"`
	// Type is an OpenAPI type: string, integer, number, boolean, date.
	Type string `json:"type"`
	// Format is an OpenAPI format; "name" marks the primary name column.
	Format      string `json:"format"`
	Description string `json:"description"`
	// Priority orders columns by importance: 0 is shown by default,
	// higher only in wide output.
	Priority int32 `json:"priority"`
}

// TableRow is metav1.TableRow.
type TableRow struct {
	// Cells has one value per column: a string, number, bool, or any
	// JSON value.
	Cells      []any               `json:"cells"`
	Conditions []TableRowCondition `json:"conditions,omitempty"`
	// Object is the row's object as JSON (a PartialObjectMetadata, the
	// full object, or nil, which is written as null).
	Object json.RawMessage `json:"object"`
}

// TableRowCondition is metav1.TableRowCondition. Kubernetes defines one
// type, "Completed", with status "True", "False" or "Unknown".
type TableRowCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// The descriptions of the default columns: the documentation of
// ObjectMeta's name and creationTimestamp, as Kubernetes sends them.
const (
	NameColumnDescription      = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	CreatedAtColumnDescription = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// NameColumn is the definition of the Name column Kubernetes prints first
// for every resource. User-defined columns usually start with it.
func NameColumn() TableColumnDefinition {
	return TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: NameColumnDescription}
}

// DefaultColumns returns the columns of a resource without its own: Name
// and Created At, whose cells are the name and the creation time in
// RFC 3339, UTC.
func DefaultColumns() []TableColumnDefinition {
	return []TableColumnDefinition{
		NameColumn(),
		{Name: "Created At", Type: "date", Description: CreatedAtColumnDescription},
	}
}

// IncludeObjectPolicy says what each Table row carries as its object: the
// includeObject query parameter.
type IncludeObjectPolicy uint8

const (
	// IncludeMetadata ("Metadata" or empty, the default) puts a
	// PartialObjectMetadata in each row.
	IncludeMetadata IncludeObjectPolicy = iota
	// IncludeNone ("None") leaves the object null.
	IncludeNone
	// IncludeObject ("Object") puts the full object in each row.
	IncludeObject
)

// ParseIncludeObject parses the includeObject query parameter
// (case-sensitive). Other values are Kubernetes' 400:
//
//	Unable to convert to Table as requested: includeObject: Invalid value: "foo": must be 'Metadata', 'Object', 'None', or empty
//
// Kubernetes reads the parameter only for Table responses; so should the
// caller.
func ParseIncludeObject(value string) (IncludeObjectPolicy, error) {
	switch value {
	case "", "Metadata":
		return IncludeMetadata, nil
	case "None":
		return IncludeNone, nil
	case "Object":
		return IncludeObject, nil
	}
	fe := status.InvalidValue("includeObject", value, "must be 'Metadata', 'Object', 'None', or empty")
	return IncludeMetadata, status.NewBadRequest("Unable to convert to Table as requested: " + fe.Error())
}

func (p IncludeObjectPolicy) String() string {
	switch p {
	case IncludeMetadata:
		return "Metadata"
	case IncludeNone:
		return "None"
	case IncludeObject:
		return "Object"
	}
	return "IncludeObjectPolicy(" + strconv.Itoa(int(p)) + ")"
}

// Meta is what conversions need to know of one object: its metadata, and
// that metadata already encoded (servers usually cache both encodings).
// negotiation never sees the user's types.
type Meta struct {
	// ObjectMeta is the object's metadata, only read: name and
	// creationTimestamp fill the default columns, resourceVersion is the
	// Table metadata of a single object, and the annotation
	// meta.InitialEventsAnnotation marks the bookmark that ends a watch's
	// initial events, whose Table row always carries metadata only (it is
	// not part of the resource's state). nil reads as empty metadata.
	ObjectMeta *meta.ObjectMeta
	// JSON is the object's metadata (the value of its "metadata" member)
	// as compact JSON, for PartialObjectMetadata in JSON and YAML. nil is
	// written as {}.
	JSON []byte
	// Proto is the object's ObjectMeta message (the bytes of field 1 of
	// any Kubernetes object), for protobuf PartialObjectMetadata.
	Proto []byte
	// Compact says JSON is as encoding/json.Marshal writes it (compact,
	// with <, > and & escaped), so that a list's Table rows copy it
	// rather than check and compact it again.
	Compact bool
}

// object returns m's metadata, empty when unset.
func (m *Meta) object() *meta.ObjectMeta {
	if m.ObjectMeta == nil {
		return &meta.ObjectMeta{}
	}
	return m.ObjectMeta
}

// initialEventsEnd reports whether m is the bookmark that ends a watch's
// initial events.
func (m *Meta) initialEventsEnd() bool {
	return m.object().Annotations[meta.InitialEventsAnnotation] == "true"
}

// Column is a user-defined Table column: its definition and how to compute
// its cell from an object.
type Column[T any] struct {
	Definition TableColumnDefinition
	// Cell returns the cell: a string, number, bool, or any value that
	// encoding/json can encode.
	Cell func(obj T) any
	// Text, when set, returns the cell of a column of strings and is used
	// instead of Cell: a string returned as any is a heap copy of its
	// header per row, which a list's Table has thousands of.
	Text func(obj T) string
}
