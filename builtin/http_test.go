package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	apimeta "github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/scale"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// newClient serves the built-in kinds of opts and returns a typed
// clientset (which speaks protobuf to built-in kinds) and the URL.
func newClient(t *testing.T, opts Options) (*kubernetes.Clientset, string) {
	t.Helper()
	res, err := Resources(opts)
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: res})
	return kubernetes.NewForConfigOrDie(&rest.Config{Host: url}), url
}

func newDeployment(name string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
}

func TestDeploymentWithClientGo(t *testing.T) {
	cs, _ := newClient(t, Options{})
	ctx := context.Background()
	deploys := cs.AppsV1().Deployments("default")
	created, err := deploys.Create(ctx, newDeployment("web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The defaults a cluster sets, read back from the store.
	got, err := deploys.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
		MaxUnavailable: ptr.To(intstr.FromString("25%")), MaxSurge: ptr.To(intstr.FromString("25%"))}}
	if s, _ := json.Marshal(got.Spec.Strategy); string(s) != mustJSON(t, want) {
		t.Errorf("spec.strategy = %s, want %s", s, mustJSON(t, want))
	}
	c := got.Spec.Template.Spec.Containers[0]
	if *got.Spec.Replicas != 1 || *got.Spec.RevisionHistoryLimit != 10 || *got.Spec.ProgressDeadlineSeconds != 600 ||
		c.ImagePullPolicy != corev1.PullAlways || c.TerminationMessagePath != "/dev/termination-log" ||
		got.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || got.Generation != 1 || got.UID != created.UID {
		t.Errorf("defaults missing: %+v", got.Spec)
	}

	// The status subresource: status changes, the spec does not.
	got.Status.Replicas, got.Status.ObservedGeneration = 1, 1
	got.Spec.Paused = true
	st, err := deploys.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Status.Replicas != 1 || st.Spec.Paused || st.Generation != 1 {
		t.Errorf("after UpdateStatus: status %+v, paused %v, generation %d", st.Status, st.Spec.Paused, st.Generation)
	}
	// A status the status strategy's validation refuses.
	st.Status.Replicas = -1
	if _, err := deploys.UpdateStatus(ctx, st, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) ||
		!strings.Contains(err.Error(), "status.replicas: Invalid value: -1: must be greater than or equal to 0") {
		t.Errorf("UpdateStatus with replicas -1: %v", err)
	}

	// The scale subresource, and the generation the spec change makes.
	sc, err := deploys.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Spec.Replicas != 1 || sc.Status.Replicas != 1 || sc.Status.Selector != "app=web" {
		t.Errorf("scale = %+v", sc)
	}
	if _, err := deploys.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv1.ScaleSpec{Replicas: 4}}, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err = deploys.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 4 || got.Generation != 2 || got.Status.Replicas != 1 {
		t.Errorf("after scaling: replicas %d, generation %d, status %+v", *got.Spec.Replicas, got.Generation, got.Status)
	}

	// Strategic merge patch merges containers by name.
	p := `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox"}]}}}}`
	got, err = deploys.Patch(ctx, "web", types.StrategicMergePatchType, []byte(p), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got.Spec.Template.Spec.Containers {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"sidecar", "web"}) {
		t.Errorf("containers after a strategic merge patch: %v", names)
	}

	// The selector is immutable: ValidateDeploymentUpdate's 422.
	got.Spec.Selector.MatchLabels["tier"] = "x"
	got.Spec.Template.Labels["tier"] = "x"
	_, err = deploys.Update(ctx, got, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.selector: Invalid value") || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("selector change: %v", err)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPodWithClientGo(t *testing.T) {
	cs, _ := newClient(t, Options{Groups: []string{""}})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	_, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}, metav1.CreateOptions{})
	var se *apierrors.StatusError
	if !apierrors.IsInvalid(err) || !asStatus(err, &se) || se.ErrStatus.Message != `Pod "p" is invalid: spec.containers: Required value` {
		t.Fatalf("a Pod without containers: %v", err)
	}
	p, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status.Phase != corev1.PodPending || p.Status.QOSClass != corev1.PodQOSBestEffort || p.Spec.DNSPolicy != corev1.DNSClusterFirst {
		t.Errorf("created pod: status %+v, dnsPolicy %q", p.Status, p.Spec.DNSPolicy)
	}
	// A status write through the status subresource.
	p.Status.Phase = corev1.PodRunning
	p.Status.PodIP = "10.0.0.5"
	p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.5"}}
	if p, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil || p.Status.Phase != corev1.PodRunning {
		t.Fatalf("UpdateStatus: %v %+v", err, p.Status)
	}
	// Only some fields of a Pod's spec may change.
	p.Spec.Containers[0].Name = "d"
	if _, err := pods.Update(ctx, p, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "pod updates may not change fields other than") {
		t.Errorf("a changed container name: %v", err)
	}
	// apps is not served.
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, newDeployment("d"), metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a Deployment where only the core group is served: %v", err)
	}
}

