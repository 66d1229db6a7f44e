package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/apisem/apisem/audit"
	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/google/go-cmp/cmp"
)

// ConfigMap is enough of the core ConfigMap for the recorded requests.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (c *ConfigMap) Meta() *meta.ObjectMeta { return &c.ObjectMeta }
func (c *ConfigMap) Types() *meta.TypeMeta  { return &c.TypeMeta }
func (c *ConfigMap) DeepCopyObject() server.Object {
	d := *c
	c.ObjectMeta.DeepCopyInto(&d.ObjectMeta)
	d.Data = make(map[string]string, len(c.Data))
	for k, v := range c.Data {
		d.Data[k] = v
	}
	return &d
}

var configMaps = &server.Resource{
	Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
	Plural: "configmaps", Singular: "configmap", Namespaced: true, TypedListItems: true,
	New: func() server.Object { return &ConfigMap{} },
}

// The users and decisions of the reference (testdata/record.sh):
// anonymous requests are allowed by RBAC through a ClusterRoleBinding of
// the start script, a ServiceAccount token without rights is not.
const (
	saToken  = "nobody-token"
	saName   = "system:serviceaccount:default:nobody"
	anyAdmin = `RBAC: allowed by ClusterRoleBinding "reference-anonymous-cluster-admin" of ClusterRole "cluster-admin" to Group "system:unauthenticated"`
	anyInfo  = `RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"`
)

func referenceSecurity() server.SecurityOptions {
	tokens := auth.TokenReviewerFunc(func(_ context.Context, token string) (auth.TokenReview, error) {
		if token != saToken {
			return auth.TokenReview{}, nil
		}
		return auth.TokenReview{Authenticated: true, User: auth.User{Name: saName, UID: "0b7c8952-4c89-4163-8fbf-c2213dc893e7",
			Groups: []string{"system:serviceaccounts", "system:serviceaccounts:default"},
			Extra:  map[string][]string{"authentication.kubernetes.io/credential-id": {"JTI=7306111f-ed5c-4cc9-b51a-f2eee9215747"}}}}, nil
	})
	rbac := auth.AuthorizerFunc(func(_ context.Context, a auth.Attributes) (auth.Decision, string, error) {
		switch {
		case !a.User.InGroup(auth.AllUnauthenticated):
			return auth.DecisionNoOpinion, "", nil
		}
		return auth.DecisionAllow, anyAdmin, nil
	})
	return server.SecurityOptions{
		Authenticator: auth.Chain{Anonymous: true, Token: &auth.BearerToken{Reviewer: tokens}},
		Authorizer:    rbac,
	}
}

