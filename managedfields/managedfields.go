package managedfields

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

// DefaultMaxUpdateManagers is how many Update entries an object keeps
// before the oldest are folded into "ancient-changes": Kubernetes' 10.
const DefaultMaxUpdateManagers = 10

// Options configure a FieldManager. APIVersion and Kind are required; the
// zero value of every other field means the default written next to it.
type Options struct {
	// APIVersion ("group/version", or "v1" for the core group) and Kind
	// are the type of the objects. An applied configuration must name
	// exactly these.
	APIVersion, Kind string
	// Type is the structured-merge-diff type of the objects, which says
	// how lists and maps merge. The zero value means
	// typed.DeducedParseableType: maps merge key by key and lists are
	// atomic, as for a custom resource without a schema.
	Type typed.ParseableType
	// Empty is an empty object of the type as the type's zero value
	// encodes it (for example {"spec":{}} for a struct type whose spec is
	// not a pointer): the state before a create, whose fields no write
	// set. nil means {}.
	Empty map[string]any
	// MaxUpdateManagers caps the Update entries; 0 means
	// DefaultMaxUpdateManagers.
	MaxUpdateManagers int
	// StatusSubresource: the objects' status is written through the
	// status subresource. A write to the object then owns nothing of
	// status, and one to the subresource "status" nothing but status
	// (Kubernetes' reset fields of such a type).
	StatusSubresource bool
	// Convert, when set, converts obj, an object of the type, to
	// apiVersion, another version of its kind, and returns it with that
	// version's FieldManager, whose type parses it: a write then keeps
	// the entries of that version, taking from them what it changes, as
	// Kubernetes' field manager converts objects between the versions
	// of a kind. A nil FieldManager (or a nil Convert) means the version
	// cannot be converted to: its entries are dropped.
	Convert func(obj map[string]any, apiVersion string) (map[string]any, *FieldManager, error)
}

// FieldManager keeps the metadata.managedFields of the objects of one type
// and performs server-side apply on them, with Kubernetes' rules (the
// field manager of k8s.io/apimachinery/pkg/util/managedfields). A
// FieldManager is immutable and safe for concurrent use.
//
// Objects are JSON values as encoding/json decodes them into an any
// (map[string]any, []any, string, bool, nil, and int64 or float64
// numbers), without metadata.managedFields: the entries travel
// separately. The FieldManager does not modify the maps it is given.
type FieldManager struct {
	opts    Options
	typ     typed.ParseableType
	version fieldpath.APIVersion
	// updater merges; with a status subresource, objectUpdater and
	// statusUpdater filter what writes to the object and to its status
	// may own.
	updater, objectUpdater, statusUpdater *merge.Updater
	// objectFilter and statusFilter are the two updaters' filters.
	objectFilter, statusFilter fieldpath.Filter
	max                        int
	views                      viewFrom
	// create is what a create's first entry needs, and shapes the field
	// sets of the shapes of objects created (create.go).
	create createShape
	shapes shapes
	// jsonShapes are the field sets of Created, by the shape of the
	// object's JSON.
	jsonShapes shapes
}

// New returns a FieldManager for opts.
func New(opts Options) *FieldManager { return newFieldManager(opts, bigMap) }

func newFieldManager(opts Options, views viewFrom) *FieldManager {
	f := &FieldManager{opts: opts, typ: opts.Type, version: fieldpath.APIVersion(opts.APIVersion), max: opts.MaxUpdateManagers, views: views}
	if f.typ.Schema == nil {
		f.typ = typed.DeducedParseableType
	}
	if f.max <= 0 {
		f.max = DefaultMaxUpdateManagers
	}
	c := converter{f.version, views, opts.Convert}
	f.updater = (&merge.UpdaterBuilder{Converter: c}).BuildUpdater()
	if opts.StatusSubresource {
		status := fieldpath.MakePathOrDie("status")
		f.objectFilter = fieldpath.NewExcludeSetFilter(fieldpath.NewSet(status))
		f.statusFilter = fieldpath.NewIncludeMatcherFilter(fieldpath.MakePrefixMatcherOrDie("status"))
		f.objectUpdater = (&merge.UpdaterBuilder{Converter: c, IgnoreFilter: map[fieldpath.APIVersion]fieldpath.Filter{
			f.version: f.objectFilter}}).BuildUpdater()
		f.statusUpdater = (&merge.UpdaterBuilder{Converter: c, IgnoreFilter: map[fieldpath.APIVersion]fieldpath.Filter{
			f.version: f.statusFilter}}).BuildUpdater()
	}
	f.create = newCreateShape(f)
	return f
}

