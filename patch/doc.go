// Package patch applies the bodies of PATCH requests to an object's JSON the
// way a Kubernetes API server does, with its status codes and messages.
//
// Apply takes the object's JSON, the request body and its Content-Type:
//
//   - application/json-patch+json, RFC 6902: a list of add, remove,
//     replace, move, copy and test operations, applied in order, all or
//     nothing.
//   - application/merge-patch+json, RFC 7386: objects merge recursively,
//     null deletes a member, anything else replaces.
//   - application/strategic-merge-patch+json, the Kubernetes format kubectl
//     label, annotate, edit and client-side apply send for built-in types:
//     a merge patch in which the lists a Schema marks merge element by
//     element, with the directives $patch, $retainKeys,
//     $deleteFromPrimitiveList/<field> and $setElementOrder/<field>. A
//     merged list comes in Kubernetes' order: the patch's elements in the
//     patch's order, the server's others interleaved by their old
//     positions where they can be, after the patch's otherwise (patching
//     [a,b] with [c] gives [c,a,b]).
//
// JSON and merge patches go through github.com/evanphx/json-patch/v5, the
// library Kubernetes uses (in its v4 form), with Kubernetes' options and
// limits; where v5 differs from the v4 behaviour a client sees from
// Kubernetes, Apply follows Kubernetes. Strategic merge patch is this
// package's own (StrategicMergePatch), driven by a Schema of patch
// strategies instead of Go struct tags, so a type without one, like a
// custom resource, is answered 415 as Kubernetes answers it.
//
// # Errors
//
// Apply returns *status.Error values whose code, reason and message are
// Kubernetes' (see Apply). Note that Kubernetes answers a JSON patch that
// does not apply, such as one whose test operation fails, with a generic
// 422 "the server rejected our request due to an error in our request":
// the library's explanation is only the error's cause, for logs.
//
// # Bounds
//
// Apply never panics on untrusted input. Merge and strategic merge patches
// cost time linear in the sizes of the document and the patch (nesting is
// capped at 10,000 levels by the JSON decoders). A JSON patch is capped at
// 10,000 operations, and its copy operations at 3 MiB of added bytes, as
// in Kubernetes; like Kubernetes, inserting into the middle of an array
// moves its tail, so a patch's cost is bounded by operations times the
// document's size.
//
// # Non-goals
//
// Server-side apply (application/apply-patch+yaml) needs managed fields and
// field ownership, and is not implemented here: pass its media type in
// Options.OtherMediaTypes if the server handles it elsewhere. Strategic
// merge patch knows only what a Schema tells it: there is no reflection
// over Go struct tags, and the patchStrategy "retainKeys" and "replace"
// markers on structs are not modelled (a $retainKeys directive in a patch
// still works). Its error messages are this package's own, not
// Kubernetes'.
package patch
