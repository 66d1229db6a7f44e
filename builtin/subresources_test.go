package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The subresources beyond status and scale answer as kube-apiserver
// v1.37.1 answers on a cluster without kubelets (recorded: the codes and
// messages below are the reference's), and those that only write the
// store do what it does.
func TestPodSubresources(t *testing.T) {
	cs, url := newClient(t, Options{})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	newPod := func(name, node string, labels map[string]string) {
		t.Helper()
		if _, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	newPod("p1", "", nil)
	newPod("b1", "n1", nil)
	newPod("b2", "n2", nil)
	if _, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s1"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const ns = "/api/v1/namespaces/default/"
	noHost := `pod p1 does not have a host assigned`
	for _, tc := range []struct {
		method, path, body string
		code               int
		message            string // "" for no Status
	}{
		{"GET", ns + "pods/p1/log", "", 204, ""},
		{"GET", ns + "pods/p1/log?container=x", "", 400, "container x is not valid for pod p1"},
		{"GET", ns + "pods/p1/log?tailLines=-1", "", 422, `PodLogOptions "p1" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
		{"GET", ns + "pods/nope/log", "", 404, `pods "nope" not found`},
		{"GET", ns + "pods/p1/exec?command=ls", "", 400, noHost},
		{"POST", ns + "pods/p1/exec?command=ls", "", 400, noHost},
		{"GET", ns + "pods/p1/attach", "", 400, noHost},
		{"POST", ns + "pods/p1/portforward", "", 400, noHost},
		{"GET", ns + "pods/p1/proxy", "", 400, "address not allowed"},
		{"GET", ns + "pods/p1/proxy/foo", "", 400, "address not allowed"},
		{"GET", ns + "pods/b1/log", "", 404, `pods "n1" not found`},
		{"GET", ns + "pods/b1/exec?command=ls", "", 404, `pods "n1" not found`},
		{"GET", ns + "pods/b2/log", "", 500, "no preferred addresses found; known addresses: []"},
		{"GET", ns + "pods/b2/attach", "", 500, "no preferred addresses found; known addresses: []"},
		{"GET", "/api/v1/nodes/n2/proxy/foo", "", 500, "no preferred addresses found; known addresses: []"},
		{"GET", "/api/v1/nodes/n9/proxy/foo", "", 404, `nodes "n9" not found`},
		{"GET", ns + "services/s1/proxy/foo", "", 503, `no endpoints available for service "s1"`},
		{"POST", ns + "serviceaccounts/nope/token", `{"spec":{}}`, 404, `serviceaccounts "nope" not found`},
		{"POST", ns + "serviceaccounts/sa/token", `{"spec":{}}`, 405, `create is not supported on resources of kind "serviceaccounts/token"`},
		{"DELETE", ns + "pods/p1/log", "", 405, "the server does not allow this method on the requested resource"},
		{"POST", ns + "pods/p1/binding", `{"metadata":{"name":"other"},"target":{"name":"n1"}}`, 400, "name in URL does not match name in Binding object"},
		{"POST", ns + "pods/p1/binding", `{"metadata":{"name":"p1"},"target":{}}`, 500, "target.name: Required value"},
		{"POST", ns + "pods/nope/binding", `{"metadata":{"name":"nope"},"target":{"name":"n1"}}`, 404, `pods "nope" not found`},
		{"POST", ns + "pods/p1/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"x"}}`, 400,
			"name in URL does not match name in Eviction object"},
	} {
		code, body := do(t, tc.method, url+tc.path, tc.body)
		var st metav1.Status
		if tc.message != "" {
			if err := json.Unmarshal([]byte(body), &st); err != nil {
				t.Errorf("%s %s: %d %s", tc.method, tc.path, code, body)
				continue
			}
		}
		if code != tc.code || st.Message != tc.message || tc.message == "" && body != "" {
			t.Errorf("%s %s: %d %q; want %d %q", tc.method, tc.path, code, body, tc.code, tc.message)
		}
	}

	// Discovery lists them as kube-apiserver does.
	rl, err := cs.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rl.APIResources {
		if strings.HasPrefix(r.Name, "pods/") || strings.HasSuffix(r.Name, "/proxy") || strings.HasSuffix(r.Name, "/token") {
			got = append(got, r.Name+" "+r.Group+"/"+r.Version+"/"+r.Kind+" "+strings.Join(r.Verbs, ","))
		}
	}
	want := []string{
		"nodes/proxy //NodeProxyOptions create,delete,get,patch,update",
		"pods/attach //PodAttachOptions create,get",
		"pods/binding //Binding create",
		"pods/ephemeralcontainers //Pod get,patch,update",
		"pods/eviction policy/v1/Eviction create",
		"pods/exec //PodExecOptions create,get",
		"pods/log //Pod get",
		"pods/portforward //PodPortForwardOptions create,get",
		"pods/proxy //PodProxyOptions create,delete,get,patch,update",
		"pods/resize //Pod get,patch,update",
		"pods/status //Pod get,patch,update",
		"serviceaccounts/token authentication.k8s.io/v1/TokenRequest create",
		"services/proxy //ServiceProxyOptions create,delete,get,patch,update",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("discovery:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A built-in resource's subresources by name: scale before status.
	apps, err := cs.Discovery().ServerResourcesForGroupVersion("apps/v1")
	if err != nil {
		t.Fatal(err)
	}
	var deploy []string
	for _, r := range apps.APIResources {
		if strings.HasPrefix(r.Name, "deployments") {
			deploy = append(deploy, r.Name)
		}
	}
	if strings.Join(deploy, ",") != "deployments,deployments/scale,deployments/status" {
		t.Errorf("apps/v1 discovery: %v", deploy)
	}

	// Binding, through client-go: nodeName and PodScheduled, once.
	if err := pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p1", Annotations: map[string]string{"a": "b"}},
		Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p, err := pods.Get(ctx, "p1", metav1.GetOptions{})
	if err != nil || p.Spec.NodeName != "n1" || p.Annotations["a"] != "b" || len(p.Status.Conditions) != 1 ||
		p.Status.Conditions[0].Type != corev1.PodScheduled || p.Status.Conditions[0].Status != corev1.ConditionTrue {
		t.Errorf("bound pod: %v %+v %+v", err, p.Spec.NodeName, p.Status.Conditions)
	}
	err = pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p1"}, Target: corev1.ObjectReference{Name: "n2"}}, metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || err.Error() != `Operation cannot be fulfilled on pods/binding "p1": pod p1 is already assigned to node "n1"` {
		t.Errorf("second binding: %v", err)
	}

	// Ephemeral containers, through their subresource only.
	p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
		Name: "debug", Image: "busybox", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}}}
	p.Labels = map[string]string{"ignored": "yes"}
	e, err := pods.UpdateEphemeralContainers(ctx, "p1", p, metav1.UpdateOptions{})
	if err != nil || len(e.Spec.EphemeralContainers) != 1 || e.Labels["ignored"] == "yes" {
		t.Errorf("ephemeral containers: %v %+v %v", err, e.Spec.EphemeralContainers, e.Labels)
	}

	// Eviction: a pending pod goes; a running one is held by its budget
	// until the disruption controller's status allows one disruption.
	newPod("x1", "", map[string]string{"app": "x"})
	if err := pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "x1"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "x1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("evicted pending pod: %v", err)
	}
	newPod("x2", "n1", map[string]string{"app": "x"})
	x2, err := pods.Get(ctx, "x2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Ready: a Pod that is not counts among no budget's healthy Pods
	// (TestEvictionPolicies).
	x2.Status.Phase = corev1.PodRunning
	x2.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	if _, err := pods.UpdateStatus(ctx, x2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pdbs := cs.PolicyV1().PodDisruptionBudgets("default")
	pdb, err := pdbs.Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "pdb"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptrTo(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// (Over HTTP: client-go tries a 429 again after its Retry-After.)
	code, body := do(t, "POST", url+ns+"pods/x2/eviction", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"x2"}}`)
	const held = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it would violate the pod's disruption budget.",` +
		`"reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget pdb is still being processed by the server."}],` +
		`"retryAfterSeconds":10},"code":429}`
	if code != 429 || strings.TrimSpace(body) != held {
		t.Errorf("eviction held by an unprocessed budget: %d %s", code, body)
	}
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, DisruptionsAllowed: 1, CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 1}
	if _, err := pdbs.UpdateStatus(ctx, pdb, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := pods.EvictV1(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "x2"}}); err != nil {
		t.Fatal(err)
	}
	x2, err = pods.Get(ctx, "x2", metav1.GetOptions{})
	if err != nil || x2.DeletionTimestamp == nil || *x2.DeletionGracePeriodSeconds != 30 {
		t.Errorf("evicted running pod: %v %+v", err, x2.ObjectMeta)
	}
	pdb, err = pdbs.Get(ctx, "pdb", metav1.GetOptions{})
	if _, ok := pdb.Status.DisruptedPods["x2"]; err != nil || pdb.Status.DisruptionsAllowed != 0 || !ok {
		t.Errorf("budget after the eviction: %v %+v", err, pdb.Status)
	}
}

func ptrTo[T any](v T) *T { return &v }
