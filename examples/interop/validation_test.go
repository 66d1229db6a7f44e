package interop

import (
	apimeta "github.com/apisem/apisem/meta"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/validation"
)

// The tests below compare package validation with the Kubernetes code it
// reimplements (k8s.io/apimachinery at the version in go.mod), input by
// input, on a fixed corpus plus seeded random strings.

// corpus returns tricky strings and n random ones over an alphabet of the
// characters that matter to the name rules.
func corpus(n int) []string {
	out := []string{
		"", "a", "A", "-", ".", "..", "...", "a-", "-a", "a.", ".a", "a..b", "a.b", "a_b", "a/b", "/b", "a/",
		"/", "//", "a/b/c", "example.com/MyName", "Example.com/x", "ex_ample.com/x", "-x.com/y", "x.com/-y",
		"my-name", "123-abc", "a%b", "%", "a.-", "a..-", "ab-", "a-", "-", "--", "my.name-", "MyName",
		"my_value", "12345", "a b", "é", "\u212a", "a\u212ab", "x.io/\u212a", "a\x00", "\xff",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 253), strings.Repeat("a", 254),
		strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127) + "a",
		strings.Repeat("a", 253) + "/" + strings.Repeat("b", 63), strings.Repeat("a", 254) + "/b",
		"p/" + strings.Repeat("b", 64), strings.Repeat("-", 70), strings.Repeat("a", 62) + "-",
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcxyzABZ0189-_./%"
	for range n {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		out = append(out, string(b))
	}
	return out
}

func TestValidationMatchesKubernetesNameRules(t *testing.T) {
	type rule struct {
		name string
		got  func(string) []string
		want func(string) []string
	}
	rules := []rule{
		{"IsDNS1123Label", validation.IsDNS1123Label, utilvalidation.IsDNS1123Label},
		{"IsDNS1123Subdomain", validation.IsDNS1123Subdomain, utilvalidation.IsDNS1123Subdomain},
		{"IsQualifiedName", validation.IsQualifiedName, utilvalidation.IsQualifiedName},
		{"IsLabelValue", validation.IsLabelValue, utilvalidation.IsValidLabelValue},
		{"NameIsDNSSubdomain(prefix)", func(s string) []string { return validation.NameIsDNSSubdomain(s, true) },
			func(s string) []string { return apivalidation.NameIsDNSSubdomain(s, true) }},
		{"NameIsDNSLabel(prefix)", func(s string) []string { return validation.NameIsDNSLabel(s, true) },
			func(s string) []string { return apivalidation.NameIsDNSLabel(s, true) }},
		{"NameIsPathSegment", func(s string) []string { return validation.NameIsPathSegment(s, false) },
			func(s string) []string { return path.ValidatePathSegmentName(s, false) }},
		{"NameIsPathSegment(prefix)", func(s string) []string { return validation.NameIsPathSegment(s, true) },
			func(s string) []string { return path.ValidatePathSegmentName(s, true) }},
	}
	for _, r := range rules {
		for _, in := range corpus(3000) {
			if got, want := r.got(in), r.want(in); !slices.Equal(got, want) {
				t.Errorf("%s(%q) = %q; want %q", r.name, in, got, want)
			}
		}
	}
}

// texts renders field errors as "<type> <field>: <body>" lines.
func texts(errs []status.FieldError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Error())
	}
	return out
}

func kubeTexts(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, string(e.Type)+" "+e.Error())
	}
	return out
}

func TestValidationMatchesKubernetesMaps(t *testing.T) {
	p := field.NewPath("metadata", "labels")
	a := field.NewPath("metadata", "annotations")
	f := field.NewPath("metadata", "finalizers")
	in := corpus(500)
	for i, k := range in {
		v := in[(i*7+3)%len(in)]
		m := map[string]string{k: v}
		if got, want := texts(validation.Labels(p.String(), m)), kubeTexts(metav1validation.ValidateLabels(m, p)); !slices.Equal(got, want) {
			t.Errorf("Labels(%q) = %q; want %q", m, got, want)
		}
		if got, want := texts(validation.Annotations(a.String(), m)), kubeTexts(apivalidation.ValidateAnnotations(m, a)); !slices.Equal(got, want) {
			t.Errorf("Annotations(%q) = %q; want %q", m, got, want)
		}
		fin := []string{k, v}
		if got, want := texts(validation.Finalizers(f.String(), fin)), kubeTexts(apivalidation.ValidateFinalizers(fin, f)); !slices.Equal(got, want) {
			t.Errorf("Finalizers(%q) = %q; want %q", fin, got, want)
		}
	}
	big := map[string]string{"a": strings.Repeat("x", 256<<10)}
	if got, want := texts(validation.Annotations(a.String(), big)), kubeTexts(apivalidation.ValidateAnnotations(big, a)); !slices.Equal(got, want) {
		t.Errorf("Annotations(257 KiB) = %q; want %q", got, want)
	}
	both := []string{"orphan", "x/y", "foregroundDeletion"}
	if got, want := texts(validation.Finalizers(f.String(), both)), kubeTexts(apivalidation.ValidateFinalizers(both, f)); !slices.Equal(got, want) {
		t.Errorf("Finalizers(%q) = %q; want %q", both, got, want)
	}
	added, old := []string{"b", "a", "c", "a"}, []string{"c"}
	if got, want := texts(validation.NoNewFinalizers(f.String(), added, old)), kubeTexts(apivalidation.ValidateNoNewFinalizers(added, old, f)); !slices.Equal(got, want) {
		t.Errorf("NoNewFinalizers = %q; want %q", got, want)
	}
}

