package builtin

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// client-go's typed clients, which speak protobuf to built-in kinds,
// write and read the new kinds: a policy, a device class and a storage
// version migration come back as written, with their defaults.
func TestNewKindsWithClientGo(t *testing.T) {
	cs, _ := newClient(t, Options{})
	ctx := context.Background()

	p, err := cs.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "max-replicas"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
				}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.replicas <= 5"}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fp := p.Spec.FailurePolicy; fp == nil || *fp != admissionregistrationv1.Fail || p.Generation != 1 {
		t.Errorf("failurePolicy %v, generation %d: want the defaults Fail and 1", fp, p.Generation)
	}

	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
			Expression: `device.driver == "gpu.example.com"`}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := cs.ResourceV1().ResourceClaims("default").Create(ctx, &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{
			Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu"}}}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := c.Spec.Devices.Requests[0].Exactly; e.AllocationMode != resourcev1.DeviceAllocationModeExactCount || e.Count != 1 {
		t.Errorf("allocationMode %q, count %d: want the defaults ExactCount and 1", e.AllocationMode, e.Count)
	}
	l, err := cs.ResourceV1().DeviceClasses().List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 1 || l.Items[0].Spec.Selectors[0].CEL.Expression != `device.driver == "gpu.example.com"` {
		t.Errorf("list device classes: %v %+v", err, l)
	}

	m, err := cs.StoragemigrationV1().StorageVersionMigrations().Create(ctx, &storagemigrationv1.StorageVersionMigration{
		ObjectMeta: metav1.ObjectMeta{Name: "m"},
		Spec:       storagemigrationv1.StorageVersionMigrationSpec{Resource: metav1.GroupResource{Group: "apps", Resource: "deployments"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.Status.Conditions = []metav1.Condition{{Type: "Running", Status: metav1.ConditionTrue, Reason: "Started", LastTransitionTime: metav1.Now()}}
	m.Status.ResourceVersion = "1"
	if m, err = cs.StoragemigrationV1().StorageVersionMigrations().UpdateStatus(ctx, m, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(m.Status.Conditions) != 1 || m.Status.ResourceVersion != "1" {
		t.Errorf("status %+v after its update", m.Status)
	}
}
