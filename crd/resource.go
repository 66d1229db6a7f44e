package crd

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/table"
	"github.com/apisem/apisem/validation"
	apiversion "github.com/apisem/apisem/version"
)

// definitionColumns are the Table of definitions, as
// apiextensions-apiserver's (pkg/registry/customresourcedefinition/
// tableconvertor) prints it: kubectl get crd shows the name, scope,
// served versions (sorted, the storage one marked) and creation time,
// and -o wide the group, kind, short names and whether it is established.
var definitionColumns = []table.Column{
	table.NameColumn,
	{Name: "Scope", Type: "string", Description: "Cluster/Namespaced",
		Cell: func(o meta.Object, _ time.Time) any { return string(o.(*CustomResourceDefinition).Spec.Scope) }},
	{Name: "Versions", Type: "string", Description: "Served versions", Cell: func(o meta.Object, _ time.Time) any {
		var vs []string
		for _, v := range o.(*CustomResourceDefinition).Spec.Versions {
			if v.Served {
				if v.Storage {
					vs = append(vs, v.Name+"(storage)")
				} else {
					vs = append(vs, v.Name)
				}
			}
		}
		slices.Sort(vs)
		return strings.Join(vs, ",")
	}},
	{Name: "Created At", Type: "date", Description: table.CreationTimestampDescription,
		Cell: func(o meta.Object, _ time.Time) any { return o.Meta().CreationTimestamp.UTC().Format(time.RFC3339) }},
	{Name: "Group", Type: "string", Priority: 1, Description: "API group",
		Cell: func(o meta.Object, _ time.Time) any { return o.(*CustomResourceDefinition).Spec.Group }},
	{Name: "Kind", Type: "string", Priority: 1, Description: "CustomResource kind",
		Cell: func(o meta.Object, _ time.Time) any { return o.(*CustomResourceDefinition).Spec.Names.Kind }},
	{Name: "ShortNames", Type: "string", Priority: 1, Description: "Short names",
		Cell: func(o meta.Object, _ time.Time) any {
			return strings.Join(o.(*CustomResourceDefinition).Spec.Names.ShortNames, ",")
		}},
	{Name: "Established", Type: "boolean", Priority: 1, Description: "Established status",
		Cell: func(o meta.Object, _ time.Time) any { return o.(*CustomResourceDefinition).IsEstablished() }},
}

// Resource returns the description of the customresourcedefinitions
// resource (apiextensions.k8s.io/v1, cluster-scoped, with the status
// subresource), for server.Options.Resources. Start a Controller on the
// server to make the definitions served.
func Resource() *server.Resource {
	schema, defs := definitionSchemas()
	return &server.Resource{
		Group: Group, Version: Version, Kind: Kind, ListKind: ListKind,
		Plural: Plural, Singular: Singular, ShortNames: []string{"crd", "crds"},
		Categories:             []string{"api-extensions"},
		StatusSubresource:      true,
		Generation:             true,
		RequireResourceVersion: true,
		New:                    func() server.Object { return &CustomResourceDefinition{} },
		Columns:                definitionColumns,
		// apiextensions-apiserver's Table converter appends its rows.
		NullTableRows: true,
		// A built-in type: strategic merge patches apply, with metadata's
		// strategies (finalizers merge as a set, ownerReferences by uid).
		PatchSchema: &patch.Schema{Fields: map[string]*patch.Schema{"metadata": patch.ObjectMetaSchema()}},
		// Published as Kubernetes publishes it, for kubectl explain,
		// client-side validation and kubectl apply's patches.
		Schema: schema, SchemaName: definitionSchemaName, Definitions: defs,
		Delete:   deleteDefinition,
		Prepare:  prepareDefinition,
		Validate: validateDefinition,
		Warnings: rulesWarnings,
	}
}