func TestValidationMatchesKubernetesOwnersAndManagedFields(t *testing.T) {
	yes, no := true, false
	refs := [][]apimeta.OwnerReference{
		{{}},
		{{APIVersion: "v1", Kind: "Event", Name: "e", UID: "1"}},
		{{APIVersion: "/", Kind: "K", Name: "n", UID: "u"}, {APIVersion: "a/b/c", Kind: "K", Name: "n", UID: "u"}},
		{{APIVersion: "g/", Kind: "K", Name: "n", UID: "u"}, {APIVersion: "/v1", Kind: "Event", Name: "n", UID: "u"}},
		{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "a", UID: "1", Controller: &yes},
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "b", UID: "2", Controller: &no, BlockOwnerDeletion: &yes},
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "c", UID: "3", Controller: &yes},
			{APIVersion: "v1", Kind: "Pod", Name: "d", UID: "4", Controller: &yes}},
	}
	p := field.NewPath("metadata", "ownerReferences")
	for _, rs := range refs {
		var k []metav1.OwnerReference
		for _, r := range rs {
			k = append(k, metav1.OwnerReference{APIVersion: r.APIVersion, Kind: r.Kind, Name: r.Name,
				UID: types.UID(r.UID), Controller: r.Controller, BlockOwnerDeletion: r.BlockOwnerDeletion})
		}
		if got, want := texts(validation.OwnerReferences(p.String(), rs)), kubeTexts(apivalidation.ValidateOwnerReferences(k, p)); !slices.Equal(got, want) {
			t.Errorf("OwnerReferences(%+v) =\n%q; want\n%q", rs, got, want)
		}
	}
	entries := []apimeta.ManagedFieldsEntry{
		{},
		{Manager: "kubectl", Operation: "Apply", FieldsType: "FieldsV1"},
		{Manager: "m\x07x\u00a0\ufffd", Operation: "apply", FieldsType: "FieldsV2", Subresource: strings.Repeat("s", 257)},
		{Manager: strings.Repeat("m", 129), Operation: "Update", Subresource: strings.Repeat("s", 256)},
	}
	var k []metav1.ManagedFieldsEntry
	for _, e := range entries {
		k = append(k, metav1.ManagedFieldsEntry{Manager: e.Manager, Operation: metav1.ManagedFieldsOperationType(e.Operation),
			FieldsType: e.FieldsType, Subresource: e.Subresource})
	}
	mp := field.NewPath("metadata", "managedFields")
	if got, want := texts(validation.ManagedFields(mp.String(), entries)), kubeTexts(metav1validation.ValidateManagedFields(k, mp)); !slices.Equal(got, want) {
		t.Errorf("ManagedFields =\n%q; want\n%q", got, want)
	}
}

// toKube converts the validation view to a metav1.ObjectMeta.
func toKube(m apimeta.ObjectMeta) *metav1.ObjectMeta {
	k := &metav1.ObjectMeta{
		Name: m.Name, GenerateName: m.GenerateName, Namespace: m.Namespace, UID: types.UID(m.UID),
		ResourceVersion: m.ResourceVersion, Generation: m.Generation,
		CreationTimestamp:          metav1.NewTime(m.CreationTimestamp.Time),
		DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds,
		Labels:                     m.Labels, Annotations: m.Annotations, Finalizers: m.Finalizers,
	}
	if m.CreationTimestamp.IsZero() {
		k.CreationTimestamp = metav1.Time{}
	}
	if m.DeletionTimestamp != nil {
		t := metav1.NewTime(m.DeletionTimestamp.Time)
		k.DeletionTimestamp = &t
	}
	for _, r := range m.OwnerReferences {
		k.OwnerReferences = append(k.OwnerReferences, metav1.OwnerReference{APIVersion: r.APIVersion, Kind: r.Kind,
			Name: r.Name, UID: types.UID(r.UID), Controller: r.Controller})
	}
	for _, e := range m.ManagedFields {
		k.ManagedFields = append(k.ManagedFields, metav1.ManagedFieldsEntry{Manager: e.Manager,
			Operation: metav1.ManagedFieldsOperationType(e.Operation), FieldsType: e.FieldsType, Subresource: e.Subresource})
	}
	return k
}