// updaterFor is the updater of a write to subresource.
func (f *FieldManager) updaterFor(subresource string) *merge.Updater {
	switch {
	case !f.opts.StatusSubresource:
		return f.updater
	case subresource == "status":
		return f.statusUpdater
	case subresource == "":
		return f.objectUpdater
	}
	return f.updater
}

// filterFor is the filter of updaterFor(subresource), nil for none.
func (f *FieldManager) filterFor(subresource string) fieldpath.Filter {
	switch {
	case !f.opts.StatusSubresource:
		return nil
	case subresource == "status":
		return f.statusFilter
	case subresource == "":
		return f.objectFilter
	}
	return nil
}

// Operation is one write to an object.
type Operation struct {
	// Manager is the field manager: the request's fieldManager, or a name
	// derived from its User-Agent (ManagerFromUserAgent). "" is
	// "unknown" for an Update; an Apply must name one.
	Manager string
	// Subresource is the subresource written, "" for the object itself.
	Subresource string
	// Time is when the write happens; entries keep it to the second.
	Time time.Time
}

func (op Operation) time() *meta.Time {
	t := op.timeValue()
	return &t
}

// timeValue is time's value.
func (op Operation) timeValue() meta.Time {
	return meta.NewTime(op.Time.UTC().Truncate(time.Second))
}

// converter converts objects between versions for the merge: a
// FieldManager serves one version; the entries of another are kept only
// where Options.Convert converts to it.
type converter struct {
	version fieldpath.APIVersion
	views   viewFrom
	convert func(map[string]any, string) (map[string]any, *FieldManager, error)
}

// errMissingVersion is the conversion of an object to a version the type
// does not have.
var errMissingVersion = errors.New("managedfields: no such version")

func (c converter) Convert(o *typed.TypedValue, v fieldpath.APIVersion) (*typed.TypedValue, error) {
	if v != c.version {
		return c.other(o, v)
	}
	// The objects structured-merge-diff made (merged, pruned) come back
	// as sorted views, which keep its field sets linear (order.go).
	return c.views.typed(o), nil
}

// other converts o to v, another version, with Options.Convert.
func (c converter) other(o *typed.TypedValue, v fieldpath.APIVersion) (*typed.TypedValue, error) {
	obj, ok := o.AsValue().Unstructured().(map[string]any)
	if c.convert == nil || !ok {
		return nil, fmt.Errorf("%w: %s", errMissingVersion, v)
	}
	out, fm, err := c.convert(obj, string(v))
	switch {
	case err != nil:
		return nil, err
	case fm == nil:
		return nil, fmt.Errorf("%w: %s", errMissingVersion, v)
	}
	return fm.typedOf(out, fm.views.wants(out))
}

func (c converter) IsMissingVersionError(err error) bool { return errors.Is(err, errMissingVersion) }

// empty is Options.Empty, or {}.
func (f *FieldManager) empty() map[string]any {
	if f.opts.Empty == nil {
		return map[string]any{}
	}
	return f.opts.Empty
}

