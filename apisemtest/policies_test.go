package apisemtest_test

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/apisem/apisem/apisemtest"
)

// A ValidatingAdmissionPolicy of an operator's custom resource is
// enforced from its creation on, as envtest's kube-apiserver enforces it
// (once it has seen it): a widget over the policy's limit is refused with
// the cluster's 422, its message the policy's messageExpression; a widget
// may be the parameters of a policy.
func TestValidatingAdmissionPolicy(t *testing.T) {
	env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"testdata/crds"}})
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(env.Config)
	widgets := dynamic.NewForConfigOrDie(env.Config).Resource(widgetsGVR).Namespace("default")

	if _, err := widgets.Create(ctx, widget("before", 2, 4), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "widget-limit"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
				}}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression:        "object.spec.replicas <= 2",
				MessageExpression: "'widget ' + object.metadata.name + ' has ' + string(object.spec.replicas) + ' replicas'",
			}},
		},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "widget-limit"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "widget-limit",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	_, err := widgets.Create(ctx, widget("big", 3, 4), metav1.CreateOptions{})
	const want = `widgets.example.com "big" is forbidden: ValidatingAdmissionPolicy 'widget-limit' with binding 'widget-limit' denied request: widget big has 3 replicas`
	if err == nil || err.Error() != want {
		t.Errorf("a widget over the limit: %v; want %s", err, want)
	}
	if _, err := widgets.Create(ctx, widget("small", 1, 4), metav1.CreateOptions{}); err != nil {
		t.Errorf("a widget within the limit: %v", err)
	}
	// An update is checked too; the object written before the policy
	// stays as it is until then.
	w, err := widgets.Get(ctx, "before", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w.Object["spec"].(map[string]any)["replicas"] = int64(4)
	if _, err := widgets.Update(ctx, w, metav1.UpdateOptions{}); err == nil {
		t.Error("an update over the limit was taken")
	}

	// A custom resource as the parameters of a policy of ConfigMaps.
	policy = &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "keys"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Widget"},
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression:        "size(object.data) <= params.spec.replicas",
				MessageExpression: "'at most ' + string(params.spec.replicas) + ' keys by ' + params.kind + ' ' + params.metadata.name",
			}},
		},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding = &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "keys"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "keys",
			ParamRef: &admissionregistrationv1.ParamRef{Name: "small",
				ParameterNotFoundAction: ptr(admissionregistrationv1.DenyAction)},
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}
	if _, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "two"}, Data: map[string]string{"a": "1", "b": "2"}}
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	const wantKeys = `configmaps "two" is forbidden: ValidatingAdmissionPolicy 'keys' with binding 'keys' denied request: at most 1 keys by Widget small`
	if err == nil || err.Error() != wantKeys {
		t.Errorf("a ConfigMap over its widget's limit: %v; want %s", err, wantKeys)
	}
}