func TestValidationMatchesKubernetesObjectMeta(t *testing.T) {
	t0 := apimeta.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	t1 := apimeta.NewTime(t0.Add(time.Hour))
	thirty, ten := int64(30), int64(10)
	base := apimeta.ObjectMeta{Name: "a", Namespace: "ns", UID: "u1", ResourceVersion: "5", Generation: 2,
		CreationTimestamp: t0, Labels: map[string]string{"app": "x"}}
	creates := []struct {
		m          apimeta.ObjectMeta
		namespaced bool
		nameFn     validation.NameFunc
		kubeFn     apivalidation.ValidateNameFunc
	}{
		{apimeta.ObjectMeta{}, true, validation.NameIsDNSSubdomain, apivalidation.NameIsDNSSubdomain},
		{apimeta.ObjectMeta{Name: "x", Namespace: "n"}, false, validation.NameIsDNSSubdomain, apivalidation.NameIsDNSSubdomain},
		{apimeta.ObjectMeta{Name: "Bad_Name", GenerateName: "Bad_", Namespace: "Bad.NS", Generation: -1}, true,
			validation.NameIsDNSSubdomain, apivalidation.NameIsDNSSubdomain},
		{apimeta.ObjectMeta{Name: "a.b", GenerateName: "a.", Namespace: ""}, false, validation.NameIsDNSLabel, apivalidation.NameIsDNSLabel},
		{apimeta.ObjectMeta{Name: "..", GenerateName: "%/", Labels: map[string]string{"a/b/c": "-"},
			Annotations: map[string]string{"A_": "v"}, Finalizers: []string{"orphan", "foregroundDeletion", "x y"},
			OwnerReferences: []apimeta.OwnerReference{{Kind: "K"}},
			ManagedFields:   []apimeta.ManagedFieldsEntry{{Operation: "Bad"}}}, true,
			validation.NameIsPathSegment, path.ValidatePathSegmentName},
	}
	md := field.NewPath("metadata")
	for _, c := range creates {
		got := texts(validation.ValidateCreate(&c.m, c.namespaced, c.nameFn))
		want := kubeTexts(apivalidation.ValidateObjectMetaAccessor(toKube(c.m), c.namespaced, c.kubeFn, md))
		if !slices.Equal(got, want) {
			t.Errorf("ValidateCreate(%+v) =\n%q; want\n%q", c.m, got, want)
		}
	}

	deleting := base
	deleting.DeletionTimestamp = &t0
	deleting.DeletionGracePeriodSeconds = &thirty
	deleting.Finalizers = []string{"a/b"}
	updates := []struct {
		name     string
		old, new apimeta.ObjectMeta
		edit     func(*apimeta.ObjectMeta)
	}{
		{"no change", base, base, nil},
		{"system fields omitted", base, base, func(m *apimeta.ObjectMeta) {
			m.UID, m.CreationTimestamp, m.Generation = "", apimeta.Time{}, 0
		}},
		{"everything immutable changed", base, base, func(m *apimeta.ObjectMeta) {
			m.Name, m.Namespace, m.UID, m.CreationTimestamp = "b", "other", "u2", t1
			m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &t1, &ten
			m.ResourceVersion = ""
		}},
		{"deleting: new finalizer, moved timestamp, removed grace", deleting, deleting, func(m *apimeta.ObjectMeta) {
			m.Finalizers = []string{"a/b", "c/d", "e/f"}
			m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &t1, nil
		}},
		{"deleting: timestamp removed, grace changed", deleting, deleting, func(m *apimeta.ObjectMeta) {
			m.DeletionTimestamp, m.DeletionGracePeriodSeconds = nil, &ten
		}},
		{"bad labels twice", base, base, func(m *apimeta.ObjectMeta) { m.Labels = map[string]string{"-": "x"} }},
	}
	for _, u := range updates {
		n := u.new
		if u.edit != nil {
			u.edit(&n)
		}
		// Kubernetes: rest.BeforeUpdate's corrections, then validateCommonFields.
		kn, ko := toKube(n), toKube(u.old)
		kn.SetGeneration(ko.GetGeneration())
		if kn.UID == "" {
			kn.UID = ko.UID
		}
		if !ko.CreationTimestamp.IsZero() {
			kn.CreationTimestamp = ko.CreationTimestamp
		}
		if !ko.GetDeletionTimestamp().IsZero() {
			kn.SetDeletionTimestamp(ko.GetDeletionTimestamp())
		}
		if ko.DeletionGracePeriodSeconds != nil && kn.DeletionGracePeriodSeconds == nil {
			kn.DeletionGracePeriodSeconds = ko.DeletionGracePeriodSeconds
		}
		want := kubeTexts(append(apivalidation.ValidateObjectMetaAccessor(kn, true, path.ValidatePathSegmentName, md),
			apivalidation.ValidateObjectMetaAccessorUpdate(kn, ko, md)...))

		old := u.old
		validation.PrepareForUpdate(&n, &old)
		got := texts(validation.ValidateUpdate(&n, &old, true))
		if !slices.Equal(got, want) {
			t.Errorf("%s: ValidateUpdate =\n%q; want\n%q", u.name, got, want)
		}
		// apiextensions-apiserver runs the update rules alone once more.
		if got, want := texts(validation.ValidateMetaUpdate(&n, &old)), kubeTexts(apivalidation.ValidateObjectMetaAccessorUpdate(kn, ko, md)); !slices.Equal(got, want) {
			t.Errorf("%s: ValidateMetaUpdate =\n%q; want\n%q", u.name, got, want)
		}
	}
}
