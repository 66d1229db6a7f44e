package managedfields

import (
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/apisem/apisem/meta"
)

// ScaleAPIVersion is the apiVersion of the Scale view of a scale
// subresource, and of the entries of ScaleMapping.ToScale.
const ScaleAPIVersion = "autoscaling/v1"

// scaleReplicas is the spec replicas of an autoscaling/v1 Scale.
var scaleReplicas = fieldpath.MakePathOrDie("spec", "replicas")

// ScaleMapping relates the managedFields of an object to those of its
// scale subresource, the autoscaling/v1 Scale view of its replicas, as
// Kubernetes' scale handler does (k8s.io/apimachinery
// pkg/util/managedfields, ScaleHandler). A write to the scale
// subresource runs the field manager of the Scale type on the Scale
// view, whose entries ToScale derives from the object's, and ToObject
// brings the result back:
//
//   - ToScale keeps the entries that own the object's spec replicas, each
//     owning the Scale's spec.replicas alone, as autoscaling/v1;
//   - ToObject takes the spec replicas from the object's entries that
//     no longer own the Scale's, and gives them to the Scale's entries
//     that do, as the object's apiVersion, with no time.
//
// Kubernetes' quirks follow from the identities of entries, which for
// Update entries include the apiVersion: an Update entry of the object
// never matches its Scale counterpart, so every scale write moves the
// spec replicas of such entries into an entry of their own, without time
// (an object's creator then shows twice), and a scale write whose Scale
// view has no entries records nothing.
type ScaleMapping struct {
	// APIVersion is the object's apiVersion at the endpoint written, that
	// of the entries a scale write adds.
	APIVersion string
	// Replicas maps each apiVersion the object's entries may name to
	// the path of its spec replicas, as member names ("spec",
	// "replicas"). A version mapped to nil has no scale subresource: its
	// entries are kept as they are. Entries of versions missing from the
	// map are dropped, as Kubernetes drops those of a version it does not
	// serve.
	Replicas map[string][]string
}

// path is the spec replicas of version; ok is false when the version is
// unknown, and p nil when it has no scale subresource.
func (m ScaleMapping) path(version fieldpath.APIVersion) (p fieldpath.Path, ok bool) {
	names, ok := m.Replicas[string(version)]
	if !ok || names == nil {
		return nil, ok
	}
	parts := make([]any, len(names))
	for i, n := range names {
		parts[i] = n
	}
	p, err := fieldpath.MakePath(parts...)
	if err != nil {
		return nil, false
	}
	return p, true
}

// ToScale returns the entries of the Scale view of an object whose
// entries are entries. Entries that do not decode are an error.
func (m ScaleMapping) ToScale(entries []meta.ManagedFieldsEntry) ([]meta.ManagedFieldsEntry, error) {
	obj, err := decode(entries)
	if err != nil {
		return nil, err
	}
	out := newManaged()
	for id, vs := range obj.fields {
		p, _ := m.path(vs.APIVersion())
		if p == nil || !vs.Set().Has(p) {
			continue
		}
		out.fields[id] = fieldpath.NewVersionedSet(fieldpath.NewSet(scaleReplicas), ScaleAPIVersion, vs.Applied())
		out.times[id] = obj.times[id]
	}
	return encode(out)
}

// ToObject returns the object's entries after a write to its scale
// subresource: entries are the object's before the write, scale the
// Scale view's after it.
func (m ScaleMapping) ToObject(entries, scale []meta.ManagedFieldsEntry) ([]meta.ManagedFieldsEntry, error) {
	obj, err := decode(entries)
	if err != nil {
		return nil, err
	}
	sc, err := decode(scale)
	if err != nil {
		return nil, err
	}
	out := newManaged()
	for id, vs := range obj.fields {
		p, ok := m.path(vs.APIVersion())
		switch {
		case !ok:
			continue
		case p == nil || !vs.Set().Has(p):
			out.fields[id], out.times[id] = vs, obj.times[id]
		case sc.fields[id] != nil:
			// The entry still owns the Scale's replicas: unchanged.
			out.fields[id], out.times[id] = vs, obj.times[id]
			delete(sc.fields, id)
		default:
			if rest := vs.Set().Difference(fieldpath.NewSet(p)); !rest.Empty() {
				out.fields[id] = fieldpath.NewVersionedSet(rest, vs.APIVersion(), vs.Applied())
				out.times[id] = obj.times[id]
			}
		}
	}
	own, _ := m.path(fieldpath.APIVersion(m.APIVersion))
	for id, vs := range sc.fields {
		if own == nil || !vs.Set().Has(scaleReplicas) {
			continue
		}
		out.fields[id] = fieldpath.NewVersionedSet(fieldpath.NewSet(own), fieldpath.APIVersion(m.APIVersion), vs.Applied())
		// Kubernetes looks the time up among the object's entries,
		// where an entry of the Scale view is not.
		out.times[id] = obj.times[id]
	}
	return encode(out)
}