// typedOf parses o (nil: the empty object) as the FieldManager's type;
// sorted, it is a sorted view (order.go), as both sides of a merge or
// comparison with a big map must be.
func (f *FieldManager) typedOf(o map[string]any, sorted bool, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	if o == nil {
		o = f.empty()
	}
	if !sorted {
		return f.typ.FromUnstructured(o, opts...)
	}
	return typed.AsTyped(new(keyCache).view(o), f.typ.Schema, f.typ.TypeRef, opts...)
}

// Update returns the managedFields of obj after a write with operation
// Update changed live into obj. live is nil for a create. liveEntries are
// live's managedFields and objEntries those the write carried: a client
// may replace the entries, reset them with [] or [{}], and entries that
// do not decode are ignored for live's. On a write to a subresource the
// write's entries are always ignored.
//
// An existing object without managedFields stays without them: its
// entries begin with its first apply. On an internal failure (an object
// that does not parse as the type) Update returns liveEntries and the
// error: Kubernetes keeps the write, with the live entries, and logs.
func (f *FieldManager) Update(live, obj map[string]any, liveEntries, objEntries []meta.ManagedFieldsEntry, op Operation) ([]meta.ManagedFieldsEntry, error) {
	if live == nil && len(liveEntries) == 0 && len(objEntries) == 0 {
		// A create that sent no entries: its first.
		if entries, ok, err := f.created(obj, op); ok && err != nil {
			return liveEntries, err
		} else if ok {
			return entries, nil
		}
	}
	m := f.liveOrNew(liveEntries, objEntries, op.Subresource != "")
	if len(m.fields) == 0 && live != nil && uid(live) != "" {
		return nil, nil
	}
	if len(m.fields) == 0 && live == nil {
		if entries, ok, err := f.created(obj, op); ok && err != nil {
			return liveEntries, err
		} else if ok {
			return entries, nil
		}
	}
	return f.updateFrom(live, obj, liveEntries, m, op)
}

// updateFrom is the rest of Update, from m, the entries it starts from.
func (f *FieldManager) updateFrom(live, obj map[string]any, liveEntries []meta.ManagedFieldsEntry, m managed, op Operation) ([]meta.ManagedFieldsEntry, error) {
	if err := f.update(live, obj, m, op); err != nil {
		return liveEntries, err
	}
	capUpdates(m, f.max)
	out, err := encode(m)
	if err != nil {
		return liveEntries, err
	}
	return out, nil
}

// liveOrNew chooses the entries an Update starts from.
func (f *FieldManager) liveOrNew(liveEntries, objEntries []meta.ManagedFieldsEntry, subresource bool) managed {
	if !subresource {
		if isReset(objEntries) {
			return newManaged()
		}
		if m, err := decodeSent(objEntries); err == nil && len(m.fields) > 0 {
			return m
		}
	}
	m, err := decode(liveEntries)
	if err != nil {
		return newManaged()
	}
	return m
}

// update records in m the fields the change from live to obj set, for
// op.Manager with operation Update.
func (f *FieldManager) update(live, obj map[string]any, m managed, op Operation) error {
	manager := op.Manager
	if manager == "" {
		manager = unknownManager
	}
	id := identity(manager, OperationUpdate, string(f.version), op.Subresource)
	sorted := f.views.wants(live, obj)
	liveT, err := f.typedOf(live, sorted, typed.AllowDuplicates)
	if err != nil {
		return fmt.Errorf("failed to convert live object to smd typed: %v", err)
	}
	objT, err := f.typedOf(obj, sorted, typed.AllowDuplicates)
	if err != nil {
		return fmt.Errorf("failed to convert new object to smd typed: %v", err)
	}
	// The write's own changes are computed under a working name, so that
	// the entry's time moves only when the write changed something the
	// manager can own.
	_, fields, err := f.updaterFor(op.Subresource).Update(liveT, objT, f.version, m.fields, currentOperation)
	if err != nil {
		return fmt.Errorf("failed to update ManagedFields: %v", err)
	}
	strip(fields, currentOperation)
	if vs, ok := fields[currentOperation]; ok {
		delete(fields, currentOperation)
		if prev, ok := fields[id]; ok {
			vs = fieldpath.NewVersionedSet(vs.Set().Union(prev.Set()), vs.APIVersion(), vs.Applied())
		}
		fields[id] = vs
		m.times[id] = op.time()
	}
	clear(m.fields)
	maps.Copy(m.fields, fields)
	return nil
}

