// Package paging serves a collection in pages ("chunks"), as the spec's
// "Retrieving large results sets in chunks" describes: continue tokens,
// page sizes and remainingItemCount, safe against hostile tokens.
//
// # Paging a list
//
// A store keeps one ordered keyspace; a collection is a key prefix ending
// in "/" ("configmaps/" for all namespaces, "configmaps/ns1/" for one). A
// list with limit n reads at most n keys under the prefix at one snapshot
// revision. If more keys remain, the response carries a continue token
// holding that revision and the key to start the next page at, relative
// to the prefix (NextStart: the last key of the page plus "\x00"). The
// next request sends the token back; Decode turns it into an absolute
// start key and the snapshot revision, and the store reads the next page
// there, so all pages together are one consistent list.
//
// Take 1,253 pods listed with limit=500 at revision 10245:
//
//	GET /api/v1/pods?limit=500
//	  items 1-500,     resourceVersion 10245, continue T1, remainingItemCount 753
//	GET /api/v1/pods?limit=500&continue=T1
//	  items 501-1000,  resourceVersion 10245, continue T2, remainingItemCount 253
//	GET /api/v1/pods?limit=500&continue=T2
//	  items 1001-1253, resourceVersion 10245, no continue, no remainingItemCount
//
// T1 carries {Version: 10245, Start: "<key of pod 500, relative>\x00"}.
// RemainingItemCount gives the count only while items remain and no
// label or field selector is in play; Limit normalises the requested page
// size (<= 0 is a full list) and applies a server-side maximum.
//
// # Tokens
//
// A token is URL-safe base64 (no padding, nothing to escape in a query
// string) of a compact binary payload: a format version byte, flags, the
// revision and, optionally, the issue time as varints, then the relative
// start key. Encoding and decoding use no reflection and allocate once
// (the string returned), a fraction of what Kubernetes' JSON tokens cost;
// the benchmarks measure both. The start ends with the NUL NextStart
// appends and Decode requires it, so that a token cut short is the 400 a
// cluster answers for a cut JSON token, not a page from an earlier
// start. A token of an unknown format
// version, including Kubernetes' own JSON tokens, is rejected with a clear
// 400 rather than misread. Tokens are opaque to clients and are not bound
// to a selector, limit or collection, as in Kubernetes.
//
// # Confinement
//
// A token can never make a list read outside the collection it is used
// on: the start key is relative, and Decode rejects it if it is empty or
// too long, absolute, has an empty, "." or ".." segment, a NUL anywhere but
// at the very end, or invalid UTF-8. That is stricter than Kubernetes,
// which rejects what path.Clean would change.
//
// # Signing
//
// Without keys, tokens are unsigned and a client can write its own, as
// with Kubernetes: confinement still holds, but the client picks the
// revision and start. With Codec.Keys set, every token carries a truncated
// HMAC-SHA256 and a forged, altered or unsigned token is a 400. Keys[0]
// signs and every key verifies, so keys rotate without breaking lists in
// flight. A Codec keys its HMAC states once per key and pools them, so a
// typical signed token costs two SHA-256 blocks more than an unsigned one
// and no allocation; share one *Codec rather than copying it.
//
// # Expiry
//
// A token expires when the store compacts its snapshot revision: the
// store answers with Codec.Expired, the 410 Expired with Kubernetes'
// message whose metadata.continue holds a new token for the same start at
// revision 0, the latest; a client may continue inconsistently with it or
// relist. Codec.MaxAge optionally bounds the age of a paged list by the
// clock as well (IssuedAt, carried forward with Token.Next).
//
// # Errors
//
// Client errors are *status.Error values with Kubernetes' texts: `invalid
// continue token: continue key is not valid: <why>` (400, wrapping
// ErrMalformed, ErrSignature or ErrUnsafeStart) and the 410 of Expired.
// A token cut short says why as a cluster says it of its cut JSON tokens,
// `unexpected end of JSON input` (or, for a cut that leaves a lone
// base64 character, `illegal base64 data at input byte <n>`); a start
// key that is refused is named as a cluster names it, the key itself;
// a token that is not of this package's layout (garbage, or Kubernetes'
// own JSON form) gets the detail a cluster gives it, which reads every
// token as JSON (`invalid character 'i' looking for beginning of
// value`, `server does not recognize this encoded version <v>`); other
// reasons name what is wrong with this package's layout.
// The 400 `specifying resource version is not allowed when using
// continue` for a token sent with a resourceVersion other than "" or "0"
// is package rv's (ListOptions.ResolveList); a server answers a bad
// token's 400 before it, as a cluster does (store.Store.CheckContinue).
//
// # Non-goals
//
// Package paging reads no data: iterating the keyspace, counting the
// remaining items and knowing which revisions are compacted belong to the
// store. It does not bind tokens to the request that created them, and it
// does not encrypt them: an unsigned or signed token reveals its start key
// and revision to whoever holds it.
package paging
