package builtin

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// kube-apiserver serves autoscaling/v1 HorizontalPodAutoscalers from the
// objects of autoscaling/v2 and events.k8s.io/v1 Events from those of
// core/v1: an object written through one version is read, listed and
// watched through the other, converted by Kubernetes' conversions, with
// one resourceVersion.
func TestOneStorageTwoVersions(t *testing.T) {
	cs, _ := newClient(t, Options{})
	ctx := context.Background()

	// Discovery: both versions, v2 preferred, as kube-apiserver lists them.
	groups, err := cs.Discovery().ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups.Groups {
		if g.Name != "autoscaling" {
			continue
		}
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Version)
		}
		if strings.Join(vs, ",") != "v2,v1" || g.PreferredVersion.Version != "v2" {
			t.Errorf("autoscaling versions %v, preferred %s; want v2,v1 and v2", vs, g.PreferredVersion.Version)
		}
	}

	v1s, v2s := cs.AutoscalingV1().HorizontalPodAutoscalers("default"), cs.AutoscalingV2().HorizontalPodAutoscalers("default")
	w, err := v1s.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	created, err := v2s.Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MinReplicas:    ptr.To[int32](2), MaxReplicas: 5,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](60)}}}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := v1s.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion != created.ResourceVersion || got.UID != created.UID ||
		got.Spec.TargetCPUUtilizationPercentage == nil || *got.Spec.TargetCPUUtilizationPercentage != 60 || got.Spec.MaxReplicas != 5 {
		t.Errorf("v1 read of a v2 write: rv %s (want %s), spec %+v", got.ResourceVersion, created.ResourceVersion, got.Spec)
	}
	list, err := v1s.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Spec.TargetCPUUtilizationPercentage == nil {
		t.Errorf("v1 list: %v %+v", err, list)
	}
	ev := <-w.ResultChan()
	if h, ok := ev.Object.(*autoscalingv1.HorizontalPodAutoscaler); ev.Type != watch.Added || !ok ||
		h.ResourceVersion != created.ResourceVersion || h.Spec.TargetCPUUtilizationPercentage == nil {
		t.Errorf("v1 watch event: %s %+v", ev.Type, ev.Object)
	}

	// Written through v1, read through v2.
	got.Spec.TargetCPUUtilizationPercentage = ptr.To[int32](80)
	upd, err := v1s.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v2, err := v2s.Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v2.ResourceVersion != upd.ResourceVersion || len(v2.Spec.Metrics) != 1 || *v2.Spec.Metrics[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("v2 read of a v1 write: rv %s (want %s), metrics %+v", v2.ResourceVersion, upd.ResourceVersion, v2.Spec.Metrics)
	}

	// What v1 cannot say is kept in annotations, as kube-apiserver's
	// conversion writes them (recorded on v1.37.1).
	if _, err := v2s.Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "mem"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 3,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)}}}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	mem, err := v1s.Get(ctx, "mem", metav1.GetOptions{})
	if err != nil || mem.Annotations["autoscaling.alpha.kubernetes.io/metrics"] != `[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}}]` ||
		mem.Spec.TargetCPUUtilizationPercentage != nil || *mem.Spec.MinReplicas != 1 {
		t.Errorf("v1 read of a memory metric: %v %v %+v", err, mem.Annotations, mem.Spec)
	}

	// Events: events.k8s.io/v1 and core/v1.
	core, events := cs.CoreV1().Events("default"), cs.EventsV1().Events("default")
	cw, err := core.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer cw.Stop()
	e, err := events.Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e1"},
		EventTime: metav1.NowMicro(), ReportingController: "c", ReportingInstance: "i", Action: "A", Reason: "R",
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"}, Note: "hello", Type: "Normal"}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ce, err := core.Get(ctx, "e1", metav1.GetOptions{})
	if err != nil || ce.ResourceVersion != e.ResourceVersion || ce.Message != "hello" || ce.InvolvedObject.Name != "p" || ce.ReportingController != "c" {
		t.Errorf("core read of an events.k8s.io write: %v %+v", err, ce)
	}
	ev = <-cw.ResultChan()
	if c, ok := ev.Object.(*corev1.Event); ev.Type != watch.Added || !ok || c.Message != "hello" {
		t.Errorf("core watch event: %s %+v", ev.Type, ev.Object)
	}
	if _, err := core.Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e2"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "q"}, Message: "from core"}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	el, err := events.List(ctx, metav1.ListOptions{})
	if err != nil || len(el.Items) != 2 || el.Items[1].Note != "from core" || el.Items[1].Regarding.Name != "q" {
		t.Errorf("events.k8s.io list: %v %+v", err, el)
	}
	if err := events.Delete(ctx, "e2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.Get(ctx, "e2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("core read of an event deleted through events.k8s.io: %v", err)
	}

	// The 422 names the core group, as kube-apiserver's (recorded):
	// Event "e3" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: ]
	_, err = events.Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e3"}}, metav1.CreateOptions{})
	var se *apierrors.StatusError
	if !asStatus(err, &se) || se.ErrStatus.Code != 422 || se.ErrStatus.Details.Group != "" || se.ErrStatus.Details.Kind != "Event" ||
		se.ErrStatus.Message != `Event "e3" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: ]` {
		t.Errorf("invalid events.k8s.io Event: %v %+v", err, se)
	}
}

