package paging

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestLimit(t *testing.T) {
	tests := []struct {
		name           string
		requested, max int64
		want           int64
	}{
		{"unset is a full list", 0, 0, 0},
		{"negative is a full list", -1, 0, 0},
		{"most negative is a full list", math.MinInt64, 0, 0},
		{"full list even with a maximum", 0, 500, 0},
		{"negative with a maximum", -5, 500, 0},
		{"passes through", 500, 0, 500},
		{"one", 1, 0, 1},
		{"below the maximum", 100, 500, 100},
		{"at the maximum", 500, 500, 500},
		{"above the maximum", 501, 500, 500},
		{"huge without maximum", math.MaxInt64, 0, math.MaxInt64},
		{"huge with maximum", math.MaxInt64, 10000, 10000},
		{"negative maximum is no maximum", 700, -1, 700},
	}
	for _, tt := range tests {
		if got := Limit(tt.requested, tt.max); got != tt.want {
			t.Errorf("%s: Limit(%d, %d) = %d, want %d", tt.name, tt.requested, tt.max, got, tt.want)
		}
	}
}

// TestRemainingItemCount walks Kubernetes' rule (PrepareContinueToken in
// k8s.io/apiserver/pkg/storage/continue.go) and the spec: the count is set
// only when more items remain and no selector is in play.
func TestRemainingItemCount(t *testing.T) {
	tests := []struct {
		name        string
		remaining   int64
		hasSelector bool
		want        int64
		set         bool
	}{
		{"first of three pages", 753, false, 753, true},
		{"second of three pages", 253, false, 253, true},
		{"last page", 0, false, 0, false},
		{"one left", 1, false, 1, true},
		{"selector hides the count", 753, true, 0, false},
		{"selector on the last page", 0, true, 0, false},
		{"negative (limit above count) is the last page", -47, false, 0, false},
		{"huge", math.MaxInt64, false, math.MaxInt64, true},
	}
	for _, tt := range tests {
		got, set := RemainingItemCount(tt.remaining, tt.hasSelector)
		if got != tt.want || set != tt.set {
			t.Errorf("%s: RemainingItemCount(%d, %t) = %d, %t; want %d, %t",
				tt.name, tt.remaining, tt.hasSelector, got, set, tt.want, tt.set)
		}
	}
}

func TestNextStart(t *testing.T) {
	tests := []struct {
		name, lastKey, prefix string
		want                  string
		err                   error
	}{
		{"namespaced", "pods/ns1/pod-500", "pods/ns1/", "pod-500\x00", nil},
		{"all namespaces", "pods/ns1/pod-500", "pods/", "ns1/pod-500\x00", nil},
		{"cluster scoped", "namespaces/default", "namespaces/", "default\x00", nil},
		{"dots inside a name", "things/a..b", "things/", "a..b\x00", nil},
		{"longest", "t/" + strings.Repeat("x", MaxStartLen-1), "t/", strings.Repeat("x", MaxStartLen-1) + "\x00", nil},

		{"other collection", "secrets/ns1/a", "pods/", "", ErrKeyPrefix},
		{"sibling namespace sharing a prefix", "pods/ns10/a", "pods/ns1/", "", ErrKeyPrefix},
		{"the prefix itself", "pods/", "pods/", "", ErrKeyPrefix},
		{"prefix without slash", "pods/ns1/a", "pods/ns1", "", ErrKeyPrefix},
		{"empty prefix", "pods/ns1/a", "", "", ErrKeyPrefix},
		{"shorter than prefix", "pod", "pods/", "", ErrKeyPrefix},

		{"too long", "t/" + strings.Repeat("x", MaxStartLen), "t/", "", ErrUnsafeStart},
		{"dot-dot name", "things/ns/..", "things/", "", ErrUnsafeStart},
		{"dot name", "things/.", "things/", "", ErrUnsafeStart},
		{"empty segment", "things/ns//a", "things/", "", ErrUnsafeStart},
		{"sub-prefix", "things/ns/", "things/", "", ErrUnsafeStart},
		{"absolute relative key", "things//a", "things/", "", ErrUnsafeStart},
		{"NUL inside", "things/a\x00b", "things/", "", ErrUnsafeStart},
		{"NUL at the end", "things/a\x00", "things/", "", ErrUnsafeStart},
		{"invalid UTF-8", "things/\xff", "things/", "", ErrUnsafeStart},
	}
	var c Codec
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NextStart(tt.lastKey, tt.prefix)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || got != "" {
					t.Errorf("NextStart(%q, %q) = %q, %v; want error %v", tt.lastKey, tt.prefix, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NextStart(%q, %q) = %q, %v; want %q", tt.lastKey, tt.prefix, got, err, tt.want)
			}
			// Every start NextStart returns survives a round trip, and the
			// key sorts right after lastKey.
			key, _, err := c.Decode(c.Encode(Token{Version: 1, Start: got}), tt.prefix)
			if err != nil {
				t.Fatalf("Decode of NextStart's start: %v", err)
			}
			if key != tt.lastKey+"\x00" || key <= tt.lastKey {
				t.Errorf("start key %q does not follow %q directly", key, tt.lastKey)
			}
		})
	}
}