// Apply merges the applied configuration config into live (nil for an
// object that does not exist yet) for op.Manager, and returns the merged
// object and its managedFields. Fields of config other managers own are
// conflicts: a 409 Conflict (status.NewApplyConflict) unless force, which
// takes them over. Fields op.Manager applied before and config leaves out
// are removed unless another manager owns them too.
//
// config must name the FieldManager's apiVersion and kind and carry no
// metadata.managedFields (400 BadRequest otherwise); a config that does
// not parse as the type, such as one with a field the schema does not
// declare, fails with a plain error, which Kubernetes answers with a 500.
// When config changes nothing the result is live, and no entry's time
// moves.
func (f *FieldManager) Apply(live map[string]any, liveEntries []meta.ManagedFieldsEntry, config map[string]any, op Operation, force bool) (map[string]any, []meta.ManagedFieldsEntry, error) {
	m, err := decode(liveEntries)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to decode managed fields: %v", err)
	}
	if gv, kind := str(config["apiVersion"]), str(config["kind"]); gv != f.opts.APIVersion || kind != f.opts.Kind {
		return nil, nil, status.NewBadRequest("invalid object type: " + gvkString(gv, kind))
	}
	if md, ok := config["metadata"].(map[string]any); ok && md["managedFields"] != nil {
		return nil, nil, status.NewBadRequest("metadata.managedFields must be nil")
	}
	if live != nil {
		// The live object as the config names its type, so that a config
		// that changes nothing merges into exactly live: then no entry's
		// time moves and the write changes nothing, as on a cluster, whose
		// live objects carry their apiVersion and kind.
		live = maps.Clone(live)
		live["apiVersion"], live["kind"] = f.opts.APIVersion, f.opts.Kind
	}
	out, err := f.applyAs(live, config, m, op, force)
	if errors.As(err, new(merge.Conflicts)) && op.Manager == kubectlManager {
		// kubectl's first server-side apply of an object it applied on
		// the client side may take the fields its last-applied
		// configuration shows it set, and that still hold those values.
		var conflicts merge.Conflicts
		errors.As(err, &conflicts)
		if allowed := f.lastAppliedFields(live); allowed != nil {
			var rest merge.Conflicts
			for _, c := range conflicts {
				if !allowed.Has(c.Path) {
					rest = append(rest, c)
				}
			}
			if len(rest) == 0 {
				m, _ = decode(liveEntries)
				out, err = f.applyAs(live, config, m, op, true)
			} else {
				err = rest
			}
		}
	}
	if err != nil {
		var conflicts merge.Conflicts
		if errors.As(err, &conflicts) {
			return nil, nil, conflictError(conflicts)
		}
		return nil, nil, err
	}
	if op.Manager == kubectlManager {
		out = updateLastApplied(out, config)
	}
	entries, err := encode(m)
	if err != nil {
		return nil, nil, err
	}
	return out, entries, nil
}

