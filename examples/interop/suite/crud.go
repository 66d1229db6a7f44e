package suite

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// Typed ConfigMap CRUD, over JSON and over protobuf: every verb a typed
// client has, with the objects and errors it decodes.
func (e env) typedConfigMapCRUD(t *testing.T) {
	for _, tc := range []struct {
		name     string
		protobuf bool
	}{{"json", false}, {"protobuf", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ts := e.start(t, demo.Options{})
			cs := ts.clientset(t, tc.protobuf)
			ctx := context.Background()
			namespace(t, cs, "ns1")
			cms := cs.CoreV1().ConfigMaps("ns1")

			immutable := false
			created, err := cms.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "cm1", Labels: map[string]string{"app": "a"}},
				Data:       map[string]string{"k": "v"},
				BinaryData: map[string][]byte{"b": {0, 1, 2}},
				Immutable:  &immutable,
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() ||
				created.Namespace != "ns1" || created.Data["k"] != "v" || string(created.BinaryData["b"]) != "\x00\x01\x02" {
				t.Fatalf("created: %+v", created)
			}

			got, err := cms.Get(ctx, "cm1", metav1.GetOptions{})
			if err != nil || got.ResourceVersion != created.ResourceVersion || got.UID != created.UID {
				t.Fatalf("Get = %+v, %v", got, err)
			}

			got.Data["k2"] = "v2"
			updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
			if err != nil || updated.Data["k2"] != "v2" || updated.ResourceVersion == got.ResourceVersion {
				t.Fatalf("Update = %+v, %v", updated, err)
			}

			// A stale resourceVersion is a 409 Conflict.
			got.Data["k3"] = "v3"
			if _, err := cms.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Fatalf("stale Update: err %v; want a conflict", err)
			}

			// Patches of all three kinds.
			for _, p := range []struct {
				pt   types.PatchType
				body string
				key  string
			}{
				{types.MergePatchType, `{"data":{"m":"1"}}`, "m"},
				{types.StrategicMergePatchType, `{"data":{"s":"1"}}`, "s"},
				{types.JSONPatchType, `[{"op":"add","path":"/data/j","value":"1"}]`, "j"},
			} {
				out, err := cms.Patch(ctx, "cm1", p.pt, []byte(p.body), metav1.PatchOptions{})
				if err != nil || out.Data[p.key] != "1" || out.Data["k2"] != "v2" {
					t.Fatalf("Patch %s = %+v, %v", p.pt, out, err)
				}
			}

			list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=a"})
			if err != nil || len(list.Items) != 1 || list.Items[0].Name != "cm1" || list.ResourceVersion == "" {
				t.Fatalf("List = %+v, %v", list, err)
			}
			if list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=b"}); err != nil || len(list.Items) != 0 {
				t.Fatalf("List app=b = %+v, %v", list, err)
			}

			if err := cms.Delete(ctx, "cm1", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err, ts.served(""))
			}
			if _, err := cms.Get(ctx, "cm1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("Get after Delete: err %v; want NotFound", err)
			}
			if err := cms.Delete(ctx, "cm1", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("second Delete: err %v; want NotFound", err)
			}
		})
	}
}

// Creates exercise generateName, AlreadyExists, dry run and the namespace
// checks, over protobuf for Secrets.
func (e env) createRules(t *testing.T) {
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, true)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	secrets := cs.CoreV1().Secrets("ns1")

	s, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "creds-"},
		StringData: map[string]string{"user": "u"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Name, "creds-") || len(s.Name) != len("creds-")+5 || s.Type != corev1.SecretTypeOpaque ||
		string(s.Data["user"]) != "u" || len(s.StringData) != 0 {
		t.Fatalf("generated secret: %+v", s)
	}
	if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: s.Name}}, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("duplicate create: err %v; want AlreadyExists", err)
	}

	dry, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "dry"}},
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || dry.UID == "" || dry.Name != "dry" {
		t.Fatalf("dry-run create = %+v, %v", dry, err)
	}
	if _, err := secrets.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("dry-run create stored the object: err %v", err)
	}
	if _, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x"}},
		metav1.CreateOptions{DryRun: []string{"foo"}}); !apierrors.IsInvalid(err) {
		t.Fatalf("dryRun=foo: err %v; want Invalid", err)
	}

	_, err = cs.CoreV1().ConfigMaps("missing").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), `namespaces "missing" not found`) {
		t.Fatalf("create in a missing namespace: err %v; want namespaces \"missing\" not found", err)
	}

	_, err = cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Bad_Name"}}, metav1.CreateOptions{})
	var se *apierrors.StatusError
	if !apierrors.IsInvalid(err) || !asStatus(err, &se) || len(se.ErrStatus.Details.Causes) != 1 ||
		se.ErrStatus.Details.Causes[0].Field != "metadata.name" || se.ErrStatus.Details.Causes[0].Type != metav1.CauseType(field.ErrorTypeInvalid) {
		t.Fatalf("invalid name: err %#v; want a 422 on metadata.name", err)
	}
}

func asStatus(err error, se **apierrors.StatusError) bool {
	s, ok := err.(*apierrors.StatusError)
	*se = s
	return ok
}

// fieldValidation=Strict turns unknown and duplicate fields into a 400
// BadRequest; Warn into warnings; Ignore into silence.
func (e env) strictFieldValidation(t *testing.T) {
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, false)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","name":"cm"},"data":{"k":"v"},"spec":{"x":1}}`

	err := cs.CoreV1().RESTClient().Post().Namespace("ns1").Resource("configmaps").
		Param("fieldValidation", "Strict").Body([]byte(body)).SetHeader("Content-Type", "application/json").
		Do(ctx).Error()
	if !apierrors.IsBadRequest(err) {
		t.Fatalf("Strict: err %v; want BadRequest", err)
	}
	want := `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", unknown field "spec"`
	if err.Error() != want {
		t.Errorf("Strict: message %q; want %q", err.Error(), want)
	}

	res := cs.CoreV1().RESTClient().Post().Namespace("ns1").Resource("configmaps").
		Param("fieldValidation", "Warn").Body([]byte(body)).SetHeader("Content-Type", "application/json").Do(ctx)
	if err := res.Error(); err != nil {
		t.Fatalf("Warn: %v", err)
	}
	var warnings []string
	for _, w := range res.Warnings() {
		warnings = append(warnings, w.Text)
	}
	if strings.Join(warnings, "|") != `duplicate field "metadata.name"|unknown field "spec"` {
		t.Errorf("Warn: warnings %q", warnings)
	}

	if err := cs.CoreV1().RESTClient().Post().Namespace("ns1").Resource("configmaps").
		Param("fieldValidation", "strict").Body([]byte(body)).SetHeader("Content-Type", "application/json").
		Do(ctx).Error(); !apierrors.IsInvalid(err) {
		t.Fatalf("fieldValidation=strict: err %v; want Invalid", err)
	}
}
