package server

import (
	"encoding/json"
	"sync"

	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/status"
)

// owner is who makes a write, for metadata.managedFields. A nil *owner
// records nothing: the server's own writes (Server.Create), and apply,
// which records its entries itself.
type owner struct {
	// manager is the request's fieldManager, else the name Kubernetes
	// derives from the User-Agent ("" is then "unknown").
	manager string
}

// writeOptions are the query options of a create, update or patch.
type writeOptions struct {
	negotiation.WriteOptions
	owner
	// force is an apply's force: take over conflicting fields.
	force bool
}

// fieldManager is a resource's managedfields.FieldManager, made on first
// use.
type fieldManager struct {
	get func() (*managedfields.FieldManager, error)
	// decodesConfig, set by get (read it after get returns), is whether
	// an apply decodes its configuration into the resource's Go type to
	// find the fields the type lacks, as a POST does: the resource has no
	// schema, of its own or derived, so structured-merge-diff takes any
	// field, and its objects are not Unstructured, so decoding the merged
	// object would drop those fields silently.
	decodesConfig bool
}

// newFieldManager returns r's fieldManager; versionOf (nil: none) finds
// the other versions of r's objects that r.ConvertTo converts to.
func newFieldManager(r *Resource, versionOf func(r *Resource, apiVersion string) *resource) *fieldManager {
	f := &fieldManager{}
	f.get = sync.OnceValues(func() (*managedfields.FieldManager, error) {
		t, err := applyType(r)
		if err != nil {
			return nil, err
		}
		if t.Schema == typed.DeducedParseableType.Schema {
			_, u := r.New().(*Unstructured)
			f.decodesConfig = !u
		}
		empty, err := objectMap(r.New())
		if err != nil {
			return nil, err
		}
		opts := managedfields.Options{APIVersion: r.GroupVersion(), Kind: r.Kind, Type: t, Empty: empty,
			StatusSubresource: r.StatusSubresource}
		if r.ConvertTo != nil && versionOf != nil {
			opts.Convert = func(obj map[string]any, apiVersion string) (map[string]any, *managedfields.FieldManager, error) {
				return convertFields(r, versionOf(r, apiVersion), obj, apiVersion)
			}
		}
		return managedfields.New(opts), nil
	})
	return f
}

// convertFields converts obj, an object of r as a JSON value, to the
// version other serves (nil: none is served) with r.ConvertTo, for
// managedfields.Options.Convert.
func convertFields(r *Resource, other *resource, obj map[string]any, apiVersion string) (map[string]any, *managedfields.FieldManager, error) {
	if other == nil {
		return nil, nil, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, err
	}
	o := r.New()
	if err := json.Unmarshal(b, o); err != nil {
		return nil, nil, err
	}
	out, ok, err := r.ConvertTo(o, apiVersion)
	if err != nil || !ok {
		return nil, nil, err
	}
	m, err := objectMap(out)
	if err != nil {
		return nil, nil, err
	}
	fm, err := other.fields.get()
	return m, fm, err
}

// versionOf returns the served resource that is version apiVersion of
// r's kind in r's storage, or nil.
func (s *Server) versionOf(r *Resource, apiVersion string) *resource {
	storageOf := func(d *Resource) status.GroupResource {
		if d.StorageResource.Resource != "" {
			return d.StorageResource
		}
		return status.GroupResource{Group: d.Group, Resource: d.Plural}
	}
	for _, o := range s.reg.Load().resources {
		if o.def != r && o.def.Kind == r.Kind && o.def.GroupVersion() == apiVersion && storageOf(o.def) == storageOf(r) {
			return o
		}
	}
	return nil
}

// objectMap is o as a JSON value, without kind, apiVersion and
// managedFields (which travel separately; the decoder skips them). o is
// not changed, even for a moment: it may be a stored object that other
// requests are encoding.
func objectMap(o Object) (map[string]any, error) {
	b, err := json.Marshal(untyped(o))
	if err != nil {
		return nil, err
	}
	return decodeObjectMap(b)
}

// storedMap is objectMap(o) for o, a stored object (or one Resource.Read
// made of it): it decodes o's cached list-item JSON, which the write that
// stored o encoded already for its response and watchers, instead of
// encoding o once more (and it leaves the shared stored object
// untouched).
func (c *codec) storedMap(o Object) (map[string]any, error) {
	b, err := c.st.Encoded(o, c.itemJSON)
	if err != nil {
		return nil, err
	}
	return c.mapOf(b)
}

// mapOf is objectMap's value for b, an object's JSON in itemJSON's form:
// that is its plain JSON plus, for TypedListItems, kind and apiVersion,
// which it drops, as decodeObjectMap drops metadata.managedFields.
func (c *codec) mapOf(b []byte) (map[string]any, error) {
	out, err := decodeObjectMap(b)
	if err == nil && c.res.TypedListItems {
		delete(out, "kind")
		delete(out, "apiVersion")
	}
	return out, err
}

// recordWrite sets the managedFields of w.obj, after a write by own, to
// Kubernetes' record of it; nil own records nothing. Like Kubernetes, it
// never fails the write: on an internal error the object keeps the
// entries of the current one, and the error is logged.
func (s *Server) recordWrite(w *write, own *owner) {
	if own == nil {
		return
	}
	rs := w.t.res
	var oldEntries []meta.ManagedFieldsEntry
	if w.old != nil {
		oldEntries = w.old.Meta().ManagedFields
	}
	entries, err := s.managedFieldsOf(w, own)
	if err != nil {
		entries = oldEntries
		s.log.Warn("managedFields not updated", "resource", rs.gr.String(), "name", w.obj.Meta().Name, "err", err)
	}
	w.obj.Meta().ManagedFields = entries
}

// managedFieldsOf computes the entries of recordWrite from the write's
// encodings: the object's and the current one's cached JSON.
func (s *Server) managedFieldsOf(w *write, own *owner) ([]meta.ManagedFieldsEntry, error) {
	rs := w.t.res
	fm, err := rs.fields.get()
	if err != nil {
		return nil, err
	}
	op := managedfields.Operation{Manager: own.manager, Subresource: w.t.sub, Time: s.now()}
	if w.old == nil && len(w.obj.Meta().ManagedFields) == 0 {
		// A create's first entry, from the encoding alone when the
		// object's shape was met before.
		return fm.Created(w.enc.b, rs.codec.mapOf, op)
	}
	var live map[string]any
	var liveEntries []meta.ManagedFieldsEntry
	if w.old != nil {
		if live, err = rs.codec.mapOf(w.oldJSON); err != nil {
			return nil, err
		}
		liveEntries = w.old.Meta().ManagedFields
	}
	obj, err := rs.codec.mapOf(w.enc.b)
	if err != nil {
		return nil, err
	}
	return fm.Update(live, obj, liveEntries, w.obj.Meta().ManagedFields, op)
}
