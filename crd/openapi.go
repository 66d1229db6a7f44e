package crd

import "github.com/apisem/apisem/openapi"

// The OpenAPI schema of apiextensions.k8s.io/v1 CustomResourceDefinition,
// published as kube-apiserver publishes it: the definitions of
// k8s.io/apiextensions-apiserver's types, under their Go package's name,
// with the same fields, types, formats, defaults, required fields and
// list types, so that kubectl explains definitions, validates them on the
// client, and computes kubectl apply's strategic merge patches from it.
// The descriptions are this package's own.

// schemaPrefix is the package part of the definitions' names.
const schemaPrefix = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."

// definitionSchemaName is the name of the definition of a
// CustomResourceDefinition.
const definitionSchemaName = schemaPrefix + Kind

func oaRef(name, description string) *openapi.Schema {
	return &openapi.Schema{Ref: schemaPrefix + name, Description: description}
}

// oaRefDefault is a reference to a struct that Kubernetes' defaulting
// fills, so published with the default {}.
func oaRefDefault(name, description string) *openapi.Schema {
	return &openapi.Schema{Ref: schemaPrefix + name, Description: description, Default: map[string]any{}}
}

func oaStr(description string) *openapi.Schema {
	return &openapi.Schema{Type: "string", Description: description}
}

// oaReqStr is a required string, which Kubernetes publishes with the
// default "".
func oaReqStr(description string) *openapi.Schema {
	return &openapi.Schema{Type: "string", Description: description, Default: ""}
}

func oaBoolean(description string) *openapi.Schema {
	return &openapi.Schema{Type: "boolean", Description: description}
}

func oaInteger(format, description string) *openapi.Schema {
	return &openapi.Schema{Type: "integer", Format: format, Description: description}
}

// oaAtomic is an atomic list of items.
func oaAtomic(items *openapi.Schema, description string) *openapi.Schema {
	return &openapi.Schema{Type: "array", Items: items, ListType: "atomic", Description: description}
}

func oaObject(description string, required []string, props map[string]*openapi.Schema) *openapi.Schema {
	return &openapi.Schema{Type: "object", Description: description, Required: required, Properties: props}
}

