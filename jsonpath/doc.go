// Package jsonpath implements kubectl's JSONPath template language, the
// one of k8s.io/client-go/util/jsonpath, on JSON values: what
// `kubectl get -o jsonpath=...` prints and what a cluster evaluates for
// the additionalPrinterColumns of a CustomResourceDefinition (it wraps a
// column's path in braces, so .status.phase is the template
// {.status.phase}).
//
// # Language
//
// A template is text with actions in braces. In an action:
//
//	.name .name.other      members of an object ("\" escapes a '.')
//	['name']               the same; a '.' in it still separates members
//	[n] [-n]               an element of an array, from the end if negative
//	[a:b] [a:b:step] [:]   slices; [*] and .* are every element or member
//	..name  ..[0]          recursive descent: every object or array below
//	[a,b]  ['x','y']       unions of indexes, slices or names
//	[?(@.type=="Ready")]   filters: ==, !=, <, <=, >, >= against a quoted
//	                       string, a number, true/false or another path;
//	                       [?(@.name)] keeps the elements that have one
//	{range .items[*]}...{end}   repeat the actions up to end per value
//	"text" 1 2.5 true      literals; @ and $ stand for the current value
//
// Evaluation follows Kubernetes' to the letter, quirks included, because
// a client cannot tell the two apart otherwise: a member that is not
// found is an error unless Options.AllowMissingKeys is set; [n] out of
// range is an error; a filter comparing values of different kinds (a
// string with a number) is an error, and so an unmatched column; a
// wildcard over a string yields its bytes; recursive descent yields a
// value and the objects, arrays and non-empty strings below it, not its
// leaves. Parse and evaluation errors carry Kubernetes' messages.
// A test in the nested module examples/interop runs the same templates
// on the same objects through k8s.io/client-go/util/jsonpath and this
// package and compares every result.
//
// # Differences from Kubernetes, on purpose
//
//   - An object's members are visited in the order of their names; Go's
//     reflection gives Kubernetes a random order (for .*, [*] on an
//     object and ..).
//   - An evaluation produces at most Options.MaxValues values and nests
//     ranges at most 1000 deep, and parsing re-reads a piece of a
//     template (a union's members, a filter's operands) at most 8 levels
//     deep; Kubernetes has no bounds.
//   - A Template is immutable and may be shared; Kubernetes' JSONPath
//     keeps range state between evaluations, so the next evaluation of a
//     template with range may differ. Ours starts afresh each time.
//   - Where Kubernetes panics (an index into the value of a range over
//     nothing), this package returns an error.
//
// # Non-goals
//
// Go structs, typed maps and slices are not walked: data is what
// encoding/json decodes into an any. The JSON-array output of
// -o jsonpath-as-json and kubectl's own pre-processing of templates
// (escapes such as \n) are kubectl's, not this package's.
package jsonpath
