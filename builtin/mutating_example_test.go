package builtin_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apisem/apisem/builtin"
	"github.com/apisem/apisem/server"
)

// A server that applies its MutatingAdmissionPolicies: from the write
// that follows the binding's on, a ConfigMap created without a team
// label gets the policy's, one with its own keeps it.
func ExampleMutatingPolicies() {
	res, err := builtin.Resources(builtin.Options{Groups: []string{"", "admissionregistration.k8s.io"}})
	if err != nil {
		log.Fatal(err)
	}
	m := builtin.NewMutatingPolicies(builtin.PolicyOptions{})
	opts := server.Options{Resources: res}
	opts.Admission = m.Admission(opts.Admission)
	s, err := server.New(opts)
	if err != nil {
		log.Fatal(err)
	}
	m.Bind(s)
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(&rest.Config{Host: ts.URL})
	adm := cs.AdmissionregistrationV1()
	if _, err := adm.MutatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "unlabelled",
				Expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"}},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations: []admissionregistrationv1.Mutation{{
				PatchType: admissionregistrationv1.PatchTypeApplyConfiguration,
				ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{
					Expression: "Object{metadata: Object.metadata{labels: {'team': 'blue'}}}",
				},
			}},
		},
	}, metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}
	if _, err := adm.MutatingAdmissionPolicyBindings().Create(ctx, &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "team"},
	}, metav1.CreateOptions{}); err != nil {
		log.Fatal(err)
	}

	cms := cs.CoreV1().ConfigMaps("default")
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "plain"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "red", Labels: map[string]string{"team": "red"}}},
	} {
		got, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(got.Name, got.Labels)
	}
	// Output:
	// plain map[team:blue]
	// red map[team:red]
}
