package builtin_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/builtin"
	"github.com/apisem/apisem/server"
)

// A server that enforces its ValidatingAdmissionPolicies: a ConfigMap
// the bound policy refuses gets the cluster's 422 from the write that
// follows the binding's, one it allows is created.
func ExamplePolicies() {
	res, err := builtin.Resources(builtin.Options{Groups: []string{"", "admissionregistration.k8s.io"}})
	if err != nil {
		log.Fatal(err)
	}
	p := builtin.NewPolicies(builtin.PolicyOptions{})
	opts := server.Options{Resources: res}
	opts.Admission = p.Admission(opts.Admission)
	s, err := server.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	p.Bind(s)
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: ts.URL})
	adm := cs.AdmissionregistrationV1()
	if _, err := adm.ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "small"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression:        "size(object.data) <= 1",
				MessageExpression: "'a ConfigMap holds one key, not ' + string(size(object.data))",
			}},
		},
	}, metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	if _, err := adm.ValidatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "small"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "small",
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}, metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}

	cms := cs.CoreV1().ConfigMaps("default")
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "big"},
		Data: map[string]string{"a": "1", "b": "2"}}, metav1.CreateOptions{})
	fmt.Println(apierrors.IsInvalid(err), err)
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "small"},
		Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	fmt.Println(err)
	// Output:
	// true configmaps "big" is forbidden: ValidatingAdmissionPolicy 'small' with binding 'small' denied request: a ConfigMap holds one key, not 2
	// <nil>
}