// prepareDefinition applies Kubernetes' defaults (singular from kind,
// listKind, the None conversion) and, on create, starts the status with
// the storage version stored; an update that names a new storage version
// adds it to status.storedVersions.
func prepareDefinition(o, old server.Object) {
	c := o.(*CustomResourceDefinition)
	n := &c.Spec.Names
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	if c.Spec.Conversion == nil {
		c.Spec.Conversion = &CustomResourceConversion{Strategy: "None"}
	}
	defaultWebhookPort(c.Spec.Conversion)
	if old == nil {
		c.Status = CustomResourceDefinitionStatus{}
	}
	for _, v := range c.Spec.Versions {
		if v.Storage && !slices.Contains(c.Status.StoredVersions, v.Name) {
			c.Status.StoredVersions = append(c.Status.StoredVersions, v.Name)
		}
	}
}

// validateDefinition checks a CustomResourceDefinition with Kubernetes'
// rules and messages (k8s.io/apiextensions-apiserver
// pkg/apis/apiextensions/validation): its name, group, scope, names,
// versions, schemas, subresources, printer columns and selectable
// fields. The validation rules of schemas are checked only by
// Options.Rules.
func validateDefinition(o, old server.Object) []status.FieldError {
	c := o.(*CustomResourceDefinition)
	oc, _ := old.(*CustomResourceDefinition)
	if oc == nil {
		return definitionErrors(nil, c, nil)
	}
	// apiextensions-apiserver's update validation checks the metadata
	// update again (after the server's ValidateUpdate) before the spec.
	return append(validation.ValidateMetaUpdate(&c.ObjectMeta, &oc.ObjectMeta), definitionErrors(nil, c, oc)...)
}