func asStatus(err error, se **apierrors.StatusError) bool {
	s, ok := err.(*apierrors.StatusError)
	*se = s
	return ok
}

func TestServiceAllocation(t *testing.T) {
	cs, _ := newClient(t, Options{Groups: []string{""}})
	ctx := context.Background()
	svcs := cs.CoreV1().Services("default")
	s, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Spec.ClusterIP == "" || !slices.Equal(s.Spec.ClusterIPs, []string{s.Spec.ClusterIP}) || s.Spec.Ports[0].NodePort < 30000 ||
		!slices.Equal(s.Spec.IPFamilies, []corev1.IPFamily{corev1.IPv4Protocol}) || *s.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Errorf("created service spec: %+v", s.Spec)
	}
	// An update that leaves the allocated values out keeps them, as
	// kubectl replace relies on.
	u := s.DeepCopy()
	u.Spec.ClusterIP, u.Spec.ClusterIPs, u.Spec.Ports[0].NodePort = "", nil, 0
	u.Labels = map[string]string{"a": "b"}
	got, err := svcs.Update(ctx, u, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.ClusterIP != s.Spec.ClusterIP || got.Spec.Ports[0].NodePort != s.Spec.Ports[0].NodePort {
		t.Errorf("after update: clusterIP %q nodePort %d, want %q %d", got.Spec.ClusterIP, got.Spec.Ports[0].NodePort, s.Spec.ClusterIP, s.Spec.Ports[0].NodePort)
	}
	// A changed cluster IP is refused.
	u = got.DeepCopy()
	u.Spec.ClusterIP, u.Spec.ClusterIPs = "10.96.0.200", []string{"10.96.0.200"}
	if _, err := svcs.Update(ctx, u, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "may not change once set") {
		t.Errorf("a changed clusterIP: %v", err)
	}
}

