package api

import (
	"github.com/apisem/apisem/openapi"
)

// The OpenAPI schemas of the served types: the fields, formats and
// Kubernetes extensions a real cluster publishes for them, with
// descriptions of our own. kubectl explain prints them.

func str(desc string) *openapi.Schema { return &openapi.Schema{Type: "string", Description: desc} }

func ref(name, desc string) *openapi.Schema { return &openapi.Schema{Ref: name, Description: desc} }

func boolean(desc string) *openapi.Schema { return &openapi.Schema{Type: "boolean", Description: desc} }

func integer(format, desc string) *openapi.Schema {
	return &openapi.Schema{Type: "integer", Format: format, Description: desc}
}

func stringMap(desc string) *openapi.Schema {
	return &openapi.Schema{Type: "object", Description: desc, AdditionalProperties: &openapi.Schema{Type: "string", Default: ""}}
}

func bytesMap(desc string) *openapi.Schema {
	return &openapi.Schema{Type: "object", Description: desc, AdditionalProperties: &openapi.Schema{Type: "string", Format: "byte"}}
}

const (
	objectReferenceSchema = "io.k8s.api.core.v1.ObjectReference"
	eventSourceSchema     = "io.k8s.api.core.v1.EventSource"
	eventSeriesSchema     = "io.k8s.api.core.v1.EventSeries"
	widgetSpecSchema      = "dev.apisem.example.v1.WidgetSpec"
	widgetStatusSchema    = "dev.apisem.example.v1.WidgetStatus"
)

var configMapOpenAPI = &openapi.Schema{Type: "object",
	Description: "ConfigMap holds configuration data for workloads to consume.",
	Properties: map[string]*openapi.Schema{
		"binaryData": bytesMap("Binary values by key; keys must not also appear in data."),
		"data":       stringMap("UTF-8 values by key; keys consist of alphanumerics, '-', '_' or '.'."),
		"immutable":  boolean("When true, data and binaryData cannot be changed; only metadata can."),
	}}

var secretOpenAPI = &openapi.Schema{Type: "object",
	Description: "Secret holds a small amount of sensitive data.",
	Properties: map[string]*openapi.Schema{
		"data":       bytesMap("Base64-encoded values by key."),
		"immutable":  boolean("When true, data cannot be changed; only metadata can."),
		"stringData": stringMap("Write-only plain-text values, merged into data on write and never returned."),
		"type":       str("What the data holds, e.g. Opaque (the default) or kubernetes.io/tls."),
	}}

var eventOpenAPI = &openapi.Schema{Type: "object",
	Description: "Event reports something that happened to an object.",
	Required:    []string{"metadata", "involvedObject"},
	Properties: map[string]*openapi.Schema{
		"action":             str("What was done, or failed, to the object."),
		"count":              integer("int32", "How many times the event occurred."),
		"eventTime":          ref(openapi.MicroTimeSchema, "When the event was first observed."),
		"firstTimestamp":     ref(openapi.TimeSchema, "When the event was first recorded."),
		"involvedObject":     &openapi.Schema{Ref: objectReferenceSchema, Default: map[string]any{}, Description: "The object the event is about."},
		"lastTimestamp":      ref(openapi.TimeSchema, "When the event most recently occurred."),
		"message":            str("A human-readable description of the event."),
		"reason":             str("A short CamelCase reason for the event."),
		"related":            ref(objectReferenceSchema, "A second object the event concerns, if any."),
		"reportingComponent": &openapi.Schema{Type: "string", Default: "", Description: "The controller that emitted the event."},
		"reportingInstance":  &openapi.Schema{Type: "string", Default: "", Description: "The instance of the controller that emitted the event."},
		"series":             ref(eventSeriesSchema, "Data about the series of events this one belongs to, if any."),
		"source":             &openapi.Schema{Ref: eventSourceSchema, Default: map[string]any{}, Description: "The component reporting the event."},
		"type":               str("Normal or Warning."),
	}}

var eventDefinitions = map[string]*openapi.Schema{
	objectReferenceSchema: {Type: "object", MapType: "atomic",
		Description: "ObjectReference names an object.",
		Properties: map[string]*openapi.Schema{
			"apiVersion":      str("The API version of the object."),
			"fieldPath":       str("A field within the object, such as spec.containers{name}."),
			"kind":            str("The kind of the object."),
			"name":            str("The name of the object."),
			"namespace":       str("The namespace of the object."),
			"resourceVersion": str("The resourceVersion the reference was made at."),
			"uid":             str("The uid of the object."),
		}},
	eventSourceSchema: {Type: "object",
		Description: "EventSource names the component that reported an event.",
		Properties: map[string]*openapi.Schema{
			"component": str("The component that reported the event."),
			"host":      str("The node the component runs on."),
		}},
	eventSeriesSchema: {Type: "object",
		Description: "EventSeries describes a series of repeated events.",
		Properties: map[string]*openapi.Schema{
			"count":            integer("int32", "The number of occurrences so far."),
			"lastObservedTime": ref(openapi.MicroTimeSchema, "When the last occurrence was observed."),
		}},
}

var widgetOpenAPI = &openapi.Schema{Type: "object",
	Description: "Widget is the example's custom resource.",
	Properties: map[string]*openapi.Schema{
		"spec":   {Ref: widgetSpecSchema, Default: map[string]any{}, Description: "What the widget should be."},
		"status": {Ref: widgetStatusSchema, Default: map[string]any{}, Description: "What the widget's controller reports."},
	}}

var widgetDefinitions = map[string]*openapi.Schema{
	widgetSpecSchema: {Type: "object",
		Description: "WidgetSpec is what a widget should be.",
		Properties: map[string]*openapi.Schema{
			"color": {Type: "string", Enum: widgetColors, Description: "The widget's color."},
			"size":  integer("int64", "The widget's size; not negative."),
			"tags":  {Type: "array", ListType: "atomic", Items: &openapi.Schema{Type: "string", Default: ""}, Description: "Free-form tags."},
		}},
	widgetStatusSchema: {Type: "object",
		Description: "WidgetStatus is what a widget's controller reports.",
		Properties: map[string]*openapi.Schema{
			"ready": boolean("Whether the widget is ready."),
		}},
}
