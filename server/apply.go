package server

import (
	"net/http"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// apply serves server-side apply: a PATCH of type
// application/apply-patch+yaml whose body, YAML or JSON, is the applied
// configuration of the manager named by fieldManager. The object is
// created when it does not exist (201), else merged (200); conflicts with
// other managers are a 409 unless force is set. A field the schema does
// not have fails the apply with a 500 whatever fieldValidation says, as
// in Kubernetes, whose structured-merge-diff refuses it; field validation
// concerns the duplicate keys of the body. A resource without a schema,
// whose Go type encodes itself, validates its fields as a POST does.
func (s *Server) apply(w http.ResponseWriter, r *http.Request, t *target, v *view, res negotiation.Result) error {
	body, err := negotiation.ReadBodyBytes(r, t.res.maxBody)
	if err != nil {
		return err
	}
	opts, err := parseWriteOptions(r, negotiation.PatchOptions, true)
	if err != nil {
		return err
	}
	config, configJSON, strictErr, err := decodeApplyConfig(body, opts.FieldValidation != negotiation.FieldValidationIgnore)
	if err != nil {
		return err
	}
	fm, err := v.res.fields.get()
	if err != nil {
		return err
	}
	var fieldWarnings []string
	if v.res.fields.decodesConfig {
		// Without a schema, the merge takes any field and the decoding
		// after it would drop what the type lacks: the configuration is
		// decoded first, as a POST's body, for its warnings or 400, and
		// what the decoding drops is no field of the manager's. Ignore,
		// too, decodes as Warn, to know whether anything was dropped:
		// encoding the decoded configuration to see what is left costs
		// the one encoding a write makes of its object, so it is done
		// only then.
		fv := opts.FieldValidation
		if fv != negotiation.FieldValidationStrict {
			fv = negotiation.FieldValidationWarn
		}
		if configJSON == nil {
			configJSON = applyConfigJSON(body)
		}
		o := v.res.def.New()
		if fieldWarnings, err = negotiation.Decode(configJSON, negotiation.JSON, o, v.res.decodeOptions(fv)); err != nil {
			return err
		}
		if len(fieldWarnings) > 0 {
			kept, err := objectMap(o)
			if err != nil {
				return err
			}
			kept["apiVersion"], kept["kind"] = config["apiVersion"], config["kind"]
			dropUnkept(config, kept)
		}
		if opts.FieldValidation == negotiation.FieldValidationIgnore {
			fieldWarnings = nil
		}
	}
	// Refuse what cannot fit before the merge, which costs CPU in
	// proportion. A typed object without a schema may drop fields.
	if t.res.codec.unstructured || t.res.def.Schema != nil {
		if err := fm.CheckApplySize(config, t.sub, s.opts.Limits.MaxObjectBytes); err != nil {
			return err
		}
	}
	var warnings []string
	change := func(cur Object) (Object, error) {
		o, w, err := s.applyTo(t, v.res, fm, cur, config, strictErr, opts)
		warnings = append(w, fieldWarnings...) // duplicates first, as a POST's
		return o, err
	}
	ctx := r.Context()
	code := http.StatusOK
	var out Object
	done := nop
	defer func() { done() }()
	for attempt := 0; ; attempt++ {
		out, done, err = s.updateView(ctx, t, v, opts.DryRun, nil, change)
		if !status.IsNotFound(err) || v.onto != nil {
			break // a subresource's object is not created
		}
		// Create on apply, unless someone else created it meanwhile.
		var o Object
		if o, err = change(nil); err != nil {
			break
		}
		out, done, err = s.createObject(ctx, t, o, store.CreateOptions{DryRun: opts.DryRun, ReadOnlyResult: true}, nil)
		if !status.IsAlreadyExists(err) || attempt == 2 {
			code = http.StatusCreated
			break
		}
	}
	if err != nil {
		return err
	}
	addWarnings(r.Context(), warnings)
	return s.writeView(w, r, code, v, res, out)
}

// applyTo applies config to cur, an object of rs (the object's resource
// or a view's; nil when the object does not exist) and returns the new
// one with its managedFields, and the warnings of field validation Warn:
// strictErr is the body's duplicate keys.
func (s *Server) applyTo(t *target, rs *resource, fm *managedfields.FieldManager, cur Object, config map[string]any, strictErr error, opts writeOptions) (Object, []string, error) {
	var live map[string]any
	var entries []meta.ManagedFieldsEntry
	if cur != nil {
		var err error
		if live, err = rs.codec.storedMap(cur); err != nil {
			return nil, nil, err
		}
		entries = cur.Meta().ManagedFields
	}
	merged, entries, err := fm.Apply(live, entries, config, managedfields.Operation{Manager: opts.manager, Subresource: t.sub, Time: s.now()}, opts.force)
	if err != nil {
		return nil, nil, err
	}
	// Duplicate keys in the body are found after the merge, as Kubernetes
	// does.
	var warnings []string
	if strictErr != nil {
		if opts.FieldValidation == negotiation.FieldValidationStrict {
			return nil, nil, status.NewBadRequest("error strict decoding patch: error converting YAML to JSON: " + strictErr.Error())
		}
		warnings = yamlWarnings(strictErr)
	}
	doc, err := jsonvalue.AppendJSON(nil, merged) // json.Marshal's bytes, without reflection
	if err != nil {
		return nil, nil, err
	}
	// Decoded as a body is (Resource.Coerce: a custom resource's schema
	// prunes and defaults the merged object), after the field manager
	// made the entries: an apply owns only its configuration.
	o := rs.def.New()
	if _, err := negotiation.Decode(doc, negotiation.JSON, o, rs.decodeOptions(negotiation.FieldValidationIgnore)); err != nil {
		return nil, nil, err
	}
	*o.Types() = meta.TypeMeta{}
	o.Meta().ManagedFields = entries
	if err := matchURL(t, o.Meta()); err != nil {
		return nil, nil, err
	}
	return o, warnings, nil
}

// decodeApplyConfig reads an applied configuration, YAML or JSON, as a
// JSON object with integers kept exact, and as JSON (nil when the body,
// JSON, was read as such: applyConfigJSON gives it). What is not an
// object is a 400. With strict, strictErr reports duplicate keys, which
// the plain reading resolves (the last wins).
func decodeApplyConfig(body []byte, strict bool) (config map[string]any, j []byte, strictErr error, err error) {
	if config, ok := jsonApplyConfig(body); ok {
		return config, nil, nil, nil
	}
	return yamlApplyConfig(body, strict)
}

// yamlApplyConfig is decodeApplyConfig by the YAML parser.
func yamlApplyConfig(body []byte, strict bool) (config map[string]any, j []byte, strictErr error, err error) {
	if strict {
		// Parse once when the strict reading succeeds, as it usually does.
		j, strictErr = yaml.YAMLToJSONStrict(body)
	}
	if !strict || strictErr != nil {
		if j, err = yaml.YAMLToJSON(body); err != nil {
			return nil, nil, nil, status.NewBadRequest("error decoding YAML: error converting YAML to JSON: " + err.Error())
		}
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(j, &config); err != nil {
		return nil, nil, nil, status.NewBadRequest("error decoding YAML: error unmarshaling JSON: while decoding JSON: " + err.Error())
	}
	if config == nil {
		config = map[string]any{}
	}
	return config, j, strictErr, nil
}

// applyConfigJSON is the JSON of decodeApplyConfig for a body it read
// as JSON: the YAML reading's, whose numbers are written anew.
func applyConfigJSON(body []byte) []byte {
	j, err := yaml.YAMLToJSON(body)
	if err != nil {
		// jsonApplyConfig read it alike; as a fallback, the body itself.
		return body
	}
	return j
}

// dropUnkept removes from an applied configuration the members that
// kept, the configuration decoded into its Go type and encoded again,
// lacks: those the type dropped. A zero value (0, "", false, null, {} or
// []) stays, as omitempty leaves it out of kept. Lists of one length are
// compared item by item.
func dropUnkept(config, kept map[string]any) {
	for k, v := range config {
		kv, ok := kept[k]
		switch {
		case !ok && !zeroJSON(v):
			delete(config, k)
		case ok:
			dropUnkeptValue(v, kv)
		}
	}
}

func dropUnkeptValue(v, kept any) {
	switch v := v.(type) {
	case map[string]any:
		if k, ok := kept.(map[string]any); ok {
			dropUnkept(v, k)
		}
	case []any:
		if k, ok := kept.([]any); ok && len(k) == len(v) {
			for i := range v {
				dropUnkeptValue(v[i], k[i])
			}
		}
	}
}

// zeroJSON reports whether v, a JSON value, is what omitempty leaves out.
func zeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case int64:
		return v == 0
	case float64:
		return v == 0
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// yamlWarnings splits a duplicate-key error into Kubernetes' warnings,
// one per line.
func yamlWarnings(err error) []string {
	msg := strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n")
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		out = append(out, strings.TrimSpace(line))
	}
	return out
}