func TestTables(t *testing.T) {
	cs, url := newClient(t, Options{})
	ctx := context.Background()
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, newDeployment("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		cols  []string // the columns kubectl get shows (priority 0)
		cells []any    // the row's cells but the age
	}{
		{"/api/v1/namespaces/default/pods", []string{"Name", "Ready", "Status", "Restarts", "Age"},
			[]any{"p", "0/1", "Pending", "0"}},
		{"/apis/apps/v1/namespaces/default/deployments", []string{"Name", "Ready", "Up-to-date", "Available", "Age"},
			[]any{"web", "0/1", float64(0), float64(0)}},
	} {
		r := servertest.Do(t, "GET", url+tc.path, "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		var table metav1.Table
		if err := json.Unmarshal([]byte(r.Body), &table); err != nil || r.Code != 200 {
			t.Fatalf("GET %s: %d %s", tc.path, r.Code, r.Body)
		}
		var cols []string
		for _, c := range table.ColumnDefinitions {
			if c.Priority == 0 {
				cols = append(cols, c.Name)
			}
		}
		if !slices.Equal(cols, tc.cols) {
			t.Errorf("GET %s: columns %q, want %q", tc.path, cols, tc.cols)
		}
		if len(table.Rows) != 1 {
			t.Fatalf("GET %s: %d rows", tc.path, len(table.Rows))
		}
		if got := table.Rows[0].Cells[:len(tc.cells)]; mustJSON(t, got) != mustJSON(t, tc.cells) {
			t.Errorf("GET %s: cells %v, want %v", tc.path, got, tc.cells)
		}
	}
}

func TestOpenAPI(t *testing.T) {
	_, url := newClient(t, Options{Groups: []string{"apps"}})
	r := servertest.Do(t, "GET", url+"/openapi/v3/apis/apps/v1", "")
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Description string                     `json:"description"`
				Properties  map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal([]byte(r.Body), &doc); err != nil || r.Code != 200 {
		t.Fatalf("GET /openapi/v3/apis/apps/v1: %d %.300s", r.Code, r.Body)
	}
	s, ok := doc.Components.Schemas["io.k8s.api.apps.v1.DeploymentStrategy"]
	if !ok || !strings.HasPrefix(s.Description, "DeploymentStrategy describes how to replace existing pods") || s.Properties["rollingUpdate"] == nil {
		t.Errorf("DeploymentStrategy: %+v", s)
	}
	ps := doc.Components.Schemas["io.k8s.api.core.v1.PodSpec"]
	if c := string(ps.Properties["containers"]); !strings.Contains(c, `"x-kubernetes-list-map-keys":["name"]`) || !strings.Contains(c, `"x-kubernetes-patch-merge-key":"name"`) {
		t.Errorf("PodSpec.containers: %s", c)
	}

	// Server-side apply is typed by that schema: a quantity may be a
	// number; a field the schema lacks is refused with kube-apiserver's
	// 500.
	apply := func(body string) servertest.Reply {
		return servertest.Do(t, "PATCH", url+"/apis/apps/v1/namespaces/default/deployments/web?fieldManager=me", body,
			"Content-Type", "application/apply-patch+yaml")
	}
	d := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n" +
		"    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n        resources: {limits: {cpu: 1, memory: 64Mi}}\n"
	if r := apply(d); r.Code != 201 {
		t.Errorf("apply: %d %s", r.Code, r.Body)
	}
	if r := apply(strings.Replace(d, "image: nginx", "image: nginx\n        colour: blue", 1)); r.Code != 500 || !strings.Contains(r.Body, `.spec.template.spec.containers[name=\"web\"].colour: field not declared in schema`) {
		t.Errorf("apply of an unknown field: %d %s", r.Code, r.Body)
	}
}

func TestGroupsOption(t *testing.T) {
	all, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rbac, err := Resources(Options{Groups: []string{"rbac.authorization.k8s.io"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rbac) != 4 || len(all) != len(allKinds())+1+6 { // and bindings and the six reviews
		t.Errorf("%d rbac resources, %d in all", len(rbac), len(all))
	}
	if _, err := Resources(Options{Groups: []string{"nope.example.com"}}); err == nil {
		t.Error("an unknown group is served")
	}
	for _, r := range all {
		if r.Kind == "Namespace" {
			t.Error("Namespace is served: package namespace serves it")
		}
	}
}

func allKinds() []*kind { return all }

// The protobuf of the scale subresource's Scale is Kubernetes' own.
func TestScaleProtobuf(t *testing.T) {
	s := &scale.Scale{ObjectMeta: apimeta.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "3"},
		Spec: scale.Spec{Replicas: 0}, Status: scale.Status{Replicas: 2, Selector: "app=web"}}
	k := &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "3"},
		Spec: autoscalingv1.ScaleSpec{Replicas: 0}, Status: autoscalingv1.ScaleStatus{Replicas: 2, Selector: "app=web"}}
	want, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.AppendProto(nil); !bytes.Equal(got, want) {
		t.Errorf("Scale protobuf:\n got %x\nwant %x", got, want)
	}
}