// definitionErrors checks c, and the rules of its changed schemas with rc
// when it is not nil; old is the definition c updates, nil on create.
//
// Kubernetes validates a definition in its internal form, where the
// schema, subresources, printer columns or selectable fields that every
// version has alike (one version's, often) are the definition's
// (spec.validation, spec.subresources, spec.additionalPrinterColumns,
// spec.selectableFields) and not the versions' (k8s.io/apiextensions-apiserver
// pkg/apis/apiextensions/v1, conversion.go): their errors have those paths,
// and come after the versions' and names' errors.
func definitionErrors(rc schema.RuleCompiler, c, old *CustomResourceDefinition) []status.FieldError {
	var errs []status.FieldError
	if want := c.Spec.Names.Plural + "." + c.Spec.Group; c.Name != want && old == nil {
		errs = append(errs, status.InvalidValue("metadata.name", c.Name, `must be spec.names.plural+"."+spec.group`))
	}
	s := &c.Spec
	switch {
	case s.Group == "":
		errs = append(errs, status.Required("spec.group", ""))
	case validation.IsDNS1123Subdomain(s.Group) != nil:
		errs = append(errs, status.InvalidValue("spec.group", s.Group, strings.Join(validation.IsDNS1123Subdomain(s.Group), ",")))
	case !strings.Contains(s.Group, "."):
		errs = append(errs, status.InvalidValue("spec.group", s.Group, "should be a domain with at least one dot"))
	}
	switch s.Scope {
	case "":
		errs = append(errs, status.Required("spec.scope", ""))
	case ClusterScoped, NamespaceScoped:
	default:
		errs = append(errs, status.NotSupported("spec.scope", s.Scope, ClusterScoped, NamespaceScoped))
	}
	h := hoist(s.Versions)
	var top CustomResourceDefinitionVersion // what the versions share
	if len(s.Versions) > 0 {
		top = s.Versions[0]
	}
	hasSchema := func(v *CustomResourceValidation) bool { return v != nil && v.OpenAPIV3Schema != nil }
	if !h.schema || !hasSchema(top.Schema) {
		for i, v := range s.Versions {
			if h.schema || !hasSchema(v.Schema) {
				errs = append(errs, status.Required(fmt.Sprintf("spec.versions[%d].schema.openAPIV3Schema", i), ""))
			}
		}
	}
	rules := func(path string, v *CustomResourceValidation, versions ...CustomResourceDefinitionVersion) []status.FieldError {
		if rc == nil || !hasSchema(v) || old != nil && !slices.ContainsFunc(versions, func(v CustomResourceDefinitionVersion) bool { return schemaChanged(old, v) }) {
			return nil
		}
		return rc.Check(path+".openAPIV3Schema", v.OpenAPIV3Schema)
	}
	storage, names := 0, map[string]bool{}
	unique := true
	for i, v := range s.Versions {
		p := fmt.Sprintf("spec.versions[%d]", i)
		if v.Storage {
			storage++
		}
		if names[v.Name] {
			unique = false
		}
		names[v.Name] = true
		if e := validation.IsDNS1035Label(v.Name); e != nil {
			errs = append(errs, status.InvalidValue(p+".name", v.Name, strings.Join(e, ",")))
		}
		if !h.schema {
			sub := v.Subresources
			if h.subresources {
				sub = top.Subresources
			}
			errs = append(errs, checkSchema(p+".schema", v.Schema, sub != nil && sub.Status != nil)...)
			errs = append(errs, rules(p+".schema", v.Schema, v)...)
		}
		if !h.subresources {
			errs = append(errs, validateSubresources(p+".subresources", v.Subresources)...)
		}
		if !h.columns {
			errs = append(errs, validateColumns(p+".additionalPrinterColumns", v.AdditionalPrinterColumns)...)
		}
		if !h.selectableFields && len(v.SelectableFields) > 0 {
			if h.schema || !hasSchema(v.Schema) {
				errs = append(errs, status.InvalidValue(p+".selectableFields", "", "may only be set when `version.schema.openAPIV3Schema` is not included"))
			} else {
				errs = append(errs, validateSelectableFields(p+".selectableFields", v.SelectableFields, v.Schema.OpenAPIV3Schema)...)
			}
		}
	}
	if !unique {
		errs = append(errs, status.InvalidValue("spec.versions", versionsValue(s.Versions), "must contain unique version names"))
	}
	if storage != 1 {
		errs = append(errs, status.InvalidValue("spec.versions", versionsValue(s.Versions), "must have exactly one version marked as storage version"))
	}
	n := s.Names
	for _, f := range []struct{ path, value string }{
		{"spec.names.plural", n.Plural}, {"spec.names.singular", n.Singular},
		{"spec.names.kind", n.Kind}, {"spec.names.listKind", n.ListKind},
	} {
		if f.value == "" {
			errs = append(errs, status.Required(f.path, ""))
		}
	}
	errs = append(errs, validateNames("spec.names", &n)...)
	if h.schema {
		anyStatus := slices.ContainsFunc(s.Versions, func(v CustomResourceDefinitionVersion) bool {
			return v.Subresources != nil && v.Subresources.Status != nil
		})
		errs = append(errs, checkSchema("spec.validation", top.Schema, anyStatus)...)
		errs = append(errs, rules("spec.validation", top.Schema, s.Versions...)...)
	}
	if h.subresources {
		errs = append(errs, validateSubresources("spec.subresources", top.Subresources)...)
	}
	if h.columns {
		errs = append(errs, validateColumns("spec.additionalPrinterColumns", top.AdditionalPrinterColumns)...)
	}
	if h.selectableFields && len(top.SelectableFields) > 0 {
		if !h.schema || top.Schema == nil {
			errs = append(errs, status.InvalidValue("spec.selectableFields", "", "may only be set when validations.schema is included"))
		} else {
			errs = append(errs, validateSelectableFields("spec.selectableFields", top.SelectableFields, top.Schema.OpenAPIV3Schema)...)
		}
	}
	var oldConversion *CustomResourceConversion
	if old != nil {
		oldConversion = old.Spec.Conversion
	}
	errs = append(errs, conversionErrors(s.Conversion, oldConversion)...)
	if old != nil {
		oc := old
		if s.Group != oc.Spec.Group {
			errs = append(errs, status.InvalidValue("spec.group", s.Group, "field is immutable"))
		}
		if n.Plural != oc.Spec.Names.Plural {
			errs = append(errs, status.InvalidValue("spec.names.plural", n.Plural, "field is immutable"))
		}
		if oc.IsEstablished() {
			if s.Scope != oc.Spec.Scope {
				errs = append(errs, status.InvalidValue("spec.scope", s.Scope, "field is immutable"))
			}
			if n.Kind != oc.Spec.Names.Kind {
				errs = append(errs, status.InvalidValue("spec.names.kind", n.Kind, "field is immutable"))
			}
		}
	}
	for i, v := range c.Status.StoredVersions {
		if !names[v] {
			errs = append(errs, status.InvalidValue(fmt.Sprintf("status.storedVersions[%d]", i), v, "must appear in spec.versions"))
		}
	}
	return errs
}

