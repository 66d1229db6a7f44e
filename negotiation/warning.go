package negotiation

import (
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// Kubernetes' limits on the Warning headers of one response.
const (
	// MaxWarningRunes is the total text, in runes, the warnings of one
	// response may carry before they are truncated.
	MaxWarningRunes = 4096
	// TruncatedWarningRunes is the length each warning is cut to once
	// the total is exceeded.
	TruncatedWarningRunes = 256
)

// WriteWarnings adds one Warning header per distinct text, in order, in
// Kubernetes' form `299 - "<text>"` (the text quoted, with `"` and `\`
// escaped):
//
//	Warning: 299 - "unknown field \"spec.foo\""
//
// It applies Kubernetes' limits to the set: when the texts together exceed
// MaxWarningRunes, each is cut to TruncatedWarningRunes, and a text that
// would still take the total past MaxWarningRunes is left out. Call it
// once per response with all of its warnings. Empty texts and texts that
// are not valid UTF-8 are skipped; control characters, which a header
// cannot carry, become spaces.
func WriteWarnings(h http.Header, texts []string) {
	var kept []string
	var seen map[string]bool // only for many texts; see below
	if len(texts) > smallWarningSet {
		seen = make(map[string]bool, len(texts))
	}
	total := 0
	for _, t := range texts {
		if t == "" || !utf8.ValidString(t) {
			continue
		}
		if seen != nil {
			if seen[t] {
				continue
			}
			seen[t] = true
		} else if slices.Contains(kept, t) {
			continue
		}
		kept = append(kept, t)
		total += utf8.RuneCountInString(t)
	}
	truncate := total > MaxWarningRunes
	written := 0
	for _, t := range kept {
		n := utf8.RuneCountInString(t)
		if truncate {
			if n > TruncatedWarningRunes {
				t = truncateRunes(t, TruncatedWarningRunes)
				n = TruncatedWarningRunes
			}
			if written+n > MaxWarningRunes {
				continue
			}
		}
		written += n
		h.Add("Warning", warningHeader(t))
	}
}

// smallWarningSet is the number of texts up to which duplicates are found
// by scanning, cheaper than a map for the few warnings a response
// usually has.
const smallWarningSet = 16

func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// warningHeader formats an RFC 7234 warning value with code 299 and agent
// "-", as Kubernetes' NewWarningHeader does.
func warningHeader(text string) string {
	var b strings.Builder
	b.Grow(len(text) + 8)
	b.WriteString(`299 - "`)
	for _, c := range text {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c < 0x20 && c != '\t' || c == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
