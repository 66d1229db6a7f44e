// Package selector parses and matches Kubernetes label selectors
// (labelSelector) and field selectors (fieldSelector) as the API server
// does: the same grammar, the same validation of label keys and values,
// and the same error texts, returned as 400 BadRequest *status.Error
// values.
//
// # Label selectors
//
// A label selector is a comma-separated list of requirements, all of
// which must hold:
//
//	app=web          app==web       the label app is "web"
//	app!=web                        app is absent or not "web"
//	env in (a,b)     env notin (a)  set membership (notin also holds when absent)
//	app              !app           the label exists / does not exist
//	rank>3           rank<10        integer comparison (absent never matches)
//
// Keys must be qualified names ([prefix/]name, name at most 63 bytes of
// [A-Za-z0-9._-] starting and ending alphanumeric, prefix a DNS subdomain),
// values valid label values; the parser reports the first requirement it
// cannot accept with Kubernetes' message, e.g. `unable to parse
// requirement: <nil>: Invalid value: "-a": name part must consist of ...`.
//
// # Field selectors
//
// A field selector is a comma-separated list of field=value, field==value
// or field!=value terms; in a value, "\," "\=" and "\\" escape the
// separators. Which fields exist is the resource's business (package
// store checks them); this package only parses and matches.
//
// # Non-goals
//
// Set-based selectors in structured form (matchExpressions) and the
// Kubernetes Selector interface are not provided; a parsed selector is an
// immutable value whose zero value selects everything.
package selector
