// Package patch applies the three patch formats a Kubernetes API server
// accepts on PATCH, to JSON documents:
//
//   - MergePatch: application/merge-patch+json, RFC 7386. Objects merge
//     recursively, null deletes a member, anything else replaces.
//   - JSONPatch: application/json-patch+json, RFC 6902. A list of add,
//     remove, replace, move, copy and test operations addressed by JSON
//     pointers (RFC 6901), applied in order, all or nothing.
//   - StrategicMergePatch: application/strategic-merge-patch+json, the
//     Kubernetes format kubectl label, annotate, edit and client-side apply
//     send for built-in types. Like a merge patch, but lists the Schema marks
//     as merging are merged element by element (by a merge key for lists of
//     objects, as a set for lists of primitives), and the directives $patch
//     (replace, delete), $retainKeys, $deleteFromPrimitiveList/<field> and
//     $setElementOrder/<field> are understood.
//
// Every function takes the current document and the patch as JSON bytes
// and returns the patched document as JSON bytes. Numbers pass through
// unchanged (no float64 rounding of large integers). Map keys of the result
// come out sorted; the caller decodes the result into its typed object,
// which fixes field order anyway.
//
// # Errors
//
// A patch that is not a valid document of its format wraps ErrMalformed (a
// server answers 400 BadRequest); a valid patch that cannot be applied to
// this document, such as a failed JSON patch test or a path that does not
// exist, wraps ErrNotApplicable (422 Invalid); a patch over the Limits
// wraps ErrTooLarge (413). Malformed input never panics.
//
// # Bounds
//
// Merge and strategic merge patches cost time linear in the sizes of the
// document and the patch. A JSON patch can copy values, which would let a
// small patch build a huge document, so copies are charged against
// Limits.MaxCopyBytes, and the number of operations is capped as Kubernetes
// caps it (10,000).
//
// # Non-goals
//
// Server-side apply (application/apply-patch+yaml) needs managed fields and
// field ownership, and is not implemented here. Strategic merge patch knows
// only what a Schema tells it: there is no reflection over Go struct tags,
// and the patchStrategy "retainKeys" and "replace" markers on structs are
// not modelled (a $retainKeys directive in a patch still works).
package patch