// syncBuffer is a buffer for a LogBackend that the test reads while the
// server runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRecorded makes the requests of testdata/record.sh (a ConfigMap
// created, read, updated, patched, listed, watched and deleted, a 404, a
// 403, a 401 and /version) under the same policy and compares our events,
// field by field, with those kube-apiserver v1.37.1 wrote
// (testdata/reference.jsonl), apart from what differs by nature: audit
// IDs, times, addresses, uids, resourceVersions and a token's id.
func TestRecorded(t *testing.T) {
	policy, err := audit.LoadPolicy("testdata/policy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	f, err := audit.New(audit.Options{Policy: policy, Backend: audit.NewLogBackend(&log)})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{configMaps},
		Security:  referenceSecurity(),
		Hooks:     server.HookOptions{Audit: f.Wrap},
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Shutdown(context.Background())

	do := func(method, path, token, body string, want int) {
		t.Helper()
		req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", "audit-recorder")
		switch {
		case method == "PATCH":
			req.Header.Set("Content-Type", "application/merge-patch+json")
		case body != "":
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			t.Errorf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, b)
		}
		if resp.Header.Get(audit.HeaderAuditID) == "" {
			t.Errorf("%s %s: no %s header", method, path, audit.HeaderAuditID)
		}
	}
	const cms = "/api/v1/namespaces/default/configmaps"
	const cm = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"audit-demo"},"data":{"greeting":"hello"}}`
	do("POST", cms, "", cm, 201)
	do("GET", cms+"/audit-demo", "", "", 200)
	do("PUT", cms+"/audit-demo", "", strings.Replace(cm, "hello", "hi", 1), 200)
	do("PATCH", cms+"/audit-demo", "", `{"data":{"extra":"<&>"}}`, 200)
	do("GET", cms+"?labelSelector=app%3Daudit", "", "", 200)
	do("GET", cms+"?watch=true&fieldSelector=metadata.name%3Daudit-demo&timeoutSeconds=1", "", "", 200)
	do("GET", cms+"/missing", "", "", 404)
	do("GET", cms, saToken, "", 403)
	do("GET", "/version", "", "", 200)
	do("GET", cms, "not-a-token", "", 401)
	do("DELETE", cms+"/audit-demo", "", "", 200)

	if os.Getenv("AUDIT_DUMP") != "" {
		t.Log(log.String())
	}
	got := readEvents(t, strings.NewReader(log.String()))
	want := readEvents(t, mustOpen(t, "testdata/reference.jsonl"))
	if len(got) != len(want) {
		t.Errorf("%d events, want %d", len(got), len(want))
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		if d := cmp.Diff(normalize(want[i]), normalize(got[i])); d != "" {
			t.Errorf("event %d (%s %s %s), -kube-apiserver +ours:\n%s", i, want[i]["verb"], want[i]["requestURI"], want[i]["stage"], d)
		}
	}
	checkIDsAndTimes(t, got)
}

func mustOpen(t *testing.T, name string) io.Reader {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

func readEvents(t *testing.T, r io.Reader) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		out = append(out, ev)
	}
	return out
}

// normalize removes what differs between any two runs: ids, times,
// addresses, uids, resourceVersions, managedFields' times and a token's
// id.
func normalize(ev map[string]any) map[string]any {
	ev = deepCopy(ev).(map[string]any)
	for _, k := range []string{"auditID", "requestReceivedTimestamp", "stageTimestamp", "sourceIPs"} {
		delete(ev, k)
	}
	// RBAC names the first binding that allows, in no set order: for
	// /version either of two.
	if ann, ok := ev["annotations"].(map[string]any); ok && ann["authorization.k8s.io/reason"] == anyInfo {
		ann["authorization.k8s.io/reason"] = anyAdmin
	}
	if u, ok := ev["user"].(map[string]any); ok {
		// The ServiceAccount's uid and its token's id are new in each run.
		delete(u, "uid")
		if extra, ok := u["extra"].(map[string]any); ok {
			if _, ok := extra["authentication.kubernetes.io/credential-id"]; ok {
				extra["authentication.kubernetes.io/credential-id"] = "JTI=<id>"
			}
		}
	}
	if ref, ok := ev["objectRef"].(map[string]any); ok {
		delete(ref, "uid")
		delete(ref, "resourceVersion")
	}
	if st, ok := ev["responseStatus"].(map[string]any); ok {
		if d, ok := st["details"].(map[string]any); ok {
			delete(d, "uid")
		}
	}
	for _, k := range []string{"requestObject", "responseObject"} {
		o, _ := ev[k].(map[string]any)
		md, _ := o["metadata"].(map[string]any)
		for _, f := range []string{"uid", "resourceVersion", "creationTimestamp"} {
			delete(md, f)
		}
		mf, _ := md["managedFields"].([]any)
		for _, e := range mf {
			delete(e.(map[string]any), "time")
		}
	}
	return ev
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

var microTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`)

// checkIDsAndTimes checks what normalize leaves out: one audit ID per
// request, each new, and times with six fraction digits, the stage's not
// before the request's.
func checkIDsAndTimes(t *testing.T, evs []map[string]any) {
	t.Helper()
	ids := map[string]string{}
	for i, ev := range evs {
		id, _ := ev["auditID"].(string)
		key, _ := ev["requestURI"].(string)
		key += " " + ev["verb"].(string)
		if prev, ok := ids[id]; ok && prev != key || id == "" {
			t.Errorf("event %d: audit ID %q of %q, before of %q", i, id, key, prev)
		}
		ids[id] = key
		recv, _ := ev["requestReceivedTimestamp"].(string)
		stage, _ := ev["stageTimestamp"].(string)
		if !microTime.MatchString(recv) || !microTime.MatchString(stage) || stage < recv {
			t.Errorf("event %d: times %q, %q", i, recv, stage)
		}
	}
}
