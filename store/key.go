package store

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apisem/apisem/status"
)

// Key returns the storage key of an object: prefix/namespace/name for a
// namespaced object, prefix/name for a cluster-scoped one (empty
// namespace). prefix names the resource, e.g. "configmaps".
func Key(prefix, namespace, name string) string {
	var b strings.Builder
	b.Grow(len(prefix) + len(namespace) + len(name) + 2)
	b.WriteString(prefix)
	b.WriteByte('/')
	if namespace != "" {
		b.WriteString(namespace)
		b.WriteByte('/')
	}
	b.WriteString(name)
	return b.String()
}

// CollectionPrefix returns the key prefix of a collection: prefix/ for all
// objects of a resource, prefix/namespace/ for one namespace. Every prefix
// ends in "/", as package paging requires.
func CollectionPrefix(prefix, namespace string) string {
	if namespace == "" {
		return prefix + "/"
	}
	return prefix + "/" + namespace + "/"
}

// PrefixEnd returns the smallest key greater than every key starting with
// prefix ("" if there is none): the end of the range of a prefix.
func PrefixEnd(prefix string) string { return prefixEnd(prefix) }

// prefixEnd returns the smallest key greater than every key starting with
// prefix ("" if there is none), so that a range scan can stop there.
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// checkSegment validates a name or namespace as one key segment, with
// Kubernetes' path-segment rules (a name may not be "." or "..", or contain
// "/" or "%"), plus what would make a key unpageable: NUL and invalid
// UTF-8. what is "Name" or "Namespace".
func checkSegment(what, s string) error {
	var msgs []string
	switch s {
	case ".", "..":
		msgs = append(msgs, "may not be '"+s+"'")
	}
	for _, bad := range [...]string{"/", "%"} {
		if strings.Contains(s, bad) {
			msgs = append(msgs, "may not contain '"+bad+"'")
		}
	}
	if strings.IndexByte(s, 0) >= 0 {
		msgs = append(msgs, "may not contain NUL")
	}
	if !utf8.ValidString(s) {
		msgs = append(msgs, "must be valid UTF-8")
	}
	if len(msgs) == 0 {
		return nil
	}
	return status.NewBadRequest(what + " parameter invalid: " + strconv.Quote(s) + ": " + strings.Join(msgs, ";"))
}

// EtcdPath is the etcd path, below the etcd prefix, of the objects of a
// resource keyed by prefix ("<resource>.<group>" or "<resource>" in the
// core group) that names no ResourceOptions.EtcdPrefix: <group>/<resource>,
// or <resource> in the core group, as kube-apiserver keeps custom
// resources.
func EtcdPath(prefix string) string {
	if res, group, ok := strings.Cut(prefix, "."); ok {
		return group + "/" + res
	}
	return prefix
}
