// Package managedfields keeps metadata.managedFields, the record of which
// field manager set which fields of an object, and performs server-side
// apply, with the rules of Kubernetes' field manager
// (k8s.io/apimachinery/pkg/util/managedfields). The merge and ownership
// algebra is sigs.k8s.io/structured-merge-diff, the library Kubernetes
// uses; this package is the bookkeeping around it.
//
// # Writes
//
// Every write records the fields it set for its manager. An Update
// (create, update, patch) merges its changes into the manager's Update
// entry, one per manager, apiVersion and subresource; an Apply replaces
// the manager's Apply entry with the fields of the applied configuration,
// removes the fields it applied before and no longer does (unless another
// manager owns them), and fails with a 409 Conflict on fields another
// manager owns, unless forced. Entries carry the time of the last write
// that changed them, to the second.
//
// Kubernetes' bookkeeping rules hold:
//
//   - the fields that identify an object or that the server sets (name,
//     namespace, uid, resourceVersion, generation, creationTimestamp,
//     managedFields, apiVersion and kind) are never owned;
//   - a write may replace the entries; [] or [{}] clears them, and entries
//     that do not decode are ignored in favour of the stored ones;
//   - an existing object without entries gets none from an Update; its
//     first Apply gives its existing fields to "before-first-apply";
//   - past 10 Update entries the oldest are folded into "ancient-changes";
//   - the manager "kubectl" may take over, on its first server-side apply,
//     the fields its client-side last-applied configuration shows it set,
//     and keeps that annotation up to date;
//   - a write to a scale subresource is recorded on the autoscaling/v1
//     Scale view of the object and mapped back to its replicas field
//     (ScaleMapping).
//
// # Types
//
// A FieldManager works on one type, described as a structured-merge-diff
// type: from an OpenAPI schema, where x-kubernetes-list-type,
// -list-map-keys and -map-type say how lists and maps merge (package
// server builds it from Resource.Schema), or the deduced type of a
// resource without one, where maps merge key by key and lists are atomic.
//
// # Cost
//
// structured-merge-diff builds its field sets with sorted inserts, which
// cost O(n²) for a map of n keys visited in Go's random order: an apply
// of a 100,000-key map took seconds of CPU. Objects with a map of 256 keys
// or more reach it as views that visit maps in key order, which makes
// those inserts appends (order.go); the results are the same. Lists keep
// their order, so a list merged by key or as a set with many items out
// of order still costs O(n²). The same holds for the fieldsV1 of
// managedFields, which structured-merge-diff decodes with those inserts:
// the entries a write carries are put in order before they are decoded
// (fieldsorder.go); those the server wrote are in order.
//
// CheckApplySize lets a server refuse, before the merge, an applied
// configuration whose object cannot fit in its size limit, with the
// error the size check of the stored object gives. Kubernetes merges
// first, so for such a configuration it can answer a conflict or a
// validation error where the check answers the size error.
//
// # Non-goals
//
// One version per type: entries of any other apiVersion are dropped, as
// Kubernetes drops those of a version it no longer serves, unless
// Options.Convert converts to it. No reset
// fields (the status a main-resource write may not set): the caller's
// defaulting decides what is stored, and ownership follows what is.
package managedfields
