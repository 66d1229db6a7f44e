package version

import (
	"cmp"
	"strconv"
	"strings"
)

// Compare compares two API version names by Kubernetes' version
// priority (k8s.io/apimachinery/pkg/version, CompareKubeAwareVersionStrings),
// returning a positive number when a has the higher priority: names of the form
// v<major>[alpha|beta<minor>] come before others, GA before beta before
// alpha, then the higher major, then the higher minor (v2 > v1 >
// v1beta2 > v1beta1 > v1alpha1); other names come last, alphabetically
// (foo before goo). Discovery lists a group's versions in this order and
// prefers the first.
func Compare(a, b string) int {
	if a == b {
		return 0
	}
	am, at, an, aok := parseVersion(a)
	bm, bt, bn, bok := parseVersion(b)
	switch {
	case !aok && !bok:
		return strings.Compare(b, a)
	case !aok:
		return -1
	case !bok:
		return 1
	case at != bt:
		return at - bt
	case am != bm:
		return cmp.Compare(am, bm)
	}
	return cmp.Compare(an, bn)
}

// parseVersion splits a version name of the form v<major>[alpha|beta<minor>]
// into its major number, its stability (alpha 0, beta 1, GA 2) and its
// minor number (0 for GA).
func parseVersion(v string) (major, stability, minor int, ok bool) {
	rest, found := strings.CutPrefix(v, "v")
	if !found {
		return 0, 0, 0, false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	major, err := strconv.Atoi(rest[:i])
	if err != nil {
		return 0, 0, 0, false
	}
	rest = rest[i:]
	switch {
	case rest == "":
		return major, 2, 0, true
	case strings.HasPrefix(rest, "alpha"):
		stability, rest = 0, rest[len("alpha"):]
	case strings.HasPrefix(rest, "beta"):
		stability, rest = 1, rest[len("beta"):]
	default:
		return 0, 0, 0, false
	}
	if rest == "" || strings.Trim(rest, "0123456789") != "" {
		return 0, 0, 0, false
	}
	minor, err = strconv.Atoi(rest)
	if err != nil {
		return 0, 0, 0, false
	}
	return major, stability, minor, true
}