// definitionSchemas are the schema of a CustomResourceDefinition and
// the definitions it refers to.
func definitionSchemas() (*openapi.Schema, map[string]*openapi.Schema) {
	props := oaRef("JSONSchemaProps", "")
	schemaProps := oaObject("A structural OpenAPI v3 schema.", nil, map[string]*openapi.Schema{
		"$ref":                                 {Type: "string"},
		"$schema":                              {Type: "string"},
		"additionalItems":                      oaRef("JSONSchemaPropsOrBool", ""),
		"additionalProperties":                 oaRef("JSONSchemaPropsOrBool", ""),
		"allOf":                                oaAtomic(props, ""),
		"anyOf":                                oaAtomic(props, ""),
		"default":                              oaRef("JSON", "The value set where the field is missing; it must validate against the schema."),
		"definitions":                          {Type: "object", AdditionalProperties: props},
		"dependencies":                         {Type: "object", AdditionalProperties: oaRef("JSONSchemaPropsOrStringArray", "")},
		"description":                          {Type: "string"},
		"enum":                                 oaAtomic(oaRef("JSON", ""), ""),
		"example":                              oaRef("JSON", ""),
		"exclusiveMaximum":                     {Type: "boolean"},
		"exclusiveMinimum":                     {Type: "boolean"},
		"externalDocs":                         oaRef("ExternalDocumentation", ""),
		"format":                               oaStr("The format of the value: int32, int64, date-time, byte, and the string formats Kubernetes checks."),
		"id":                                   {Type: "string"},
		"items":                                oaRef("JSONSchemaPropsOrArray", ""),
		"maxItems":                             {Type: "integer", Format: "int64"},
		"maxLength":                            {Type: "integer", Format: "int64"},
		"maxProperties":                        {Type: "integer", Format: "int64"},
		"maximum":                              {Type: "number", Format: "double"},
		"minItems":                             {Type: "integer", Format: "int64"},
		"minLength":                            {Type: "integer", Format: "int64"},
		"minProperties":                        {Type: "integer", Format: "int64"},
		"minimum":                              {Type: "number", Format: "double"},
		"multipleOf":                           {Type: "number", Format: "double"},
		"not":                                  props,
		"nullable":                             {Type: "boolean"},
		"oneOf":                                oaAtomic(props, ""),
		"pattern":                              {Type: "string"},
		"patternProperties":                    {Type: "object", AdditionalProperties: props},
		"properties":                           {Type: "object", AdditionalProperties: props},
		"required":                             oaAtomic(&openapi.Schema{Type: "string"}, ""),
		"title":                                {Type: "string"},
		"type":                                 {Type: "string"},
		"uniqueItems":                          {Type: "boolean"},
		"x-kubernetes-embedded-resource":       oaBoolean("Whether the value is a resource of its own, with apiVersion, kind and metadata."),
		"x-kubernetes-int-or-string":           oaBoolean("Whether the value may be an integer or a string."),
		"x-kubernetes-list-map-keys":           oaAtomic(&openapi.Schema{Type: "string"}, "The members that identify an item of a list of type map."),
		"x-kubernetes-list-type":               oaStr("How server-side apply merges the list: atomic, set or map."),
		"x-kubernetes-map-type":                oaStr("How server-side apply merges the object: granular or atomic."),
		"x-kubernetes-preserve-unknown-fields": oaBoolean("Whether members the schema does not name are kept rather than pruned."),
		"x-kubernetes-validations": {Type: "array", Items: oaRef("ValidationRule", ""),
			ListType: "map", ListMapKeys: []string{"rule"}, PatchStrategy: "merge", PatchMergeKey: "rule",
			Description: "CEL rules the value must pass."},
	})
	// The last three accept a schema, a boolean or a list; any value.
	anyValue := func(description string) *openapi.Schema { return &openapi.Schema{Description: description} }
	defs := map[string]*openapi.Schema{
		"CustomResourceColumnDefinition": oaObject("A column that kubectl get prints.", []string{"name", "type", "jsonPath"}, map[string]*openapi.Schema{
			"description": oaStr("What the column shows."),
			"format":      oaStr("The format of the values: int32, int64, float, double, byte, date, date-time or password."),
			"jsonPath":    oaReqStr("The simple JSON path of the value in each object."),
			"name":        oaReqStr("The column's heading."),
			"priority":    oaInteger("int32", "0 for the columns of the standard view, more for the wide view."),
			"type":        oaReqStr("The OpenAPI type of the values: integer, number, string, boolean or date."),
		}),
		"CustomResourceConversion": oaObject("How versions convert.", []string{"strategy"}, map[string]*openapi.Schema{
			"strategy": oaReqStr("None (only apiVersion changes) or Webhook."),
			"webhook":  oaRef("WebhookConversion", "The webhook of the Webhook strategy."),
		}),
		"CustomResourceDefinitionCondition": oaObject("A condition of a definition.", []string{"type", "status"}, map[string]*openapi.Schema{
			"lastTransitionTime": {Ref: openapi.TimeSchema, Description: "When the condition last changed status."},
			"message":            oaStr("A human-readable explanation."),
			"observedGeneration": oaInteger("int64", "The generation the condition was set for."),
			"reason":             oaStr("A machine-readable reason for the last change."),
			"status":             oaReqStr("True, False or Unknown."),
			"type":               oaReqStr("Established, NamesAccepted, Terminating, ..."),
		}),
		"CustomResourceDefinitionNames": oaObject("The names of a custom resource.", []string{"plural", "kind"}, map[string]*openapi.Schema{
			"categories": oaAtomic(&openapi.Schema{Type: "string"}, "The groups of resources this one belongs to, such as all."),
			"kind":       oaReqStr("The kind of the objects, in CamelCase."),
			"listKind":   oaStr("The kind of lists of the objects; the kind with List by default."),
			"plural":     oaReqStr("The resource's name in URLs, lower case."),
			"shortNames": oaAtomic(&openapi.Schema{Type: "string"}, "Short names kubectl accepts for the resource."),
			"singular":   oaStr("The singular name, lower case; the kind in lower case by default."),
		}),
		"CustomResourceDefinitionSpec": oaObject("What a definition defines.", []string{"group", "names", "scope", "versions"}, map[string]*openapi.Schema{
			"conversion":            oaRef("CustomResourceConversion", "How the versions convert."),
			"group":                 oaReqStr("The API group of the resource."),
			"names":                 oaRefDefault("CustomResourceDefinitionNames", "The resource's names."),
			"preserveUnknownFields": oaBoolean("Must be false: unknown fields are pruned."),
			"scope":                 oaReqStr("Namespaced or Cluster."),
			"versions":              oaAtomic(oaRef("CustomResourceDefinitionVersion", ""), "The versions served, one of them stored."),
		}),
		"CustomResourceDefinitionStatus": oaObject("The state of a definition.", nil, map[string]*openapi.Schema{
			"acceptedNames": oaRefDefault("CustomResourceDefinitionNames", "The names being served."),
			"conditions": {Type: "array", Items: oaRef("CustomResourceDefinitionCondition", ""), ListType: "map", ListMapKeys: []string{"type"},
				Description: "The definition's conditions."},
			"observedGeneration": oaInteger("int64", "The generation the status is for."),
			"storedVersions":     oaAtomic(&openapi.Schema{Type: "string"}, "The versions objects have ever been stored in."),
		}),
		"CustomResourceDefinitionVersion": oaObject("A version of a custom resource.", []string{"name", "served", "storage"}, map[string]*openapi.Schema{
			"additionalPrinterColumns": oaAtomic(oaRef("CustomResourceColumnDefinition", ""), "The columns kubectl get prints, besides the name."),
			"deprecated":               oaBoolean("Whether requests to the version get a deprecation warning."),
			"deprecationWarning":       oaStr("The warning of a deprecated version."),
			"name":                     oaReqStr("The version's name, in URLs as /apis/<group>/<version>."),
			"schema":                   oaRef("CustomResourceValidation", "The schema of the version's objects."),
			"selectableFields":         oaAtomic(oaRef("SelectableField", ""), "Fields that field selectors may name."),
			"served":                   {Type: "boolean", Default: false, Description: "Whether the version is served."},
			"storage":                  {Type: "boolean", Default: false, Description: "Whether objects are stored in this version; exactly one version is."},
			"subresources":             oaRef("CustomResourceSubresources", "The version's status and scale subresources."),
		}),
		"CustomResourceSubresourceScale": oaObject("The paths of the scale subresource.", []string{"specReplicasPath", "statusReplicasPath"}, map[string]*openapi.Schema{
			"labelSelectorPath":  oaStr("The path of the selector's string form, under .spec or .status."),
			"specReplicasPath":   oaReqStr("The path of the desired replicas, under .spec."),
			"statusReplicasPath": oaReqStr("The path of the observed replicas, under .status."),
		}),
		"CustomResourceSubresourceStatus": {Type: "object", Description: "Serves the status subresource; it has no fields."},
		"CustomResourceSubresources": oaObject("The subresources of a version.", nil, map[string]*openapi.Schema{
			"scale":  oaRef("CustomResourceSubresourceScale", "Serves the scale subresource."),
			"status": oaRef("CustomResourceSubresourceStatus", "Serves the status subresource."),
		}),
		"CustomResourceValidation": oaObject("The schema of a version.", nil, map[string]*openapi.Schema{
			"openAPIV3Schema": oaRef("JSONSchemaProps", "The structural OpenAPI v3 schema of the objects."),
		}),
		"ExternalDocumentation": oaObject("A link to more documentation.", nil, map[string]*openapi.Schema{
			"description": {Type: "string"},
			"url":         {Type: "string"},
		}),
		"JSON":                         anyValue("Any JSON value."),
		"JSONSchemaProps":              schemaProps,
		"JSONSchemaPropsOrArray":       anyValue("A schema, or a list of schemas."),
		"JSONSchemaPropsOrBool":        anyValue("A schema, or a boolean."),
		"JSONSchemaPropsOrStringArray": anyValue("A schema, or a list of strings."),
		"SelectableField": oaObject("A field field selectors may name.", []string{"jsonPath"}, map[string]*openapi.Schema{
			"jsonPath": oaReqStr("The simple JSON path of the field: a string, boolean or integer."),
		}),
		"ServiceReference": oaObject("A Service in the cluster.", []string{"namespace", "name"}, map[string]*openapi.Schema{
			"name":      oaReqStr("The Service's name."),
			"namespace": oaReqStr("The Service's namespace."),
			"path":      oaStr("The URL path requests are sent to."),
			"port":      oaInteger("int32", "The Service's port; 443 by default."),
		}),
		"ValidationRule": oaObject("A CEL rule a value must pass.", []string{"rule"}, map[string]*openapi.Schema{
			"fieldPath":         oaStr("The path of the field an error names, relative to the value."),
			"message":           oaStr("The error's message."),
			"messageExpression": oaStr("A CEL expression whose string is the error's message."),
			"optionalOldSelf":   oaBoolean("Whether the rule runs on create too, with oldSelf an optional."),
			"reason": {Type: "string", Enum: []string{"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"},
				Description: "The reason of the error: FieldValueInvalid by default."},
			"rule": oaReqStr("The CEL expression."),
		}),
		"WebhookClientConfig": oaObject("How to reach a webhook.", nil, map[string]*openapi.Schema{
			"caBundle": {Type: "string", Format: "byte", Description: "The PEM CA bundle of the webhook's certificate."},
			"service":  oaRef("ServiceReference", "The webhook's Service."),
			"url":      oaStr("The webhook's URL."),
		}),
		"WebhookConversion": oaObject("A conversion webhook.", []string{"conversionReviewVersions"}, map[string]*openapi.Schema{
			"clientConfig":             oaRef("WebhookClientConfig", "How to reach the webhook."),
			"conversionReviewVersions": oaAtomic(&openapi.Schema{Type: "string"}, "The ConversionReview versions the webhook accepts, preferred first."),
		}),
	}
	out := make(map[string]*openapi.Schema, len(defs))
	for name, s := range defs {
		out[schemaPrefix+name] = s
	}
	root := oaObject("Defines a custom resource, which the server serves under the group, names and versions it gives.", []string{"spec"}, map[string]*openapi.Schema{
		"spec":   oaRefDefault("CustomResourceDefinitionSpec", "What the definition defines."),
		"status": oaRefDefault("CustomResourceDefinitionStatus", "The definition's state, which the server maintains."),
	})
	return root, out
}
