package managedfields

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apisem/apisem/meta"
)

// The operations of a managedFields entry.
const (
	OperationApply  = "Apply"
	OperationUpdate = "Update"
)

// fieldsTypeV1 is the only format of fieldsV1.
const fieldsTypeV1 = "FieldsV1"

// Names Kubernetes' field manager gives the entries it makes itself.
const (
	// unknownManager owns an Update whose request named no manager and
	// sent no User-Agent.
	unknownManager = "unknown"
	// ancientManager gathers the oldest Update entries past the cap.
	ancientManager = "ancient-changes"
	// beforeFirstApply owns the fields of an object that had no
	// managedFields when it was first applied to.
	beforeFirstApply = "before-first-apply"
	// currentOperation is the working name of an Update's own changes
	// before they join the manager's entry.
	currentOperation = "current-operation"
)

// managed is a decoded managedFields: each manager's fields, keyed by the
// manager's identity (see identity), and the time of its entry.
type managed struct {
	fields fieldpath.ManagedFields
	times  map[string]*meta.Time
}

func newManaged() managed {
	return managed{fields: fieldpath.ManagedFields{}, times: map[string]*meta.Time{}}
}

// identity names one entry: the JSON of its manager, operation, apiVersion
// (not for Apply, whose fields are one set across versions) and
// subresource. Two writes with the same identity share one entry.
func identity(manager, operation, apiVersion, subresource string) string {
	if operation == OperationApply {
		apiVersion = ""
	}
	b, _ := json.Marshal(meta.ManagedFieldsEntry{Manager: manager, Operation: operation, APIVersion: apiVersion, Subresource: subresource})
	return string(b)
}

// parseIdentity is the entry an identity names, without fields or time.
func parseIdentity(id string) (meta.ManagedFieldsEntry, error) {
	var e meta.ManagedFieldsEntry
	err := json.Unmarshal([]byte(id), &e)
	return e, err
}

// errInvalidEntries reports managedFields that cannot be decoded.
var errInvalidEntries = errors.New("managedfields: invalid managedFields")

// decode reads entries as Kubernetes' field manager does: every entry must
// have operation Apply or Update, an apiVersion, fieldsType FieldsV1 and a
// valid field set; entries with one identity collapse to the last.
func decode(entries []meta.ManagedFieldsEntry) (managed, error) {
	m := managed{fields: make(fieldpath.ManagedFields, len(entries)), times: make(map[string]*meta.Time, len(entries))}
	for i, e := range entries {
		switch {
		case e.Operation != OperationApply && e.Operation != OperationUpdate:
			return managed{}, fmt.Errorf("%w: operation must be `Apply` or `Update`", errInvalidEntries)
		case e.APIVersion == "":
			return managed{}, fmt.Errorf("%w: apiVersion must not be empty", errInvalidEntries)
		case e.FieldsType == "":
			return managed{}, fmt.Errorf("%w: missing fieldsType in managed fields entry %d", errInvalidEntries, i)
		case e.FieldsType != fieldsTypeV1:
			return managed{}, fmt.Errorf("%w: invalid fieldsType %q in managed fields entry %d", errInvalidEntries, e.FieldsType, i)
		}
		id := identity(e.Manager, e.Operation, e.APIVersion, e.Subresource)
		set := &fieldpath.Set{}
		raw := []byte("{}")
		if e.FieldsV1 != nil && len(e.FieldsV1.Raw) > 0 {
			raw = e.FieldsV1.Raw
		}
		if err := set.FromJSON(bytes.NewReader(raw)); err != nil {
			return managed{}, fmt.Errorf("%w: error decoding set of entry %d: %v", errInvalidEntries, i, err)
		}
		m.fields[id] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == OperationApply)
		m.times[id] = e.Time
	}
	return m, nil
}