// An Object's protobuf is that of its k8s.io/api value with its metadata.
func TestObjectProtobuf(t *testing.T) {
	d := newDeployment("web")
	d.Spec.Replicas = ptr.To[int32](2)
	o := &Object{ObjectMeta: apimeta.ObjectMeta{Name: "web", Namespace: "default", UID: "u", ResourceVersion: "5", Generation: 2,
		Labels: map[string]string{"b": "2", "a": "1"}}, Value: d.DeepCopy()}
	o.Value.(*appsv1.Deployment).ObjectMeta = metav1.ObjectMeta{}
	d.ObjectMeta = metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "u", ResourceVersion: "5", Generation: 2,
		Labels: map[string]string{"b": "2", "a": "1"}}
	want, err := d.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if got := o.AppendProto(nil); !bytes.Equal(got, want) {
		t.Errorf("Deployment protobuf:\n got %x\nwant %x", got, want)
	}
	back, err := findKindFor(t, "apps", "Deployment").decodeProto(want)
	if err != nil {
		t.Fatal(err)
	}
	if j1, j2 := mustJSON(t, back), mustJSON(t, o); j1 != j2 {
		t.Errorf("decoded %s, want %s", j1, j2)
	}
}

func TestFieldSelectors(t *testing.T) {
	cs, _ := newClient(t, Options{Groups: []string{""}})
	ctx := context.Background()
	pods := cs.CoreV1().Pods("default")
	for _, name := range []string{"a", "b"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PodSpec{NodeName: "node-" + name, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		selector string
		want     []string
	}{
		{"spec.nodeName=node-b", []string{"b"}},
		{"status.phase=Pending", []string{"a", "b"}},
		{"status.phase!=Pending", nil},
		{"metadata.name=a", []string{"a"}},
	} {
		l, err := pods.List(ctx, metav1.ListOptions{FieldSelector: tc.selector})
		if err != nil {
			t.Fatalf("%s: %v", tc.selector, err)
		}
		var got []string
		for _, p := range l.Items {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("pods with %s: %v, want %v", tc.selector, got, tc.want)
		}
	}
	if _, err := pods.List(ctx, metav1.ListOptions{FieldSelector: "spec.colour=blue"}); !apierrors.IsBadRequest(err) {
		t.Errorf("an unknown field: %v", err)
	}
}

// An update without resourceVersion is refused where the strategy does
// not allow unconditional updates (PodDisruptionBudgets), and taken
// elsewhere (Deployments).
func TestUnconditionalUpdate(t *testing.T) {
	_, url := newClient(t, Options{Groups: []string{"policy", "apps"}})
	pdb := `{"metadata":{"name":"p"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"a":"b"}}}}`
	base := url + "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
	if r := servertest.Do(t, "POST", base, pdb, "Content-Type", "application/json"); r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	r := servertest.Do(t, "PUT", base+"/p", strings.Replace(pdb, `"minAvailable":1`, `"minAvailable":2`, 1), "Content-Type", "application/json")
	if r.Code != 422 || !strings.Contains(r.Body, "metadata.resourceVersion: Invalid value: 0: must be specified for an update") {
		t.Errorf("PDB update without resourceVersion: %d %s", r.Code, r.Body)
	}
	d := mustJSON(t, newDeployment("d"))
	base = url + "/apis/apps/v1/namespaces/default/deployments"
	if r := servertest.Do(t, "POST", base, d, "Content-Type", "application/json"); r.Code != 201 {
		t.Fatalf("create: %d %s", r.Code, r.Body)
	}
	if r := servertest.Do(t, "PUT", base+"/d", d, "Content-Type", "application/json"); r.Code != 200 {
		t.Errorf("Deployment update without resourceVersion: %d %s", r.Code, r.Body)
	}
}
