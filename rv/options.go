package rv

import "github.com/apisem/apisem/status"

// Match is the resourceVersionMatch query parameter. It is kept as sent
// (any string), because an unsupported value must be echoed in the 422.
type Match string

// The values of resourceVersionMatch Kubernetes defines. The comparison is
// case-sensitive, as in Kubernetes.
const (
	MatchUnset        Match = ""
	MatchNotOlderThan Match = "NotOlderThan"
	MatchExact        Match = "Exact"
)

// OptBool is a boolean query parameter whose absence means something
// different from false (sendInitialEvents). The zero value is BoolUnset.
type OptBool uint8

// The three states of an OptBool.
const (
	BoolUnset OptBool = iota
	BoolFalse
	BoolTrue
)

// OptBoolOf returns BoolTrue or BoolFalse.
func OptBoolOf(b bool) OptBool {
	if b {
		return BoolTrue
	}
	return BoolFalse
}

// IsSet reports whether the parameter was present.
func (b OptBool) IsSet() bool { return b != BoolUnset }

// Value reports whether the parameter was present and true.
func (b OptBool) Value() bool { return b == BoolTrue }

func (b OptBool) String() string {
	switch b {
	case BoolUnset:
		return "unset"
	case BoolFalse:
		return "false"
	case BoolTrue:
		return "true"
	}
	return "OptBool(?)"
}

// ListOptions holds the query parameters of a Kubernetes list or watch
// request (metav1.ListOptions), decoded but not yet interpreted. Build one
// with ParseQuery or ParseValues, or literally in tests; the zero value is a
// plain list of everything at the most recent revision.
//
// Selectors and the continue token are kept as raw strings: packages store
// and paging parse them.
type ListOptions struct {
	LabelSelector string
	FieldSelector string
	// Watch asks for a watch instead of a list.
	Watch bool
	// AllowWatchBookmarks lets a watch send BOOKMARK events. Lists ignore it.
	AllowWatchBookmarks bool
	// ResourceVersion is the raw resourceVersion; Parse reads it.
	ResourceVersion      string
	ResourceVersionMatch Match
	// TimeoutSeconds bounds a watch; 0 (or absent) means the server's
	// default. Lists ignore it.
	TimeoutSeconds int64
	// Limit is the page size of a list; 0 or negative means no paging.
	// Watches ignore it.
	Limit int64
	// Continue is the raw continue token of a paged list.
	Continue string
	// SendInitialEvents asks a watch to begin with the current state.
	SendInitialEvents OptBool
}

// Config holds the server-wide switches that change how options are
// interpreted. The zero value is Kubernetes' default at 1.34 and later: the
// WatchList feature on.
type Config struct {
	// DisableWatchList turns off the WatchList feature (Kubernetes'
	// WatchList feature gate): a watch is no longer defaulted to a
	// streaming list (see Default), sendInitialEvents is refused with a
	// 422, and a watch without a resourceVersion gets its initial events
	// the legacy way, without the initial-events-end bookmark.
	DisableWatchList bool
}

// Default applies Kubernetes' watch defaulting
// (k8s.io/apimachinery/pkg/apis/meta/internalversion/defaults.go) to o in
// place: with WatchList on, a watch with neither sendInitialEvents nor
// resourceVersionMatch and a resourceVersion of "" or "0" becomes
// sendInitialEvents=true&resourceVersionMatch=NotOlderThan. Lists and other
// resourceVersions are left alone. ResolveWatch applies it by itself; call
// Default only to see or echo the defaulted options.
func (o *ListOptions) Default(c Config) {
	if o.Watch {
		o.SendInitialEvents, o.ResourceVersionMatch = c.defaultWatch(o)
	}
}

// defaultWatch returns the sendInitialEvents and resourceVersionMatch a
// watch with options o is served with.
func (c Config) defaultWatch(o *ListOptions) (OptBool, Match) {
	if !c.DisableWatchList && o.SendInitialEvents == BoolUnset &&
		o.ResourceVersionMatch == MatchUnset && isZeroOrUnset(o.ResourceVersion) {
		return BoolTrue, MatchNotOlderThan
	}
	return o.SendInitialEvents, o.ResourceVersionMatch
}

// isZeroOrUnset reports whether a raw resourceVersion is "" or zero.
// Kubernetes compares with "0" as a string; apisem treats every spelling of
// zero ("00", ...) as "0" so that a value has one meaning whether it is
// compared or parsed.
func isZeroOrUnset(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

// isZero reports whether a raw resourceVersion is a spelling of zero.
func isZero(s string) bool { return s != "" && isZeroOrUnset(s) }

// listOptionsKind is what Kubernetes names ListOptions in a 422.
var listOptionsKind = status.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}

// Validate checks o as Kubernetes validates ListOptions
// (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation):
// with the watch rules if o.Watch is set, else with the list rules. It does
// not apply Default first. A violation is a 422 Invalid *status.Error with
// one cause per rule broken, in Kubernetes' order.
//
// ResolveList and ResolveWatch validate by themselves; Validate is for
// callers that only want the check.
func (o *ListOptions) Validate(c Config) error {
	if o.Watch {
		return validateWatch(o, o.SendInitialEvents, o.ResourceVersionMatch, c)
	}
	return validateList(o)
}

// maxFieldErrors is the most rules one request can break at once (a watch
// with sendInitialEvents, an unsupported match and a continue token, with
// WatchList off).
const maxFieldErrors = 5

func validateList(o *ListOptions) error {
	var buf [maxFieldErrors]status.FieldError
	errs := buf[:0]
	if m := o.ResourceVersionMatch; m != MatchUnset {
		if o.ResourceVersion == "" {
			errs = append(errs, status.Forbidden("resourceVersionMatch",
				"resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if o.Continue != "" {
			errs = append(errs, status.Forbidden("resourceVersionMatch",
				"resourceVersionMatch is forbidden when continue is provided"))
		}
		if m != MatchExact && m != MatchNotOlderThan {
			errs = append(errs, status.NotSupported("resourceVersionMatch", string(m),
				string(MatchExact), string(MatchNotOlderThan), string(MatchUnset)))
		}
		if m == MatchExact && isZero(o.ResourceVersion) {
			errs = append(errs, status.Forbidden("resourceVersionMatch",
				`resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if o.SendInitialEvents != BoolUnset {
		errs = append(errs, status.Forbidden("sendInitialEvents", "sendInitialEvents is forbidden for list"))
	}
	return invalid(errs)
}

// validateWatch checks a watch whose effective (possibly defaulted)
// sendInitialEvents and resourceVersionMatch are sie and m.
func validateWatch(o *ListOptions, sie OptBool, m Match, c Config) error {
	var buf [maxFieldErrors]status.FieldError
	errs := buf[:0]
	if sie != BoolUnset {
		if m != MatchNotOlderThan {
			errs = append(errs, status.Forbidden("resourceVersionMatch",
				"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
		if c.DisableWatchList {
			errs = append(errs, status.Forbidden("sendInitialEvents",
				"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
		}
	}
	if m != MatchUnset {
		if sie == BoolUnset {
			errs = append(errs, status.Forbidden("resourceVersionMatch",
				"resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if m != MatchNotOlderThan {
			errs = append(errs, status.NotSupported("resourceVersionMatch", string(m), string(MatchNotOlderThan)))
		}
		if o.Continue != "" {
			errs = append(errs, status.Forbidden("resourceVersionMatch",
				"resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	return invalid(errs)
}

func invalid(errs []status.FieldError) error {
	if len(errs) == 0 {
		return nil
	}
	return status.NewInvalid(listOptionsKind, "", errs...)
}