// isReset reports whether a write's managedFields ask to clear them: an
// empty list, or a list of one empty entry.
func isReset(entries []meta.ManagedFieldsEntry) bool {
	switch len(entries) {
	case 0:
		return entries != nil
	case 1:
		e := entries[0]
		return e.Manager == "" && e.Operation == "" && e.APIVersion == "" && e.Time == nil &&
			e.FieldsType == "" && e.FieldsV1 == nil && e.Subresource == ""
	}
	return false
}

// encode writes m as entries in Kubernetes' order: Apply before Update,
// then by time (to the second), manager, apiVersion and subresource. An
// empty m is nil.
func encode(m managed) ([]meta.ManagedFieldsEntry, error) {
	if len(m.fields) == 0 {
		return nil, nil
	}
	out := make([]meta.ManagedFieldsEntry, 0, len(m.fields))
	for id, vs := range m.fields {
		e, err := parseIdentity(id)
		if err != nil {
			return nil, fmt.Errorf("managedfields: bad manager identity %q: %v", id, err)
		}
		e.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			e.Operation = OperationApply
		}
		e.FieldsType = fieldsTypeV1
		raw, err := vs.Set().ToJSON()
		if err != nil {
			return nil, err
		}
		e.FieldsV1 = &meta.FieldsV1{Raw: raw}
		if t := m.times[id]; t != nil {
			c := *t
			e.Time = &c
		}
		out = append(out, e)
	}
	slices.SortFunc(out, compareEntries)
	return out, nil
}

func unixSeconds(t *meta.Time) int64 {
	if t == nil {
		return 0
	}
	return t.Unix()
}

func compareEntries(p, q meta.ManagedFieldsEntry) int {
	if c := strings.Compare(p.Operation, q.Operation); c != 0 {
		return c
	}
	if ps, qs := unixSeconds(p.Time), unixSeconds(q.Time); ps != qs {
		if ps < qs {
			return -1
		}
		return 1
	}
	if c := strings.Compare(p.Manager, q.Manager); c != 0 {
		return c
	}
	if c := strings.Compare(p.APIVersion, q.APIVersion); c != 0 {
		return c
	}
	return strings.Compare(p.Subresource, q.Subresource)
}

// capUpdates folds the oldest Update entries into one "ancient-changes"
// entry per apiVersion until at most max Update entries remain, as
// Kubernetes' field manager does after every Update (never after an
// Apply). Entries are taken oldest first (by second, then identity); the
// first of a version stays until a second one of that version joins it.
func capUpdates(m managed, max int) {
	var updaters []string
	for id, vs := range m.fields {
		if !vs.Applied() {
			updaters = append(updaters, id)
		}
	}
	if len(updaters) <= max {
		return
	}
	slices.SortFunc(updaters, func(a, b string) int {
		if as, bs := unixSeconds(m.times[a]), unixSeconds(m.times[b]); as != bs {
			if as < bs {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	firstOfVersion := map[fieldpath.APIVersion]string{}
	n := len(updaters)
	for _, id := range updaters {
		if n <= max {
			break
		}
		vs := m.fields[id]
		version := vs.APIVersion()
		bucket := identity(ancientManager, OperationUpdate, string(version), "")
		first, ok := firstOfVersion[version]
		if !ok {
			firstOfVersion[version] = id
			continue
		}
		if _, ok := m.fields[bucket]; !ok {
			// The first of the version becomes the bucket.
			m.fields[bucket] = m.fields[first]
			delete(m.fields, first)
		}
		m.fields[bucket] = fieldpath.NewVersionedSet(vs.Set().Union(m.fields[bucket].Set()), version, vs.Applied())
		delete(m.fields, id)
		n--
		m.times[bucket] = m.times[id]
	}
}

// stripSet are the fields no manager owns: those the server sets or that
// identify the object.
var stripSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// strip removes stripSet from id's fields, and the entry if nothing is
// left.
func strip(fields fieldpath.ManagedFields, id string) {
	vs, ok := fields[id]
	if !ok {
		return
	}
	s := vs.Set().Difference(stripSet)
	if s.Empty() {
		delete(fields, id)
		return
	}
	fields[id] = fieldpath.NewVersionedSet(s, vs.APIVersion(), vs.Applied())
}