// hoisted says which parts of a definition's versions are alike in every
// version, and so the definition's in Kubernetes' internal form.
type hoisted struct {
	schema, subresources, columns, selectableFields bool
}

func hoist(vs []CustomResourceDefinitionVersion) hoisted {
	if len(vs) == 0 {
		return hoisted{}
	}
	h := hoisted{true, true, true, true}
	for _, v := range vs[1:] {
		h.schema = h.schema && jsonEqual(v.Schema, vs[0].Schema)
		h.subresources = h.subresources && jsonEqual(v.Subresources, vs[0].Subresources)
		h.columns = h.columns && jsonEqual(v.AdditionalPrinterColumns, vs[0].AdditionalPrinterColumns)
		h.selectableFields = h.selectableFields && jsonEqual(v.SelectableFields, vs[0].SelectableFields)
	}
	return h
}

// schemaChanged reports whether version v of a definition has a schema
// other than the one it had in old, or is new. A definition's update
// checks the rules of changed schemas only: the others passed when they
// were written. (Kubernetes checks them again, but forgives their rules'
// estimated costs and compiles the expressions they had with the
// libraries they had; checking takes milliseconds per rule, which writes
// of labels or status would pay.)
func schemaChanged(old *CustomResourceDefinition, v CustomResourceDefinitionVersion) bool {
	for _, ov := range old.Spec.Versions {
		if ov.Name == v.Name {
			return !jsonEqual(ov.Schema, v.Schema)
		}
	}
	return true
}

// versionsValue is the bad value of a spec.versions error. Kubernetes
// prints its Go structure; here it is the versions' names.
func versionsValue(vs []CustomResourceDefinitionVersion) string {
	b, _ := json.Marshal(slices.Collect(func(yield func(string) bool) {
		for _, v := range vs {
			if !yield(v.Name) {
				return
			}
		}
	}))
	return string(b)
}

