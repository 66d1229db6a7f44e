package managedfields

import (
	"maps"
	"strconv"
	"unicode/utf8"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/validation"
)

// CheckApplySize refuses, before any merge, an applied configuration
// whose object cannot be stored: when what config alone adds to the
// stored JSON exceeds limit bytes (0 or less: validation.MaxObjectBytes),
// it returns validation.ObjectTooLarge, the error the size check of the
// stored object would give after the merge. subresource is the one
// applied to.
//
// The count is a lower bound of the object's JSON: the keys and non-null
// scalar values of config's objects and lists that the object keeps as
// applied (no identity or server-set metadata, nothing of what the
// subresource does not own), and, for the deduced type, where every map
// is granular and every list atomic, the "f:key":{} of each of those
// keys outside lists in the manager's managedFields entry. What passes may still be too large after the
// merge; what is refused would be.
//
// Kubernetes merges first and fails the store at etcd's limit, so for
// such a configuration it may answer a conflict (409) or a validation
// error (422) where we answer the 500 of the size check: the merge of a
// configuration that large would cost the server seconds of CPU to find
// out.
func (f *FieldManager) CheckApplySize(config map[string]any, subresource string, limit int) error {
	if limit <= 0 {
		limit = validation.MaxObjectBytes
	}
	// The deduced type, as Options.Type or by default.
	c := sizeCounter{fields: f.typ.Schema == typed.DeducedParseableType.Schema, limit: limit}
	switch {
	case subresource == "status" && f.opts.StatusSubresource:
		c.value(config["status"])
	case subresource != "":
		// A view (scale) is mapped back field by field: no bound.
	default:
		for k, v := range config {
			if c.over() {
				break
			}
			switch k {
			case "apiVersion", "kind":
			case "metadata":
				md, _ := v.(map[string]any)
				if m, ok := md["labels"].(map[string]any); ok {
					c.member("labels", m)
				}
				if m, ok := md["annotations"].(map[string]any); ok {
					// kubectl's last-applied configuration is rewritten.
					c.member("annotations", without(m, LastAppliedAnnotation))
				}
			case "status":
				if !f.opts.StatusSubresource {
					c.member(k, v)
				}
			default:
				c.member(k, v)
			}
		}
	}
	return validation.CheckObjectSize(c.n, limit)
}

// without is m without key k, copied only if it has k.
func without(m map[string]any, k string) map[string]any {
	if _, ok := m[k]; !ok {
		return m
	}
	m = maps.Clone(m)
	delete(m, k)
	return m
}

// sizeCounter adds up a lower bound of the JSON bytes a configuration's
// values take in the stored object; fields also counts each map key once
// more for its managedFields entry.
type sizeCounter struct {
	fields   bool
	n, limit int
}

func (c *sizeCounter) over() bool { return c.n > c.limit }

// member counts the member k: v of an object, if v is kept.
func (c *sizeCounter) member(k string, v any) {
	before := c.n
	c.value(v)
	if c.n == before {
		// A null or an empty object or list: maybe not stored as
		// given.
		return
	}
	// "k":v, and a comma or a brace.
	c.n += jsonStringSize(k) + 2
	if c.fields {
		// "f:k":{}, and a comma or a brace.
		c.n += jsonStringSize(k) + 2 + 4
	}
}

// value counts v as stored: scalars, the members of objects and the
// items of lists (whatever the list type, the merged list holds each
// item of config, with config's values: an atomic list is config's, a
// set their union, a list map merges items by key), but not null.
func (c *sizeCounter) value(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			c.member(k, e)
			if c.over() {
				return
			}
		}
	case []any:
		// A list of the deduced type is atomic, one field; with a
		// schema only the data is counted anyway.
		fields := c.fields
		c.fields = false
		for _, e := range v {
			before := c.n
			c.value(e)
			if c.n > before {
				c.n++ // a comma or a bracket
			}
			if c.over() {
				break
			}
		}
		c.fields = fields
	case string:
		c.n += jsonStringSize(v)
	case bool:
		c.n += 4 // true; false is longer
	case int64:
		c.n += len(strconv.AppendInt(nil, v, 10))
	case float64:
		c.n++ // at least a digit
	}
}

// jsonStringSize is the least number of bytes JSON takes to write s: its
// quotes and its bytes, an invalid byte as the three of U+FFFD.
func jsonStringSize(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n += 2
		}
		i += size
	}
	return n
}
