package paging

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// checkStart returns why the relative start key s is unsafe, or "" if it
// is a clean relative key: the only shape NextStart produces (a relative
// object key plus an optional final NUL), so a genuine token never fails
// here.
//
// Kubernetes prepends "/" to the start, runs path.Clean and rejects the
// token if that changed anything (k8s.io/apiserver/pkg/storage/continue.go),
// which rejects "..", ".",
// empty segments and a trailing "/". These rules are stricter: the final
// NUL is set aside before the segments are checked (so "a/..\x00", which
// Kubernetes lets through, is rejected too), a NUL anywhere else, a
// leading "/" and invalid UTF-8 are rejected, and the length is bounded.
func checkStart(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > MaxStartLen:
		return "is too long"
	}
	body := s
	if body[len(body)-1] == 0 {
		body = body[:len(body)-1]
	}
	if strings.IndexByte(body, 0) >= 0 {
		return "contains NUL before its end"
	}
	if !utf8.ValidString(body) {
		return "is not valid UTF-8"
	}
	if body != "" && body[0] == '/' {
		return "is absolute"
	}
	for {
		seg, rest, more := strings.Cut(body, "/")
		switch seg {
		case "":
			return "has an empty segment"
		case ".", "..":
			return "has a dot segment"
		}
		if !more {
			return ""
		}
		body = rest
	}
}

// NextStart returns the relative start of the page after the one that
// ended with lastKey (an absolute key under keyPrefix): lastKey without
// keyPrefix, plus "\x00", which sorts directly after lastKey and before
// any other key.
//
// It fails, wrapping ErrKeyPrefix, if lastKey is not under keyPrefix, and,
// wrapping ErrUnsafeStart, if the result is a start Decode would reject:
// a stored key with an empty, "." or ".." segment, a NUL or invalid UTF-8,
// or longer than MaxStartLen. Both are server bugs (a 500), found here
// rather than when the client sends the token back.
func NextStart(lastKey, keyPrefix string) (string, error) {
	if keyPrefix == "" || keyPrefix[len(keyPrefix)-1] != '/' ||
		len(lastKey) <= len(keyPrefix) || !strings.HasPrefix(lastKey, keyPrefix) {
		return "", fmt.Errorf("%w: key %s, prefix %s", ErrKeyPrefix, quoteShort(lastKey), quoteShort(keyPrefix))
	}
	rel := lastKey[len(keyPrefix):]
	// The "\x00" is appended, so the key itself must not end with one
	// (Decode would take it for the appended one) and must leave room.
	if why := checkStart(rel); why != "" || rel[len(rel)-1] == 0 || len(rel) >= MaxStartLen {
		return "", fmt.Errorf("paging: cannot page past key %s: %w", quoteShort(lastKey), ErrUnsafeStart)
	}
	return rel + "\x00", nil
}
