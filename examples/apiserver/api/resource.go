package api

import (
	"strconv"
	"time"

	"github.com/apisem/apisem/patch"
)

// Resource is everything the server knows about one served resource.
type Resource struct {
	// Group is "" for the core group.
	Group, Version string
	// Kind and ListKind name the object and list types.
	Kind, ListKind string
	// Plural is the resource name in URLs; Singular and ShortNames are
	// what kubectl accepts besides it.
	Plural, Singular string
	ShortNames       []string
	Categories       []string
	// Namespaced resources live in namespaces; the others are cluster-scoped.
	Namespaced bool
	// DNSLabelNames restricts names to RFC 1123 labels (namespaces);
	// otherwise names are RFC 1123 subdomains.
	DNSLabelNames bool
	// TypedListItems: list items carry kind and apiVersion, as those of a
	// custom resource do. Core types' list items do not.
	TypedListItems bool

	// New returns an empty object of the resource's type.
	New func() Object
	// DecodeProto decodes an object's protobuf encoding (without
	// envelope); nil for a type without a protobuf form.
	DecodeProto func(raw []byte) (Object, error)

	// Columns describe the resource's Table, as kubectl prints it.
	Columns []Column

	// PatchSchema is the strategic merge patch strategy of the type's
	// fields; nil means strategic merge patch is not supported (as for
	// custom resources).
	PatchSchema *patch.Schema

	// Fields are the field-selector fields beyond metadata.name and
	// metadata.namespace.
	Fields map[string]func(Object) string

	// Finalizers reports whether an object is held by finalizers kept
	// outside metadata.finalizers (a Namespace's spec.finalizers); nil
	// when the type has none.
	Finalizers func(Object) bool

	// Prepare applies defaulting and the fields a client may not set:
	// old is nil on create, the stored object on update.
	Prepare func(obj, old Object)
	// Validate checks obj (old as for Prepare), after Prepare.
	Validate func(obj, old Object) []FieldError
}

// GroupVersion returns "group/version", or the version alone for the core
// group: the apiVersion of the resource's objects.
func (r *Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// Kind returns the kind of o: the Kind of the Resource that serves its
// type, or "" for a type of another package.
func Kind(o Object) string {
	switch o.(type) {
	case *Namespace:
		return "Namespace"
	case *ConfigMap:
		return "ConfigMap"
	case *Secret:
		return "Secret"
	case *Widget:
		return "Widget"
	case *Event:
		return "Event"
	}
	return ""
}

// Protobuf reports whether the resource has a protobuf form.
func (r *Resource) Protobuf() bool { return r.DecodeProto != nil }

// Verbs are the verbs every served resource supports, sorted as discovery
// lists them.
var Verbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// objectMetaSchema is the patch strategy of metadata: finalizers merge as
// a set, ownerReferences by uid.
var objectMetaSchema = &patch.Schema{Fields: map[string]*patch.Schema{
	"finalizers":      {MergeList: true},
	"ownerReferences": {MergeList: true, MergeKey: "uid"},
}}

var coreSchema = &patch.Schema{Fields: map[string]*patch.Schema{"metadata": objectMetaSchema}}

var namespaceSchema = &patch.Schema{Fields: map[string]*patch.Schema{
	"metadata": objectMetaSchema,
	"status": {Fields: map[string]*patch.Schema{
		"conditions": {MergeList: true, MergeKey: "type"},
	}},
}}

// Resources returns the served resources: core v1 namespaces, configmaps,
// secrets and events, then widgets.example.apisem.dev/v1. Each call returns new
// values the caller may keep.
func Resources() []*Resource {
	return []*Resource{
		{
			Version: "v1", Kind: "Namespace", ListKind: "NamespaceList",
			Plural: "namespaces", Singular: "namespace", ShortNames: []string{"ns"},
			DNSLabelNames: true,
			New:           func() Object { return &Namespace{} },
			DecodeProto:   decodeNamespace,
			Columns: []Column{nameColumn,
				{Name: "Status", Type: "string", Description: "The phase of the namespace: Active, or Terminating while it is being deleted.",
					Cell: func(o Object, _ time.Time) any { return o.(*Namespace).Status.Phase }},
				ageColumn},
			PatchSchema: namespaceSchema,
			Fields: map[string]func(Object) string{
				"status.phase": func(o Object) string { return o.(*Namespace).Status.Phase },
			},
			Finalizers: func(o Object) bool { return len(o.(*Namespace).Spec.Finalizers) > 0 },
			Prepare:    prepareNamespace,
		},
		{
			Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
			Plural: "configmaps", Singular: "configmap", ShortNames: []string{"cm"},
			Namespaced:  true,
			New:         func() Object { return &ConfigMap{} },
			DecodeProto: decodeConfigMap,
			Columns: []Column{nameColumn,
				{Name: "Data", Type: "string", Description: "The number of keys in data and binaryData.",
					Cell: func(o Object, _ time.Time) any {
						c := o.(*ConfigMap)
						return int64(len(c.Data) + len(c.BinaryData))
					}},
				ageColumn},
			PatchSchema: coreSchema,
			Validate:    validateConfigMap,
		},
		{
			Version: "v1", Kind: "Secret", ListKind: "SecretList",
			Plural: "secrets", Singular: "secret",
			Namespaced:  true,
			New:         func() Object { return &Secret{} },
			DecodeProto: decodeSecret,
			Columns: []Column{nameColumn,
				{Name: "Type", Type: "string", Description: "The type of the secret, which says what its data holds.",
					Cell: func(o Object, _ time.Time) any { return o.(*Secret).Type }},
				{Name: "Data", Type: "string", Description: "The number of keys in data.",
					Cell: func(o Object, _ time.Time) any { return int64(len(o.(*Secret).Data)) }},
				ageColumn},
			PatchSchema: coreSchema,
			Fields: map[string]func(Object) string{
				"type": func(o Object) string { return o.(*Secret).Type },
			},
			Prepare:  prepareSecret,
			Validate: validateSecret,
		},
		{
			Version: "v1", Kind: "Event", ListKind: "EventList",
			Plural: "events", Singular: "event", ShortNames: []string{"ev"},
			Namespaced:  true,
			New:         func() Object { return &Event{} },
			DecodeProto: decodeEvent,
			Columns:     eventColumns(),
			PatchSchema: coreSchema,
			Fields:      eventFields,
		},
		{
			Group: "example.apisem.dev", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
			Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Categories: []string{"all"},
			Namespaced: true, TypedListItems: true,
			New: func() Object { return &Widget{} },
			Columns: []Column{nameColumn,
				{Name: "Color", Type: "string", Description: "The widget's color.",
					Cell: func(o Object, _ time.Time) any { return o.(*Widget).Spec.Color }},
				{Name: "Size", Type: "integer", Description: "The widget's size.",
					Cell: func(o Object, _ time.Time) any { return o.(*Widget).Spec.Size }},
				{Name: "Ready", Type: "string", Priority: 1, Description: "Whether the widget is ready.",
					Cell: func(o Object, _ time.Time) any { return strconv.FormatBool(o.(*Widget).Status.Ready) }},
				ageColumn},
			Fields: map[string]func(Object) string{
				"spec.color": func(o Object) string { return o.(*Widget).Spec.Color },
			},
			Prepare:  prepareWidget,
			Validate: validateWidget,
		},
	}
}
