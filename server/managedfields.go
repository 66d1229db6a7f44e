package server

import (
	"encoding/json"
	"sync"

	"github.com/apisem/apisem/managedfields"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
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
}

func newFieldManager(r *Resource) *fieldManager {
	return &fieldManager{get: sync.OnceValues(func() (*managedfields.FieldManager, error) {
		t, err := applyType(r)
		if err != nil {
			return nil, err
		}
		empty, err := objectMap(r.New())
		if err != nil {
			return nil, err
		}
		return managedfields.New(managedfields.Options{APIVersion: r.GroupVersion(), Kind: r.Kind, Type: t, Empty: empty,
			StatusSubresource: r.StatusSubresource}), nil
	})}
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

// storedMap is objectMap(o) for o, the current state of an update as the
// store holds it: it decodes o's cached list-item JSON, which the write
// that stored o usually encoded already for its response and watchers,
// instead of encoding o once more (and it leaves the shared stored object
// untouched). That JSON is o's plain JSON plus, for TypedListItems, kind
// and apiVersion, so dropping those and metadata.managedFields gives
// objectMap's value. With Resource.Read the old state is not the stored
// object, and objectMap does the work.
func (c *codec) storedMap(o Object) (map[string]any, error) {
	if c.res.Read != nil {
		return objectMap(o)
	}
	b, err := c.st.Encoded(o, c.itemJSON)
	if err != nil {
		return nil, err
	}
	out, err := decodeObjectMap(b)
	if err == nil && c.res.TypedListItems {
		delete(out, "kind")
		delete(out, "apiVersion")
	}
	return out, err
}

// recordWrite sets the managedFields of o, the new state of old (nil on
// create) after a write by own to t, to Kubernetes' record of it. Like
// Kubernetes, it never fails the write: on an internal error o keeps the
// entries of old, and the error is logged.
func (s *Server) recordWrite(t *target, o, old Object, own *owner) {
	if own == nil {
		return
	}
	rs := t.res
	var oldEntries []meta.ManagedFieldsEntry
	if old != nil {
		oldEntries = old.Meta().ManagedFields
	}
	entries, err := s.managedFieldsOf(rs, o, old, own, t.sub)
	if err != nil {
		entries = oldEntries
		s.log.Warn("managedFields not updated", "resource", rs.gr.String(), "name", o.Meta().Name, "err", err)
	}
	o.Meta().ManagedFields = entries
}

func (s *Server) managedFieldsOf(rs *resource, o, old Object, own *owner, subresource string) ([]meta.ManagedFieldsEntry, error) {
	fm, err := rs.fields.get()
	if err != nil {
		return nil, err
	}
	var live map[string]any
	var liveEntries []meta.ManagedFieldsEntry
	if old != nil {
		if live, err = rs.codec.storedMap(old); err != nil {
			return nil, err
		}
		liveEntries = old.Meta().ManagedFields
	}
	obj, err := objectMap(o)
	if err != nil {
		return nil, err
	}
	return fm.Update(live, obj, liveEntries, o.Meta().ManagedFields,
		managedfields.Operation{Manager: own.manager, Subresource: subresource, Time: s.now()})
}
