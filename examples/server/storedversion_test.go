package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apisem/apisem/envelope"
)

// Values stored before HPAs and Events were kept in their storage
// version are in the version that wrote them (an events.k8s.io/v1 Event
// under core's key, an autoscaling/v1 HPA), and labelled with it: they
// read through both versions, a deletion held by a finalizer, which
// marks the object where it is, keeps the label of the version it is in,
// and the next update stores the object in the storage version. The
// HPAs are under the key an earlier apisem gave them
// (/autoscaling/horizontalpodautoscalers/...), from which the server
// moves them to kube-apiserver's at start.
func TestValuesInTheVersionThatWroteThem(t *testing.T) {
	url, c := startEtcd(t)
	ctx := context.Background()
	const prefix = "/old"
	created := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	om := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: "demo", UID: types.UID("u-" + name), CreationTimestamp: created, Finalizers: []string{"example.com/hold"}}
	}
	event := &eventsv1.Event{ObjectMeta: om("e"), EventTime: metav1.NewMicroTime(created.Time), ReportingController: "c",
		ReportingInstance: "i", Action: "A", Reason: "R", Note: "old", Type: "Normal",
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: "demo", Name: "p"}}
	pct := int32(50)
	hpa := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: om("h"), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"},
		MaxReplicas:    3, TargetCPUUtilizationPercentage: &pct}}
	put := func(key, val string) {
		t.Helper()
		if _, err := c.Put(ctx, prefix+key, val); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []struct {
		key, apiVersion, kind string
		obj                   interface{ Marshal() ([]byte, error) }
	}{
		{"/events/demo/e", "events.k8s.io/v1", "Event", event},
		{"/autoscaling/horizontalpodautoscalers/demo/h", "autoscaling/v1", "HorizontalPodAutoscaler", hpa},
	} {
		raw, err := o.obj.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		put(o.key, string(envelope.AppendEnvelope(nil, o.apiVersion, o.kind, raw)))
		j, err := json.Marshal(o.obj)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(j, &m); err != nil {
			t.Fatal(err)
		}
		m["apiVersion"], m["kind"] = o.apiVersion, o.kind
		md := m["metadata"].(map[string]any)
		md["name"], md["uid"] = md["name"].(string)+"-json", md["uid"].(string)+"-json"
		if j, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		put(o.key+"-json", string(j))
	}

	p := mustStart(t, "-etcd-servers", url, "-etcd-prefix", prefix, "-addr", "127.0.0.1:0", "-etcd-compaction-interval", "0")
	label := func(key string) string {
		t.Helper()
		resp, err := c.Get(ctx, prefix+key)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd get %s: %v %v", key, resp, err)
		}
		v := resp.Kvs[0].Value
		if e, err := envelope.ConsumeEnvelope(v); err == nil {
			return e.APIVersion
		}
		var tm struct{ APIVersion string }
		if err := json.Unmarshal(v, &tm); err != nil {
			t.Fatalf("%s: %q: %v", key, v, err)
		}
		return tm.APIVersion
	}
	check := func(when string) {
		t.Helper()
		for _, name := range []string{"e", "e-json"} {
			if code, obj := p.call(t, "GET", "/api/v1/namespaces/demo/events/"+name, nil); code != 200 || obj["message"] != "old" {
				t.Errorf("%s: event %s through core/v1: %d %v", when, name, code, obj)
			}
			if code, obj := p.call(t, "GET", "/apis/events.k8s.io/v1/namespaces/demo/events/"+name, nil); code != 200 || obj["note"] != "old" {
				t.Errorf("%s: event %s through events.k8s.io/v1: %d %v", when, name, code, obj)
			}
		}
		for _, name := range []string{"h", "h-json"} {
			if code, obj := p.call(t, "GET", "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers/"+name, nil); code != 200 ||
				obj["spec"].(map[string]any)["targetCPUUtilizationPercentage"] != float64(50) {
				t.Errorf("%s: hpa %s through v1: %d %v", when, name, code, obj)
			}
			if code, obj := p.call(t, "GET", "/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/"+name, nil); code != 200 ||
				len(obj["spec"].(map[string]any)["metrics"].([]any)) != 1 {
				t.Errorf("%s: hpa %s through v2: %d %v", when, name, code, obj)
			}
		}
	}
	check("as stored")

	// Deleted through the version that does not hold them: the objects,
	// held by their finalizer, are marked, and stay as they are.
	for _, path := range []string{"/api/v1/namespaces/demo/events/e", "/api/v1/namespaces/demo/events/e-json",
		"/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/h", "/apis/autoscaling/v2/namespaces/demo/horizontalpodautoscalers/h-json"} {
		if code, obj := p.call(t, "DELETE", path, nil); code != 200 || metadata(obj)["deletionTimestamp"] == nil {
			t.Errorf("DELETE %s: %d %v", path, code, obj)
		}
	}
	check("marked for deletion")
	for key, want := range map[string]string{"/events/demo/e": "events.k8s.io/v1", "/events/demo/e-json": "events.k8s.io/v1",
		"/horizontalpodautoscalers/demo/h": "autoscaling/v1", "/horizontalpodautoscalers/demo/h-json": "autoscaling/v1"} {
		if got := label(key); got != want {
			t.Errorf("%s marked for deletion: labelled %s, want %s (the version it is in)", key, got, want)
		}
	}

	// An update through the version that wrote them stores them in the
	// storage version.
	for _, path := range []string{"/apis/events.k8s.io/v1/namespaces/demo/events/e", "/apis/events.k8s.io/v1/namespaces/demo/events/e-json",
		"/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers/h", "/apis/autoscaling/v1/namespaces/demo/horizontalpodautoscalers/h-json"} {
		req, err := http.NewRequest("PATCH", p.url+path, strings.NewReader(`{"metadata":{"labels":{"l":"v"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/merge-patch+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("PATCH %s: %d %s", path, resp.StatusCode, b)
		}
	}
	check("updated")
	for key, want := range map[string]string{"/events/demo/e": "v1", "/events/demo/e-json": "v1",
		"/horizontalpodautoscalers/demo/h": "autoscaling/v2", "/horizontalpodautoscalers/demo/h-json": "autoscaling/v2"} {
		if got := label(key); got != want {
			t.Errorf("%s updated: labelled %s, want %s", key, got, want)
		}
	}
}
