package api

import (
	"strconv"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/table"
	"github.com/apisem/apisem/validation"
)

// Kind returns the kind of o: the Kind of the Resource that serves its
// type, or "" for a type of another package.
func Kind(o server.Object) string {
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

// objectMetaSchema is the patch strategy of metadata: finalizers merge as
// a set, ownerReferences by uid.
var objectMetaSchema = patch.ObjectMetaSchema()

var coreSchema = &patch.Schema{Fields: map[string]*patch.Schema{"metadata": objectMetaSchema}}

// Resources returns the served resources: core v1 namespaces (package
// namespace's, deleted as the store deletes), configmaps, secrets and events, then widgets.example.apisem.dev/v1. Each call returns new
// values the caller may keep.
func Resources() []*server.Resource {
	return []*server.Resource{
		namespace.Resource(),
		{
			Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
			Plural: "configmaps", Singular: "configmap", ShortNames: []string{"cm"},
			Schema:      configMapOpenAPI,
			Namespaced:  true,
			New:         func() server.Object { return &ConfigMap{} },
			DecodeProto: decodeConfigMap,
			Columns: []table.Column{table.NameColumn,
				{Name: "Data", Type: "string", Description: "The number of keys in data and binaryData.",
					Cell: func(o meta.Object, _ time.Time) any {
						c := o.(*ConfigMap)
						return int64(len(c.Data) + len(c.BinaryData))
					}},
				table.AgeColumn},
			PatchSchema: coreSchema,
			Validate:    validateConfigMap,
			// Each distinct error once, as kube-apiserver reports a
			// built-in kind's (a bad label is checked as a create's and
			// as an update's metadata).
			DistinctErrors: true,
		},
		{
			Version: "v1", Kind: "Secret", ListKind: "SecretList",
			Plural: "secrets", Singular: "secret",
			Schema:      secretOpenAPI,
			Namespaced:  true,
			New:         func() server.Object { return &Secret{} },
			DecodeProto: decodeSecret,
			Columns: []table.Column{table.NameColumn,
				{Name: "Type", Type: "string", Description: "The type of the secret, which says what its data holds.",
					Cell: func(o meta.Object, _ time.Time) any { return o.(*Secret).Type }},
				{Name: "Data", Type: "string", Description: "The number of keys in data.",
					Cell: func(o meta.Object, _ time.Time) any { return int64(len(o.(*Secret).Data)) }},
				table.AgeColumn},
			PatchSchema: coreSchema,
			Fields: map[string]func(server.Object) string{
				"type": func(o server.Object) string { return o.(*Secret).Type },
			},
			Default:        defaultSecret,
			Validate:       validateSecret,
			Warnings:       secretWarnings,
			DistinctErrors: true,
		},
		{
			Version: "v1", Kind: "Event", ListKind: "EventList",
			Plural: "events", Singular: "event", ShortNames: []string{"ev"},
			Schema: eventOpenAPI, Definitions: eventDefinitions,
			Namespaced:  true,
			New:         func() server.Object { return &Event{} },
			DecodeProto: decodeEvent,
			Columns:     eventColumns(),
			PatchSchema: coreSchema,
			Fields:      eventFields,
			// Kubernetes checks only that an Event's name is a path
			// segment (its strategy has no name rule).
			Names:          validation.NameIsPathSegment,
			Validate:       validateEvent,
			DistinctErrors: true,
		},
		{
			Group: "example.apisem.dev", Version: "v1", Kind: "Widget", ListKind: "WidgetList",
			Plural: "widgets", Singular: "widget", ShortNames: []string{"wd"}, Categories: []string{"all"},
			Schema: widgetOpenAPI, Definitions: widgetDefinitions,
			Namespaced: true, TypedListItems: true,
			New: func() server.Object { return &Widget{} },
			Columns: []table.Column{table.NameColumn,
				{Name: "Color", Type: "string", Description: "The widget's color.",
					Cell: func(o meta.Object, _ time.Time) any { return o.(*Widget).Spec.Color }},
				{Name: "Size", Type: "integer", Description: "The widget's size.",
					Cell: func(o meta.Object, _ time.Time) any { return o.(*Widget).Spec.Size }},
				{Name: "Ready", Type: "string", Priority: 1, Description: "Whether the widget is ready.",
					Cell: func(o meta.Object, _ time.Time) any { return strconv.FormatBool(o.(*Widget).Status.Ready) }},
				table.AgeColumn},
			Fields: map[string]func(server.Object) string{
				"spec.color": func(o server.Object) string { return o.(*Widget).Spec.Color },
			},
			Generation: true, RequireResourceVersion: true, StatusSubresource: true,
			Validate: validateWidget,
		},
	}
}