// validateNames checks the syntax of a CRD's names.
func validateNames(path string, n *CustomResourceDefinitionNames) []status.FieldError {
	var errs []status.FieldError
	label := func(p, v string) {
		if e := validation.IsDNS1035Label(v); v != "" && e != nil {
			errs = append(errs, status.InvalidValue(p, v, strings.Join(e, ",")))
		}
	}
	kind := func(p, v string) {
		if e := validation.IsDNS1035Label(strings.ToLower(v)); v != "" && e != nil {
			errs = append(errs, status.InvalidValue(p, v, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
		}
	}
	label(path+".plural", n.Plural)
	label(path+".singular", n.Singular)
	kind(path+".kind", n.Kind)
	kind(path+".listKind", n.ListKind)
	for i, s := range n.ShortNames {
		label(fmt.Sprintf("%s.shortNames[%d]", path, i), s)
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, status.InvalidValue(path+".listKind", n.ListKind, "kind and listKind may not be the same"))
	}
	for i, s := range n.Categories {
		label(fmt.Sprintf("%s.categories[%d]", path, i), s)
	}
	return errs
}

// printerColumnTypes and printerColumnFormats are what a printer column
// may declare, sorted as Kubernetes lists them.
var (
	printerColumnTypes   = []string{"boolean", "date", "integer", "number", "string"}
	printerColumnFormats = []string{"byte", "date", "date-time", "double", "float", "int32", "int64", "password"}
)

// validateSubresources checks the subresources of a version, or of all.
func validateSubresources(p string, sub *CustomResourceSubresources) []status.FieldError {
	if sub == nil || sub.Scale == nil {
		return nil
	}
	return validateScalePaths(p, sub.Scale)
}

// printerColumnTypesText and printerColumnFormatsText are what a printer
// column may declare, as Kubernetes lists them in its errors.
var (
	printerColumnTypesText   = strings.Join(printerColumnTypes, ",")
	printerColumnFormatsText = strings.Join(printerColumnFormats, ",")
)

// validateColumns checks printer columns as Kubernetes does. It names
// the path of a column "JSONPath" in its errors, as its internal type
// does, and asks only that it start with '.': a path that does not parse
// as JSONPath is accepted, and the Table leaves that column and those
// after it out (see customResources).
func validateColumns(p string, cols []CustomResourceColumnDefinition) []status.FieldError {
	var errs []status.FieldError
	for i, col := range cols {
		cp := fmt.Sprintf("%s[%d]", p, i)
		if col.Name == "" {
			errs = append(errs, status.Required(cp+".name", ""))
		}
		switch {
		case col.Type == "":
			errs = append(errs, status.Required(cp+".type", "must be one of "+printerColumnTypesText))
		case !slices.Contains(printerColumnTypes, col.Type):
			errs = append(errs, status.InvalidValue(cp+".type", col.Type, "must be one of "+printerColumnTypesText))
		}
		if col.Format != "" && !slices.Contains(printerColumnFormats, col.Format) {
			errs = append(errs, status.InvalidValue(cp+".format", col.Format, "must be one of "+printerColumnFormatsText))
		}
		if col.JSONPath == "" {
			errs = append(errs, status.Required(cp+".JSONPath", ""))
		} else if col.JSONPath[0] != '.' {
			errs = append(errs, status.InvalidValue(cp+".JSONPath", col.JSONPath, "must be a simple json path starting with ."))
		}
	}
	return errs
}

// customResources returns the resources that serve c: one per served
// version, named by its accepted names, sharing one store, where objects
// are in the storage version (see storage). admit is their Admit; rules,
// when not nil, compiles the versions' validation rules; resolve finds a
// conversion webhook's service (ResolveService when nil).
func customResources(c *CustomResourceDefinition, admit server.AdmitFunc, rules schema.RuleCompiler, resolve func(namespace, name string, port int32) (*url.URL, error)) ([]*server.Resource, error) {
	var out []*server.Resource
	st := newStorage(c, resolve)
	n := c.Status.AcceptedNames
	// The spec replicas of every version, for the managedFields of scale
	// writes: entries may name any version of the definition.
	replicasPaths := map[string]string{}
	// Every version gives the storage version's storageVersionHash, as
	// apiextensions-apiserver's discovery does.
	var hash string
	for _, v := range c.Spec.Versions {
		if v.Storage {
			hash = server.StorageVersionHash(c.Spec.Group, v.Name, n.Kind)
		}
		p := ""
		if v.Subresources != nil && v.Subresources.Scale != nil {
			p = v.Subresources.Scale.SpecReplicasPath
		}
		replicasPaths[c.Spec.Group+"/"+v.Name] = p
	}
	for i, v := range c.Spec.Versions {
		if !v.Served {
			continue
		}
		var root *schema.JSONSchemaProps
		if v.Schema != nil {
			root = v.Schema.OpenAPIV3Schema
		}
		val, err := schema.Compile(root)
		if err != nil {
			return nil, err
		}
		apiVersion := c.Spec.Group + "/" + v.Name
		// The rules are compiled on the first write that evaluates them,
		// as kube-apiserver builds a definition's validators on the first
		// request to its resources (k8s.io/apiextensions-apiserver
		// pkg/apiserver/customresource_handler.go,
		// getOrCreateServingInfoFor): the programs of a definition's rules
		// take far more memory than its schema, and a server serving
		// definitions without objects holds none. root is the stored
		// definition's, which does not change.
		var compiled func() (schema.RuleValidator, error)
		if rules != nil && root != nil {
			path := versionSchemaPath(i)
			compiled = sync.OnceValues(func() (schema.RuleValidator, error) {
				rv, err := rules.Compile(root)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				return rv, nil
			})
		}
		var cols []table.Column
		// A column whose path does not parse ends the columns, as
		// Kubernetes' table convertor stops at it; with none left the
		// Table is the name alone, not name and age.
		nameOnly := false
		for _, pc := range v.AdditionalPrinterColumns {
			desc := pc.Description
			if desc == "" {
				// Kubernetes' description of a column without one.
				desc = "Custom resource definition column (in JSONPath format): " + pc.JSONPath
			}
			col, err := server.JSONPathColumn(table.Column{Name: pc.Name, Type: pc.Type, Format: pc.Format,
				Description: desc, Priority: pc.Priority}, pc.JSONPath)
			if err != nil {
				nameOnly = len(cols) == 0
				break
			}
			cols = append(cols, withTypeMeta(col, pc.JSONPath, meta.TypeMeta{Kind: n.Kind, APIVersion: apiVersion}))
		}
		var fields map[string]func(server.Object) string
		for _, f := range v.SelectableFields {
			get, err := server.JSONPathField(f.JSONPath)
			if err != nil {
				return nil, err
			}
			if fields == nil {
				fields = map[string]func(server.Object) string{}
			}
			fields[strings.TrimPrefix(f.JSONPath, ".")] = get
		}
		r := server.UnstructuredResource(server.Resource{
			Group: c.Spec.Group, Version: v.Name, Kind: n.Kind, ListKind: n.ListKind,
			Plural: n.Plural, Singular: n.Singular, ShortNames: slices.Clone(n.ShortNames),
			Categories: slices.Clone(n.Categories), Namespaced: c.Spec.Scope == NamespaceScoped,
			StatusSubresource:  v.Subresources != nil && v.Subresources.Status != nil,
			DeprecationWarning: deprecationWarning(&c.Spec, &v),
			Custom:             true,
			StorageVersionHash: hash,
			Schema:             openAPISchema(root),
			Columns:            cols,
			Fields:             fields,
		})
		if nameOnly {
			r.Columns = r.Columns[:1]
		}
		var tree *schema.Tree
		if n := st.nodes[v.Name]; n != nil {
			tree = n.tree
		}
		r.Coerce = func(o server.Object, strict []error) []error {
			return coerce(o.(*server.Unstructured), tree, strict)
		}
		r.Read = st.read(v.Name)
		r.ToStorage = st.toStorage(v.Name)
		r.StoredAs = st.storedAs(n.Kind)
		var scale *CustomResourceSubresourceScale
		if v.Subresources != nil && v.Subresources.Scale != nil {
			scale = v.Subresources.Scale
			r.Scale = scaleSubresource(scale)
			r.Scale.ReplicasPaths = replicasPaths
		}
		r.Validate = func(o, old server.Object) []status.FieldError {
			content := o.(*server.Unstructured).Content
			var oldContent map[string]any
			if old != nil {
				// An update ratchets: errors of what it left as it was
				// are dropped. Kubernetes validates the scale paths and
				// embedded resources apart, without ratcheting.
				if oldContent = old.(*server.Unstructured).Content; oldContent == nil {
					oldContent = map[string]any{}
				}
			}
			errs, embeddedErrs := val.Validate(content, oldContent)
			errs = append(append(errs, validateScale(content, scale)...), embeddedErrs...)
			// Then the duplicates of set and map lists, which ratchet
			// as a whole: none are reported when the old object had one.
			errs = append(errs, val.ListErrors(content, oldContent)...)
			if compiled == nil {
				return errs
			}
			rv, err := compiled()
			if err != nil {
				// Check passed the rules when the definition was written:
				// this one was stored by a server with other limits.
				return append(errs, status.FieldError{Type: status.CauseTypeInternal, Field: "<nil>",
					Detail: "compiling the validation rules: " + err.Error()})
			}
			if rv == nil {
				return errs
			}
			// Kubernetes evaluates the rules only on an object that
			// passed the schema's blocking checks.
			if blocking(errs) {
				return append(errs, rulesNotChecked)
			}
			return append(errs, rv.Validate(fullObject(o.(*server.Unstructured), apiVersion, n.Kind), fullObjectOrNil(old, apiVersion, n.Kind))...)
		}
		r.Admit = admit
		out = append(out, r)
	}
	return out, nil
}

// coerce is what Kubernetes does to a custom resource as it decodes it:
// defaults, then prunes unknown fields, then drops nulls the schema does
// not allow. It returns strict's problems followed by the fields pruned
// (sorted, as Kubernetes reports them) as unknown-field errors: Kubernetes
// prunes after decoding, so a duplicate key comes first.
func coerce(u *server.Unstructured, n *schema.Tree, strict []error) []error {
	if n == nil {
		return strict
	}
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	n.Default(u.Content)
	pruned := n.Prune(u.Content)
	if len(u.Content) == 0 {
		u.Content = nil
	}
	if len(pruned) == 0 {
		return strict
	}
	out := slices.Grow(strict, len(pruned))
	for _, p := range pruned {
		out = append(out, fmt.Errorf("unknown field %q", p))
	}
	return out
}

// read is a stored object as Kubernetes decodes it from storage with the
// current schema (n its tree): pruned and defaulted (coerce). It is u
// itself when that changes nothing, as it does for every object written
// under the schema.
func read(u *server.Unstructured, n *schema.Tree) server.Object {
	if n.Settled(u.Content) {
		return u
	}
	c := u.DeepCopy()
	coerce(c, n, nil)
	return c
}

// openAPISchema converts a CRD schema to the server's OpenAPI form, for
// /openapi/v2 and v3 and kubectl explain. Keywords the server's Schema
// does not publish (bounds, patterns) are left out.
func openAPISchema(s *schema.JSONSchemaProps) *openapi.Schema {
	if s == nil {
		return nil
	}
	return openAPIValue(*s)
}

// openAPIValue is openAPISchema of a schema taken by value: a property
// of a map is copied on the stack, where the address of the copy would
// move each copy to the heap (20,000 copies of 488 bytes for the real
// definitions of BenchmarkInstalledRSS).
func openAPIValue(s schema.JSONSchemaProps) *openapi.Schema {
	out := &openapi.Schema{
		Type: s.Type, Format: s.Format, Description: s.Description, Default: s.Default,
		Required: slices.Clone(s.Required), IntOrString: s.XIntOrString,
		PreserveUnknownFields: s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields, ListMapKeys: slices.Clone(s.XListMapKeys),
	}
	if s.XListType != nil {
		out.ListType = *s.XListType
	}
	if s.XMapType != nil {
		out.MapType = *s.XMapType
	}
	for _, e := range s.Enum {
		if str, ok := e.(string); ok {
			out.Enum = append(out.Enum, str)
		}
	}
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]*openapi.Schema, len(s.Properties))
		for k, p := range s.Properties {
			out.Properties[k] = openAPIValue(p)
		}
	}
	out.Items = openAPISchema(s.Items)
	if s.AdditionalProperties != nil {
		out.AdditionalProperties = openAPISchema(s.AdditionalProperties.Schema)
	}
	return out
}

