package managedfields

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apisem/apisem/validation"
)

// ManagerFromUserAgent is the field manager of a write whose request names
// none, as Kubernetes derives it from the User-Agent: the part before the
// first '/', without non-printable characters, cut to 128 bytes.
// "kubectl/v1.33.0 (linux/amd64) kubernetes/abc" gives "kubectl".
func ManagerFromUserAgent(userAgent string) string {
	prefix, _, _ := strings.Cut(userAgent, "/")
	var b strings.Builder
	for _, r := range prefix {
		if !unicode.IsPrint(r) {
			continue
		}
		if b.Len()+utf8.RuneLen(r) > validation.MaxFieldManagerLength {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