// applyAs is one attempt of Apply, recording into m.
func (f *FieldManager) applyAs(live, config map[string]any, m managed, op Operation, force bool) (map[string]any, error) {
	if len(m.fields) == 0 {
		// The fields of an object that nobody owns yet are given to
		// "before-first-apply", so that the apply conflicts with them
		// rather than silently taking them. Kubernetes records it as an
		// Update of the subresource applied to, whose fields are the
		// subresource's (status alone, for "status").
		if err := f.update(nil, live, m, Operation{Manager: beforeFirstApply, Subresource: op.Subresource, Time: op.Time}); err != nil {
			return nil, fmt.Errorf("failed to create manager for existing fields: %v", err)
		}
	}
	id := identity(op.Manager, OperationApply, "", op.Subresource)
	sorted := f.views.wants(live, config)
	liveT, err := f.typedOf(live, sorted, typed.AllowDuplicates)
	if err != nil {
		return nil, fmt.Errorf("failed to create typed live object (%s): %v", f.objectName(live), err)
	}
	configT, err := f.typedOf(config, sorted)
	if err != nil {
		return nil, fmt.Errorf("failed to create typed patch object (%s): %v", f.objectName(config), err)
	}
	merged, fields, err := f.updaterFor(op.Subresource).Apply(liveT, configT, f.version, m.fields, id, force)
	if err != nil {
		return nil, err
	}
	strip(fields, id)
	clear(m.fields)
	maps.Copy(m.fields, fields)
	if merged == nil {
		// Nothing changed: the object stays as it is.
		if live == nil {
			return f.empty(), nil
		}
		return live, nil
	}
	m.times[id] = op.time()
	out, ok := merged.AsValue().Unstructured().(map[string]any)
	if !ok {
		return nil, fmt.Errorf("failed to convert merged object (%s): not an object", f.objectName(config))
	}
	return out, nil
}

// objectName is how Kubernetes names an object in the errors of apply:
// "namespace/name; group/version, Kind=Kind".
func (f *FieldManager) objectName(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	return str(md["namespace"]) + "/" + str(md["name"]) + "; " + gvkString(str(o["apiVersion"]), str(o["kind"]))
}

// gvkString writes a kind as Kubernetes' GroupVersionKind.String does:
// "group/version, Kind=Kind", with an empty group for the core group and
// an apiVersion that does not parse kept out.
func gvkString(apiVersion, kind string) string {
	group, version := "", apiVersion
	switch n := strings.Count(apiVersion, "/"); {
	case n == 1:
		group, version, _ = strings.Cut(apiVersion, "/")
	case n > 1:
		version = ""
	}
	return group + "/" + version + ", Kind=" + kind
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func uid(o map[string]any) string {
	md, _ := o["metadata"].(map[string]any)
	return str(md["uid"])
}

// conflictError is Kubernetes' 409 for an apply's conflicts: one cause
// per field, and a message that names each manager with the fields it
// owns.
func conflictError(conflicts merge.Conflicts) *status.Error {
	// smd collects them from a map; order them by manager, keeping each
	// manager's fields in path order.
	slices.SortStableFunc(conflicts, func(a, b merge.Conflict) int { return strings.Compare(a.Manager, b.Manager) })
	causes := make([]status.Cause, 0, len(conflicts))
	for _, c := range conflicts {
		causes = append(causes, status.Cause{Type: status.CauseTypeFieldManagerConflict,
			Message: "conflict with " + printManager(c.Manager), Field: c.Path.String()})
	}
	if len(conflicts) == 1 {
		c := conflicts[0]
		return status.NewApplyConflict(causes, "Apply failed with 1 conflict: conflict with "+printManager(c.Manager)+": "+c.Path.String())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Apply failed with %d conflicts: ", len(conflicts))
	for i, c := range conflicts {
		if i == 0 || conflicts[i-1].Manager != c.Manager {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("conflicts with " + printManager(c.Manager) + ":")
		}
		b.WriteString("\n- " + c.Path.String())
	}
	return status.NewApplyConflict(causes, b.String())
}

// printManager names a manager in a conflict: `"name"`, with its
// subresource, and for an Update the apiVersion it wrote.
func printManager(id string) string {
	e, err := parseIdentity(id)
	if err != nil {
		return fmt.Sprintf("%q", id)
	}
	s := fmt.Sprintf("%q", e.Manager)
	if e.Subresource != "" {
		s += fmt.Sprintf(" with subresource %q", e.Subresource)
	}
	if e.Operation == OperationUpdate {
		s += " using " + e.APIVersion
	}
	return s
}