// withTypeMeta returns col with a Cell that sees stored objects, whose
// TypeMeta is empty, with the kind and apiVersion tm they are served as,
// as a cluster's objects have them, when its path may read them.
func withTypeMeta(col table.Column, path string, tm meta.TypeMeta) table.Column {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "."), ".")
	first, _, _ = strings.Cut(first, "[")
	first, _, _ = strings.Cut(first, " ")
	if !strings.ContainsAny(path, "*\\{}") && !strings.Contains(path, "..") && first != "kind" && first != "apiVersion" {
		return col // the path starts with another member
	}
	cell := col.Cell
	col.Cell = func(o meta.Object, now time.Time) any {
		if u, ok := o.(*server.Unstructured); ok && u.Kind == "" {
			c := *u // shallow: the cell only reads it
			c.TypeMeta = tm
			o = &c
		}
		return cell(o, now)
	}
	return col
}

// deprecationWarning is the Warning of every request to version v of a
// definition: its deprecationWarning, else apiextensions-apiserver's
// default text, which names the served, non-deprecated version of the
// highest priority among those of higher priority than v (none named
// when there is none); "" when v is not deprecated.
func deprecationWarning(spec *CustomResourceDefinitionSpec, v *CustomResourceDefinitionVersion) string {
	if !v.Deprecated {
		return ""
	}
	if v.DeprecationWarning != nil {
		return *v.DeprecationWarning
	}
	msg := spec.Group + "/" + v.Name + " " + spec.Names.Kind + " is deprecated"
	use := ""
	for _, o := range spec.Versions {
		if o.Served && !o.Deprecated && apiversion.Compare(o.Name, v.Name) > 0 &&
			(use == "" || apiversion.Compare(o.Name, use) > 0) {
			use = o.Name
		}
	}
	if use != "" {
		msg += "; use " + spec.Group + "/" + use + " " + spec.Names.Kind
	}
	return msg
}
