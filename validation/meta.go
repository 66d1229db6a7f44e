package validation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

// MaxAnnotationsBytes is the limit on the total size of an object's
// annotations, keys and values together: 256 KiB
// (TotalAnnotationSizeLimitB in k8s.io/apimachinery/pkg/api/validation).
const MaxAnnotationsBytes = 256 << 10

// MaxFieldManagerLength is the longest managedFields[].manager (and
// fieldManager query parameter): 128 bytes.
const MaxFieldManagerLength = 128

// MaxSubresourceLength is the longest managedFields[].subresource: 256 bytes.
const MaxSubresourceLength = 256

// The finalizers Kubernetes itself defines. FinalizerOrphan and
// FinalizerForeground are the garbage collector's (metav1); FinalizerKubernetes
// is the namespace controller's (core/v1).
const (
	FinalizerOrphan     = "orphan"
	FinalizerForeground = "foregroundDeletion"
	FinalizerKubernetes = "kubernetes"
)

// FieldImmutable is the detail of the error for a changed immutable field.
const FieldImmutable = "field is immutable"

// sortedKeys returns the keys of m for which bad reports true, sorted. It
// is called only once something is known to be wrong, so valid maps cost
// no allocation.
func sortedKeys(m map[string]string, bad func(k, v string) bool) []string {
	var keys []string
	for k, v := range m {
		if bad(k, v) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// Labels validates metadata.labels (at path, usually "metadata.labels"):
// keys are qualified names and values label values. Every error names the
// map, not the key, and carries the bad key or value, as in Kubernetes
// (ValidateLabels in k8s.io/apimachinery/pkg/apis/meta/v1/validation).
// Kubernetes reports keys in random map order; here they are sorted.
func Labels(path string, labels map[string]string) []status.FieldError {
	ok := true
	for k, v := range labels {
		if !isQualifiedName(k) || !isLabelValue(v) {
			ok = false
			break
		}
	}
	if ok {
		return nil
	}
	var errs []status.FieldError
	for _, k := range sortedKeys(labels, func(k, v string) bool { return !isQualifiedName(k) || !isLabelValue(v) }) {
		for _, msg := range IsQualifiedName(k) {
			errs = append(errs, status.InvalidValue(path, k, msg))
		}
		v := labels[k]
		for _, msg := range IsLabelValue(v) {
			errs = append(errs, status.InvalidValue(path, v, msg))
		}
	}
	return errs
}

// Annotations validates metadata.annotations (at path, usually
// "metadata.annotations"): every key, lower-cased, is a qualified name, and
// keys and values together hold at most MaxAnnotationsBytes. Over the limit
// the error is "metadata.annotations: Too long: may not be more than 262144
// bytes" (ValidateAnnotations in k8s.io/apimachinery/pkg/api/validation).
// Bad keys are reported sorted, as given (not lower-cased).
func Annotations(path string, annotations map[string]string) []status.FieldError {
	size, ok := 0, true
	for k, v := range annotations {
		size += len(k) + len(v)
		if ok && !isQualifiedName(lowerASCII(k)) {
			ok = false
		}
	}
	var errs []status.FieldError
	if !ok {
		for _, k := range sortedKeys(annotations, func(k, _ string) bool { return !isQualifiedName(lowerASCII(k)) }) {
			for _, msg := range IsQualifiedName(lowerASCII(k)) {
				errs = append(errs, status.InvalidValue(path, k, msg))
			}
		}
	}
	if size > MaxAnnotationsBytes {
		errs = append(errs, status.TooLong(path, MaxAnnotationsBytes))
	}
	return errs
}

// lowerASCII is strings.ToLower (which Kubernetes applies to annotation
// keys) without its allocation for the common all-lower-case ASCII key.
// Non-ASCII input goes to strings.ToLower: the Kelvin sign U+212A lowers to
// an ASCII 'k', which makes such a key valid.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// Finalizers validates metadata.finalizers (at path, usually
// "metadata.finalizers"): each is a qualified name, and "orphan" and
// "foregroundDeletion" are not both present (ValidateFinalizers in
// k8s.io/apimachinery/pkg/api/validation). Errors name the list, not an
// index, as Kubernetes' do.
func Finalizers(path string, finalizers []string) []status.FieldError {
	var errs []status.FieldError
	orphan, foreground := false, false
	for _, f := range finalizers {
		if !isQualifiedName(f) {
			for _, msg := range IsQualifiedName(f) {
				errs = append(errs, status.InvalidValue(path, f, msg))
			}
		}
		orphan = orphan || f == FinalizerOrphan
		foreground = foreground || f == FinalizerForeground
	}
	if orphan && foreground {
		errs = append(errs, status.InvalidValue(path, finalizers,
			"finalizer "+FinalizerOrphan+" and "+FinalizerForeground+" cannot be both set"))
	}
	return errs
}

func isStandardFinalizer(f string) bool {
	return f == FinalizerOrphan || f == FinalizerForeground || f == FinalizerKubernetes
}

// CoreFinalizers is the extra rule Kubernetes applies to the objects of its
// core API group (v1 ConfigMaps, Pods, Namespaces, ...): a finalizer without
// a '/' must be one of the standard three. Errors are indexed, e.g.
// `metadata.finalizers[0]: Invalid value: "cleanup": name is neither a
// standard finalizer name nor is it fully qualified`
// (validateKubeFinalizerName in kubernetes pkg/apis/core/validation). Append
// them after the ObjectMeta errors, as Kubernetes does.
func CoreFinalizers(path string, finalizers []string) []status.FieldError {
	var errs []status.FieldError
	for i, f := range finalizers {
		if strings.IndexByte(f, '/') < 0 && !isStandardFinalizer(f) {
			errs = append(errs, status.InvalidValue(path+"["+strconv.Itoa(i)+"]", f,
				"name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// FinalizerWarnings returns the warnings Kubernetes sends (as Warning
// headers, the request still succeeds) when a custom resource gains
// finalizers that are not qualified names or have no '/' and are not
// standard. Only finalizers in newFinalizers and not in oldFinalizers (nil
// on create) are considered, sorted and deduplicated, e.g.
// `metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name
// including a path (/) to avoid accidental conflicts with other finalizer
// writers` (validateKubeFinalizerName in
// k8s.io/apiextensions-apiserver/pkg/registry/customresource).
func FinalizerWarnings(path string, newFinalizers, oldFinalizers []string) []string {
	var added []string
	for _, f := range newFinalizers {
		if slices.Contains(oldFinalizers, f) || slices.Contains(added, f) {
			continue
		}
		if !isQualifiedName(f) || strings.IndexByte(f, '/') < 0 && !isStandardFinalizer(f) {
			added = append(added, f)
		}
	}
	slices.Sort(added)
	var warnings []string
	for _, f := range added {
		q := strconv.Quote(f)
		for _, msg := range IsQualifiedName(f) {
			warnings = append(warnings, path+": "+q+": "+msg)
		}
		if strings.IndexByte(f, '/') < 0 && !isStandardFinalizer(f) {
			warnings = append(warnings, path+": "+q+
				": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers")
		}
	}
	return warnings
}

// NoNewFinalizers forbids adding finalizers to an object that is being
// deleted (old deletionTimestamp set): `metadata.finalizers: Forbidden: no
// new finalizers can be added if the object is being deleted, found new
// finalizers []string{"b"}` (ValidateNoNewFinalizers in
// k8s.io/apimachinery/pkg/api/validation).
func NoNewFinalizers(path string, newFinalizers, oldFinalizers []string) []status.FieldError {
	var extra []string
	for _, f := range newFinalizers {
		if !slices.Contains(oldFinalizers, f) && !slices.Contains(extra, f) {
			extra = append(extra, f)
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.Sort(extra)
	return []status.FieldError{status.Forbidden(path,
		fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", extra))}
}

// OwnerReferences validates metadata.ownerReferences (at path, usually
// "metadata.ownerReferences"): apiVersion, kind, name and uid are required
// ("Required value: must not be empty" at path[i].field), apiVersion parses
// as "<group>/<version>" or "<version>", a v1 Event is not an owner, and at
// most one reference is the controller (ValidateOwnerReferences in
// k8s.io/apimachinery/pkg/api/validation).
func OwnerReferences(path string, refs []meta.OwnerReference) []status.FieldError {
	var errs []status.FieldError
	firstController := ""
	for i, ref := range refs {
		p := path + "[" + strconv.Itoa(i) + "]"
		group, version, ok := parseGroupVersion(ref.APIVersion)
		if ref.APIVersion == "" {
			errs = append(errs, status.Required(p+".apiVersion", "must not be empty"))
		} else if !ok || version == "" {
			errs = append(errs, status.InvalidValue(p+".apiVersion", ref.APIVersion, "must be <group>/<version> or <version>"))
		}
		if ref.Kind == "" {
			errs = append(errs, status.Required(p+".kind", "must not be empty"))
		}
		if ref.Name == "" {
			errs = append(errs, status.Required(p+".name", "must not be empty"))
		}
		if ref.UID == "" {
			errs = append(errs, status.Required(p+".uid", "must not be empty"))
		}
		if group == "" && version == "v1" && ref.Kind == "Event" {
			errs = append(errs, status.InvalidValue(p, ref, "/v1, Kind=Event is disallowed from being an owner"))
		}
		if ref.Controller != nil && *ref.Controller {
			name := ref.Kind + "/" + ref.Name
			if firstController == "" {
				firstController = name
			} else {
				errs = append(errs, status.InvalidValue(path, refs,
					`Only one reference can have Controller set to true. Found "true" in references for `+firstController+" and "+name))
			}
		}
	}
	return errs
}

// parseGroupVersion splits an apiVersion as schema.ParseGroupVersion does:
// "" and "/" are the empty version, a value without '/' is a core-group
// version, and more than one '/' is an error.
func parseGroupVersion(gv string) (group, version string, ok bool) {
	if gv == "" || gv == "/" {
		return "", "", true
	}
	switch strings.Count(gv, "/") {
	case 0:
		return "", gv, true
	case 1:
		i := strings.IndexByte(gv, '/')
		return gv[:i], gv[i+1:], true
	}
	return "", "", false
}

// ManagedFields validates metadata.managedFields (at path, usually
// "metadata.managedFields"): operation is "Apply" or "Update", fieldsType
// is empty or "FieldsV1", manager is at most 128 bytes of printable
// characters and subresource at most 256 bytes (ValidateManagedFields in
// k8s.io/apimachinery/pkg/apis/meta/v1/validation).
func ManagedFields(path string, entries []meta.ManagedFieldsEntry) []status.FieldError {
	var errs []status.FieldError
	for i, e := range entries {
		// The entry's path, made for an error only: every write
		// validates its entries, and they are valid.
		p := func() string { return path + "[" + strconv.Itoa(i) + "]" }
		switch e.Operation {
		case "":
			errs = append(errs, status.Required(p()+".operation", "must not be empty"))
		case "Apply", "Update":
		default:
			errs = append(errs, status.NotSupported(p()+".operation", e.Operation, "Apply", "Update"))
		}
		if e.FieldsType != "" && e.FieldsType != "FieldsV1" {
			errs = append(errs, status.InvalidValue(p()+".fieldsType", e.FieldsType, "must be `FieldsV1`"))
		}
		if len(e.Manager) > MaxFieldManagerLength || !printable(e.Manager) {
			errs = append(errs, FieldManager(p()+".manager", e.Manager)...)
		}
		if len(e.Subresource) > MaxSubresourceLength {
			errs = append(errs, status.TooLong(p()+".subresource", MaxSubresourceLength))
		}
	}
	return errs
}

// printable reports whether every character of s is printable, as
// FieldManager requires.
func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// FieldManager validates a field manager name (a managedFields[].manager or
// the fieldManager query parameter): at most 128 bytes, and one error per
// non-printable character, `invalid character U+0007 (at position 3)`
// (ValidateFieldManager in k8s.io/apimachinery/pkg/apis/meta/v1/validation).
func FieldManager(path, manager string) []status.FieldError {
	var errs []status.FieldError
	if len(manager) > MaxFieldManagerLength {
		errs = append(errs, status.TooLong(path, MaxFieldManagerLength))
	}
	for i, r := range manager {
		if !unicode.IsPrint(r) {
			errs = append(errs, status.InvalidValue(path, manager, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}
