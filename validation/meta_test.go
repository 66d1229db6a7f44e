package validation

import (
	"github.com/apisem/apisem/meta"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/status"
)

func errorTexts(errs []status.FieldError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// Rows from k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go
// (ValidateLabels, ValidateManagedFields, ValidateFieldManager) and
// k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateAnnotations,
// ValidateFinalizers, ValidateNoNewFinalizers, ValidateOwnerReferences);
// CoreFinalizers from kubernetes pkg/apis/core/validation/validation.go.
func TestFieldRules(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		errs []status.FieldError
		want []string
	}{
		{"labels valid", Labels("metadata.labels", map[string]string{"app": "web", "example.com/tier": ""}), nil},
		{"label key and value, sorted by key",
			Labels("metadata.labels", map[string]string{"b": "-", "a/": "ok"}),
			[]string{
				`metadata.labels: Invalid value: "a/": name part must be non-empty`,
				`metadata.labels: Invalid value: "a/": ` + namePartRegexMsg,
				`metadata.labels: Invalid value: "-": ` + labelValueRegex,
			}},
		{"annotation keys are lower-cased first", Annotations("metadata.annotations", map[string]string{"Example.COM/Key": "v"}), nil},
		{"Kelvin sign lowers to k", Annotations("metadata.annotations", map[string]string{"\u212a": "v"}), nil},
		{"annotation key reported as given", Annotations("metadata.annotations", map[string]string{"Bad_": "v"}),
			[]string{`metadata.annotations: Invalid value: "Bad_": ` + namePartRegexMsg}},
		{"annotations at the limit", Annotations("metadata.annotations", map[string]string{"k": strings.Repeat("v", MaxAnnotationsBytes-1)}), nil},
		{"annotations over the limit", Annotations("metadata.annotations", map[string]string{"k": strings.Repeat("v", MaxAnnotationsBytes)}),
			[]string{"metadata.annotations: Too long: may not be more than 262144 bytes"}},
		{"finalizers", Finalizers("metadata.finalizers", []string{"example.com/x", "orphan", "foregroundDeletion", "a b"}),
			[]string{
				`metadata.finalizers: Invalid value: "a b": ` + namePartRegexMsg,
				`metadata.finalizers: Invalid value: ["example.com/x","orphan","foregroundDeletion","a b"]: finalizer orphan and foregroundDeletion cannot be both set`,
			}},
		{"core finalizers", CoreFinalizers("metadata.finalizers", []string{"kubernetes", "cleanup", "example.com/x"}),
			[]string{`metadata.finalizers[1]: Invalid value: "cleanup": name is neither a standard finalizer name nor is it fully qualified`}},
		{"no new finalizers", NoNewFinalizers("metadata.finalizers", []string{"z/z", "a/a", "k/k", "z/z"}, []string{"k/k"}),
			[]string{`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a/a", "z/z"}`}},
		{"no new finalizers, removal", NoNewFinalizers("metadata.finalizers", nil, []string{"k/k"}), nil},
		{"owner reference fields required", OwnerReferences("metadata.ownerReferences", []meta.OwnerReference{{}}),
			[]string{
				"metadata.ownerReferences[0].apiVersion: Required value: must not be empty",
				"metadata.ownerReferences[0].kind: Required value: must not be empty",
				"metadata.ownerReferences[0].name: Required value: must not be empty",
				"metadata.ownerReferences[0].uid: Required value: must not be empty",
			}},
		{"owner apiVersion and Event", OwnerReferences("metadata.ownerReferences", []meta.OwnerReference{
			{APIVersion: "a/b/c", Kind: "K", Name: "n", UID: "u"},
			{APIVersion: "v1", Kind: "Event", Name: "e", UID: "u"},
		}), []string{
			`metadata.ownerReferences[0].apiVersion: Invalid value: "a/b/c": must be <group>/<version> or <version>`,
			`metadata.ownerReferences[1]: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner`,
		}},
		{"two controllers", OwnerReferences("metadata.ownerReferences", []meta.OwnerReference{
			{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "a", UID: "1", Controller: &yes},
			{APIVersion: "apps/v1", Kind: "Deployment", Name: "b", UID: "2", Controller: &yes},
		}), []string{
			`metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"Deployment","name":"b","uid":"2","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and Deployment/b`,
		}},
		{"managed fields", ManagedFields("metadata.managedFields", []meta.ManagedFieldsEntry{
			{Manager: "kubectl", Operation: "Apply", FieldsType: "FieldsV1"},
			{Manager: "a\tb", Operation: "Patch", FieldsType: "FieldsV2", Subresource: strings.Repeat("s", 257)},
			{Manager: strings.Repeat("m", 129)},
		}), []string{
			`metadata.managedFields[1].operation: Unsupported value: "Patch": supported values: "Apply", "Update"`,
			"metadata.managedFields[1].fieldsType: Invalid value: \"FieldsV2\": must be `FieldsV1`",
			`metadata.managedFields[1].manager: Invalid value: "a\tb": invalid character U+0009 (at position 1)`,
			"metadata.managedFields[1].subresource: Too long: may not be more than 256 bytes",
			"metadata.managedFields[2].operation: Required value: must not be empty",
			"metadata.managedFields[2].manager: Too long: may not be more than 128 bytes",
		}},
	}
	for _, tt := range tests {
		if got := errorTexts(tt.errs); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// Warnings from k8s.io/apiextensions-apiserver/pkg/registry/customresource
// (validateKubeFinalizerName, generateWarningsFromObj): only added
// finalizers, sorted.
func TestFinalizerWarnings(t *testing.T) {
	got := FinalizerWarnings("metadata.finalizers", []string{"zeta", "kept", "a b", "orphan", "x.io/ok", "zeta"}, []string{"kept"})
	want := []string{
		`metadata.finalizers: "a b": ` + namePartRegexMsg,
		`metadata.finalizers: "a b": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`,
		`metadata.finalizers: "zeta": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("FinalizerWarnings:\n got %q\nwant %q", got, want)
	}
}

// Rows from ValidateObjectMetaAccessor and ValidateObjectMetaAccessorUpdate
// (k8s.io/apimachinery/pkg/api/validation/objectmeta.go) and BeforeUpdate
// (k8s.io/apiserver/pkg/registry/rest/update.go).
func TestObjectMeta(t *testing.T) {
	t0 := meta.NewTime(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))
	t1 := meta.NewTime(t0.Add(90 * time.Minute))
	ten, thirty := int64(10), int64(30)
	stored := meta.ObjectMeta{Name: "web", Namespace: "prod", UID: "u1", ResourceVersion: "7", Generation: 3, CreationTimestamp: t0}
	deleting := stored
	deleting.DeletionTimestamp, deleting.DeletionGracePeriodSeconds = &t0, &thirty
	tests := []struct {
		name string
		errs []status.FieldError
		want []string
	}{
		{"create: nothing named", ValidateCreate(&meta.ObjectMeta{}, true, NameIsDNSSubdomain), []string{
			"metadata.name: Required value: name or generateName is required",
			"metadata.namespace: Required value",
		}},
		{"create: bad generateName and name", ValidateCreate(&meta.ObjectMeta{GenerateName: "Web-", Name: "Web-x1z9q", Namespace: "prod"}, true, NameIsDNSSubdomain), []string{
			`metadata.generateName: Invalid value: "Web-": ` + subdomainRegexMsg,
			`metadata.name: Invalid value: "Web-x1z9q": ` + subdomainRegexMsg,
		}},
		{"create: namespace is a label", ValidateCreate(&meta.ObjectMeta{Name: "a", Namespace: "a.b"}, true, NameIsDNSSubdomain), []string{
			`metadata.namespace: Invalid value: "a.b": must not contain dots`,
		}},
		{"create: cluster-scoped with namespace", ValidateCreate(&meta.ObjectMeta{Name: "a", Namespace: "n", Generation: -1}, false, NameIsDNSSubdomain), []string{
			"metadata.namespace: Forbidden: not allowed on this type",
			"metadata.generation: Invalid value: -1: must be greater than or equal to 0",
		}},
		{"update: clean", update(stored, stored, nil), nil},
		{"update: system fields omitted are restored", update(stored, stored, func(m *meta.ObjectMeta) {
			m.UID, m.CreationTimestamp, m.Generation = "", meta.Time{}, 99
		}), nil},
		{"update: immutable fields", update(stored, stored, func(m *meta.ObjectMeta) {
			m.Name, m.Namespace, m.UID = "web2", "dev", "u2"
			m.DeletionTimestamp, m.DeletionGracePeriodSeconds = &t1, &ten
		}), []string{
			`metadata.name: Invalid value: "web2": field is immutable`,
			`metadata.namespace: Invalid value: "dev": field is immutable`,
			`metadata.uid: Invalid value: "u2": field is immutable`,
			`metadata.deletionTimestamp: Invalid value: "2024-05-06T08:38:09Z": field is immutable`,
			"metadata.deletionGracePeriodSeconds: Invalid value: 10: field is immutable",
		}},
		{"update: while deleting", update(deleting, deleting, func(m *meta.ObjectMeta) {
			m.Finalizers = []string{"example.com/new"}
			m.DeletionTimestamp, m.DeletionGracePeriodSeconds = nil, &ten
		}), []string{
			`metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/new"}`,
			"metadata.deletionGracePeriodSeconds: Invalid value: 10: field is immutable",
		}},
		{"update: creationTimestamp set where none was stored", update(meta.ObjectMeta{Name: "a", Namespace: "n", ResourceVersion: "1"},
			meta.ObjectMeta{Name: "a", Namespace: "n", ResourceVersion: "1"}, func(m *meta.ObjectMeta) { m.CreationTimestamp = t1 }),
			[]string{`metadata.creationTimestamp: Invalid value: "2024-05-06T08:38:09Z": field is immutable`}},
		{"update: no resourceVersion, path-segment name", update(stored, stored, func(m *meta.ObjectMeta) {
			m.ResourceVersion, m.Name = "", "a/b"
		}), []string{
			`metadata.name: Invalid value: "a/b": may not contain '/'`,
			`metadata.resourceVersion: Invalid value: "": must be specified for an update`,
			`metadata.name: Invalid value: "a/b": field is immutable`,
		}},
	}
	for _, tt := range tests {
		if got := errorTexts(tt.errs); !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// update runs PrepareForUpdate and ValidateUpdate on a copy of newMeta
// edited by edit, as a namespaced resource.
func update(oldMeta, newMeta meta.ObjectMeta, edit func(*meta.ObjectMeta)) []status.FieldError {
	if edit != nil {
		edit(&newMeta)
	}
	PrepareForUpdate(&newMeta, &oldMeta)
	return ValidateUpdate(&newMeta, &oldMeta, true)
}

func TestNextGeneration(t *testing.T) {
	tests := []struct {
		old     int64
		changed bool
		want    int64
	}{
		{InitialGeneration, false, 1},
		{InitialGeneration, true, 2},
		{7, true, 8},
	}
	for _, tt := range tests {
		if got := NextGeneration(tt.old, tt.changed); got != tt.want {
			t.Errorf("NextGeneration(%d, %v) = %d; want %d", tt.old, tt.changed, got, tt.want)
		}
	}
}

// BenchmarkManagedFields is the validation of a create's one valid
// entry, which every write with managedFields pays: no allocation.
func BenchmarkManagedFields(b *testing.B) {
	entries := []meta.ManagedFieldsEntry{{Manager: "httpbench", Operation: "Update", APIVersion: "v1",
		FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}}
	b.ReportAllocs()
	for b.Loop() {
		if errs := ManagedFields("metadata.managedFields", entries); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