// kube-apiserver keeps HorizontalPodAutoscalers as autoscaling/v2: a
// write through v1 is converted before it is stored, so an update
// through either version that changes nothing writes nothing, and the
// metadata of a metadata-only answer through v1 is the stored one,
// without the annotations v1's conversion adds to its objects (recorded
// on v1.37.1, see testdata/reference-v1.37.1-multiver.txt).
func TestStorageVersion(t *testing.T) {
	cs, url := newClient(t, Options{})
	ctx := context.Background()
	v1s, v2s := cs.AutoscalingV1().HorizontalPodAutoscalers("default"), cs.AutoscalingV2().HorizontalPodAutoscalers("default")
	const metrics = `[{"type":"Resource","resource":{"name":"memory","targetAverageUtilization":70}}]`
	const annotation = "autoscaling.alpha.kubernetes.io/metrics"

	created, err := v1s.Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "h1", Annotations: map[string]string{"a": "b", annotation: metrics}},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"},
			MaxReplicas:    3, TargetCPUUtilizationPercentage: ptr.To[int32](50),
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(created.Annotations, map[string]string{"a": "b", annotation: metrics}) {
		t.Errorf("v1 create answered annotations %v", created.Annotations)
	}
	rv := created.ResourceVersion
	// The stored object is v2's: its metadata has no v1 annotations,
	// through either version (recorded).
	for _, v := range []string{"v1", "v2"} {
		got := metadataAnnotations(t, url+"/apis/autoscaling/"+v+"/namespaces/default/horizontalpodautoscalers/h1",
			"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
		if got != `{"a":"b"}` {
			t.Errorf("PartialObjectMetadata of a v1 write through %s: annotations %s, want {\"a\":\"b\"}", v, got)
		}
	}

	// Read through v2: the annotation is v2's metrics.
	v2, err := v2s.Get(ctx, "h1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v2.Annotations, map[string]string{"a": "b"}) || len(v2.Spec.Metrics) != 2 ||
		v2.Spec.Metrics[0].Resource.Name != corev1.ResourceMemory || v2.Spec.Metrics[1].Resource.Name != corev1.ResourceCPU {
		t.Errorf("v2 read of a v1 write: annotations %v, metrics %+v", v2.Annotations, v2.Spec.Metrics)
	}
	// Updates that change nothing, through either version, write nothing
	// (recorded: the resourceVersion stays), the entries of the other
	// version kept (converted, see TestManagedFieldsAcrossVersions); so
	// too once the object is rid of them (managedFields [{}]), as the
	// recorded one was.
	v1, err := v1s.Get(ctx, "h1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if upd, err := v1s.Update(ctx, v1, metav1.UpdateOptions{}); err != nil || upd.ResourceVersion != rv {
		t.Errorf("v1 update that changes nothing: %v, resourceVersion %s, want %s", err, upd.ResourceVersion, rv)
	}
	if upd, err := v2s.Update(ctx, v2, metav1.UpdateOptions{}); err != nil || upd.ResourceVersion != rv || len(upd.ManagedFields) != 1 ||
		upd.ManagedFields[0].APIVersion != "autoscaling/v1" {
		t.Errorf("v2 update of a v1 write that changes nothing: %v, resourceVersion %s (want %s), managedFields %+v", err, upd.ResourceVersion, rv, upd.ManagedFields)
	}
	v2.ManagedFields = []metav1.ManagedFieldsEntry{{}}
	cleared, err := v2s.Update(ctx, v2, metav1.UpdateOptions{})
	if err != nil || cleared.ManagedFields != nil || cleared.ResourceVersion == rv {
		t.Fatalf("clearing managedFields: %v %+v", err, cleared)
	}
	if v1, err = v1s.Get(ctx, "h1", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if upd, err := v1s.Update(ctx, v1, metav1.UpdateOptions{}); err != nil || upd.ResourceVersion != cleared.ResourceVersion ||
		!reflect.DeepEqual(upd.Annotations, map[string]string{"a": "b", annotation: metrics}) {
		t.Errorf("v1 update of a v2 write that changes nothing: %v, resourceVersion %s (want %s), annotations %v",
			err, upd.ResourceVersion, cleared.ResourceVersion, upd.Annotations)
	}
	if v2, err = v2s.Get(ctx, "h1", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if upd, err := v2s.Update(ctx, v2, metav1.UpdateOptions{}); err != nil || upd.ResourceVersion != cleared.ResourceVersion {
		t.Errorf("v2 update that changes nothing: %v, resourceVersion %s, want %s", err, upd.ResourceVersion, cleared.ResourceVersion)
	}
	if _, err := v2s.Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "h2"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"}, MaxReplicas: 3,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)}}}},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// Metadata alone, through v1: the stored annotations (recorded).
	for _, c := range []struct{ path, accept, want string }{
		{"/h1", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", `{"a":"b"}`},
		{"", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", `[{"a":"b"},null]`},
		{"?includeObject=Metadata", "application/json;as=Table;g=meta.k8s.io;v=v1", `[{"a":"b"},null]`},
	} {
		if got := metadataAnnotations(t, url+"/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"+c.path, c.accept); got != c.want {
			t.Errorf("%s through v1: annotations %s, want %s", c.accept, got, c.want)
		}
	}
}

// metadataAnnotations returns the annotations of the metadata-only
// answer (PartialObjectMetadata, its list, or a Table with
// includeObject=Metadata) to a GET of url, as JSON: one object's, or a
// list of the items'.
func metadataAnnotations(t *testing.T, url, accept string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got struct {
		Metadata metav1.ObjectMeta
		Items    []struct{ Metadata metav1.ObjectMeta }
		Rows     []struct {
			Object struct{ Metadata metav1.ObjectMeta }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	var anns []map[string]string
	for _, it := range got.Items {
		anns = append(anns, it.Metadata.Annotations)
	}
	for _, r := range got.Rows {
		anns = append(anns, r.Object.Metadata.Annotations)
	}
	var b []byte
	if anns == nil {
		b, _ = json.Marshal(got.Metadata.Annotations)
	} else {
		b, _ = json.Marshal(anns)
	}
	return string(b)
}

// events.k8s.io Events take the field selectors kube-apiserver's field
// label conversion of events.k8s.io/v1 maps to the core Event's fields
// (regarding.* to involvedObject.*, reportingController to
// reportingComponent), with the answers recorded on v1.37.1 (see
// testdata/reference-v1.37.1-multiver.txt): Events c1 and c2 written
// through core/v1, n1 and n2 through events.k8s.io/v1.
func TestEventsFieldSelectors(t *testing.T) {
	cs, _ := newClient(t, Options{Groups: []string{"", "events.k8s.io"}})
	ctx := context.Background()
	core, events := cs.CoreV1().Events("default"), cs.EventsV1().Events("default")
	for _, name := range []string{"c1", "c2"} {
		if _, err := core.Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"},
			Message:        "from core", Reason: "R", Type: "Normal"}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"n1", "n2"} {
		if _, err := events.Create(ctx, &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: name},
			EventTime: metav1.NowMicro(), ReportingController: "c", ReportingInstance: "i", Action: "A", Reason: "R",
			Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"}, Note: "hello", Type: "Normal"}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		selector string
		want     string // the names, or the 400's message
	}{
		{"regarding.name=p", "c1,c2,n1,n2"},
		{"reportingController=c", "n1,n2"},
		{"reportingController=", "c1,c2"},
		{"reportingController!=c", "c1,c2"},
		{"reason=R", "c1,c2,n1,n2"},
		{"type=Normal", "c1,c2,n1,n2"},
		{"regarding.kind=Pod,reportingController=c", "n1,n2"},
		{"regarding.namespace=default", "c1,c2,n1,n2"},
		{"regarding.uid=", "c1,c2,n1,n2"},
		{"regarding.apiVersion=", "c1,c2,n1,n2"},
		{"regarding.resourceVersion=", "c1,c2,n1,n2"},
		{"regarding.fieldPath=", "c1,c2,n1,n2"},
		{"regarding.name=q", ""},
		{"involvedObject.name=p", "field label not supported: involvedObject.name"},
		{"source=c", "field label not supported: source"},
		{"reportingComponent=c", "field label not supported: reportingComponent"},
		{"note=hello", "field label not supported: note"},
	} {
		var got string
		l, err := events.List(ctx, metav1.ListOptions{FieldSelector: c.selector})
		if err != nil {
			var se *apierrors.StatusError
			if !asStatus(err, &se) || se.ErrStatus.Code != 400 {
				t.Errorf("%s: %v", c.selector, err)
				continue
			}
			got = se.ErrStatus.Message
		} else {
			var names []string
			for _, e := range l.Items {
				names = append(names, e.Name)
			}
			got = strings.Join(names, ",")
		}
		if got != c.want {
			t.Errorf("events.k8s.io Events with %s: %q, want %q", c.selector, got, c.want)
		}
	}
}

// A resource of two versions names the version each object is in
// (Resource.StoredAs), by the type of its Value, for the etcd storage's
// label: the storage version for what the pipeline converted, and the
// version that wrote it for an object stored before (recorded: a
// cluster's values name autoscaling/v2 and v1 Event). Resources of one
// version leave it to the storage.
func TestStoredAs(t *testing.T) {
	rs, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*server.Resource{}
	for _, r := range rs {
		byName[r.GroupVersion()+" "+r.Kind] = r
	}
	for _, tc := range []struct {
		resources []string
		value     runtime.Object
		want      meta.TypeMeta
	}{
		{[]string{"autoscaling/v1 HorizontalPodAutoscaler", "autoscaling/v2 HorizontalPodAutoscaler"},
			&autoscalingv1.HorizontalPodAutoscaler{}, meta.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"}},
		{[]string{"autoscaling/v1 HorizontalPodAutoscaler", "autoscaling/v2 HorizontalPodAutoscaler"},
			&autoscalingv2.HorizontalPodAutoscaler{}, meta.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"}},
		{[]string{"v1 Event", "events.k8s.io/v1 Event"}, &corev1.Event{}, meta.TypeMeta{APIVersion: "v1", Kind: "Event"}},
		{[]string{"v1 Event", "events.k8s.io/v1 Event"}, &eventsv1.Event{}, meta.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}},
	} {
		for _, name := range tc.resources {
			r := byName[name]
			if r == nil || r.StoredAs == nil {
				t.Errorf("%s: no StoredAs", name)
				continue
			}
			if got := r.StoredAs(&Object{Value: tc.value}); got != tc.want {
				t.Errorf("%s: StoredAs(%T) = %+v; want %+v", name, tc.value, got, tc.want)
			}
		}
	}
	if r := byName["v1 ConfigMap"]; r == nil || r.StoredAs != nil {
		t.Errorf("v1 ConfigMap: StoredAs set (or no resource: %v)", r == nil)
	}
}
