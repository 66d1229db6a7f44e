package builtin

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/apisem/apisem/server/servertest"
)

// The managedFields of HorizontalPodAutoscalers and Events written
// through one version and updated through the other are kube-apiserver's
// (testdata/reference/managedfields-versions.json, recorded on v1.37.1):
// an HPA's entries of the other version are kept, converted (an update
// through v1 takes maxReplicas from the creator's v2 entry), so an
// update that changes nothing writes nothing; an Event's entries of the
// other group are dropped, since kube-apiserver cannot convert them, so
// an update that changes nothing else writes, without them. An apply
// through v1 conflicts with the fields of v2's entries.
func TestManagedFieldsAcrossVersions(t *testing.T) {
	raw, err := os.ReadFile("testdata/reference/managedfields-versions.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Answers []struct {
			Step            string
			ResourceVersion string
			ManagedFields   []map[string]any
		}
		Applies []struct {
			Manager, Body, Message string
			Code                   int
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	_, url := newClient(t, Options{})
	const (
		hpaV1  = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
		hpaV2  = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
		coreEv = "/api/v1/namespaces/default/events"
		evV1   = "/apis/events.k8s.io/v1/namespaces/default/events"
	)
	coreEvent := func(name string) string {
		return `{"metadata":{"name":"` + name + `"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m",` +
			`"type":"Normal","source":{"component":"c"},"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:00Z","count":1}`
	}
	newEvent := func(name string) string {
		return `{"metadata":{"name":"` + name + `"},"regarding":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","note":"m",` +
			`"type":"Normal","action":"A","reportingController":"c/x","reportingInstance":"i","eventTime":"2026-01-01T00:00:00.000000Z"}`
	}
	// put GETs path and PUTs the answer back, changed by change.
	put := func(path string, change func(o map[string]any)) func() (string, string) {
		return func() (string, string) {
			r := servertest.Do(t, "GET", url+path, "")
			var o map[string]any
			if err := json.Unmarshal([]byte(r.Body), &o); err != nil {
				t.Fatalf("GET %s: %d %s", path, r.Code, r.Body)
			}
			if change != nil {
				change(o)
			}
			b, _ := json.Marshal(o)
			return "PUT", string(b)
		}
	}
	post := func(body string) func() (string, string) { return func() (string, string) { return "POST", body } }
	steps := map[string]struct {
		path, object string // the request's path; the object's, named by its path in one version
		req          func() (method, body string)
	}{
		"h-create": {hpaV2, "h", post(`{"metadata":{"name":"h"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},` +
			`"minReplicas":1,"maxReplicas":5,"metrics":[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":50}}}]}}`)},
		"h-noop-v1":   {hpaV1 + "/h", "h", put(hpaV1+"/h", nil)},
		"h-change-v1": {hpaV1 + "/h", "h", put(hpaV1+"/h", func(o map[string]any) { o["spec"].(map[string]any)["maxReplicas"] = 7 })},
		"h1-create": {hpaV1, "h1", post(`{"metadata":{"name":"h1"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},` +
			`"minReplicas":1,"maxReplicas":5,"targetCPUUtilizationPercentage":60}}`)},
		"h1-noop-v2":    {hpaV2 + "/h1", "h1", put(hpaV2+"/h1", nil)},
		"e-create":      {coreEv, "e", post(coreEvent("e"))},
		"e-noop-ev1":    {evV1 + "/e", "e", put(evV1+"/e", nil)},
		"e-noop2-ev1":   {evV1 + "/e", "e", put(evV1+"/e", nil)},
		"e2-create":     {evV1, "e2", post(newEvent("e2"))},
		"e2-change-v1":  {coreEv + "/e2", "e2", put(coreEv+"/e2", func(o map[string]any) { o["message"] = "changed" })},
		"e3-create":     {evV1, "e3", post(newEvent("e3"))},
		"e3-noop-v1":    {coreEv + "/e3", "e3", put(coreEv+"/e3", nil)},
		"e4-create":     {coreEv, "e4", post(coreEvent("e4"))},
		"e4-change-ev1": {evV1 + "/e4", "e4", put(evV1+"/e4", func(o map[string]any) { o["metadata"].(map[string]any)["labels"] = map[string]any{"a": "b"} })},
	}
	refRV, ourRV := map[string]string{}, map[string]string{} // by object: the last answer's
	for _, a := range ref.Answers {
		st, ok := steps[a.Step]
		if !ok {
			t.Fatalf("no request for the recorded step %s", a.Step)
		}
		method, body := st.req()
		path := st.path + "?fieldManager=" + map[bool]string{true: "creator", false: "updater"}[method == "POST"]
		r := servertest.Do(t, method, url+path, body, "Content-Type", "application/json")
		if r.Code != 200 && r.Code != 201 {
			t.Fatalf("%s: %s %s: %d %s", a.Step, method, path, r.Code, r.Body)
		}
		var got struct {
			Metadata struct {
				ResourceVersion string
				ManagedFields   []map[string]any
			}
		}
		if err := json.Unmarshal([]byte(r.Body), &got); err != nil {
			t.Fatal(err)
		}
		for _, e := range got.Metadata.ManagedFields {
			delete(e, "time")
		}
		gotMF, _ := json.Marshal(got.Metadata.ManagedFields)
		wantMF, _ := json.Marshal(a.ManagedFields)
		if string(gotMF) != string(wantMF) {
			t.Errorf("%s: managedFields\n got %s\nwant %s", a.Step, gotMF, wantMF)
		}
		if prev, ok := refRV[st.object]; ok && (prev == a.ResourceVersion) != (ourRV[st.object] == got.Metadata.ResourceVersion) {
			t.Errorf("%s: written %v, want %v (resourceVersion %s after %s)", a.Step, ourRV[st.object] != got.Metadata.ResourceVersion,
				prev != a.ResourceVersion, got.Metadata.ResourceVersion, ourRV[st.object])
		}
		refRV[st.object], ourRV[st.object] = a.ResourceVersion, got.Metadata.ResourceVersion
	}
	// An apply through v1 conflicts with the fields of the v2 entry too.
	for _, a := range ref.Applies {
		r := servertest.Do(t, "PATCH", url+hpaV1+"/h?fieldManager="+a.Manager, a.Body, "Content-Type", "application/apply-patch+yaml")
		var st struct{ Message string }
		if err := json.Unmarshal([]byte(r.Body), &st); err != nil || r.Code != a.Code || st.Message != a.Message {
			t.Errorf("apply by %s: %d %s\nwant %d %s", a.Manager, r.Code, r.Body, a.Code, a.Message)
		}
	}
}
