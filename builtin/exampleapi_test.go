package builtin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"

	exampleapi "github.com/apisem/apisem/examples/apiserver/api"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// The example server's own kinds (examples/apiserver/api: ConfigMap,
// Secret and core v1 Event, with rules of their own rather than
// Kubernetes' code) against Kubernetes' registry: each case is written to
// an example server over HTTP and given to rest.BeforeCreate or
// BeforeUpdate with the kind's strategy, as in TestDifferential; the
// status code, reason, message and causes, or the stored object, must be
// the same.

type exampleCase struct {
	name, kind string
	ns         string // "default" when empty
	// body is created; update, when set, then replaces it.
	body, update string
	// unordered: more than one map key fails, and Kubernetes reports the
	// keys in its maps' random order; ours are sorted. The causes are
	// compared as sets.
	unordered bool
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func secretBody(typ, data string) string {
	return `{"metadata":{"name":"s"},"type":"` + typ + `","data":{` + data + `}}`
}

var (
	big     = strings.Repeat("x", 1<<20)
	bigB64  = b64(big)
	big1B64 = b64(big + "x")
	longKey = strings.Repeat("k", 254)
	eventT  = `"eventTime":"2026-11-27T15:00:00.000000Z"`
)

var exampleCases = []exampleCase{
	// Metadata checked as a create's and as an update's: each distinct
	// error once.
	{name: "configmap bad labels on update", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"a":"b"}}`,
		update: `{"metadata":{"name":"c","labels":{"a":"-","b":"-"},"annotations":{"-x":"y"}},"data":{"a":"b"}}`},
	{name: "secret bad label on update", kind: "Secret", body: `{"metadata":{"name":"s"},"data":{"a":"ZA=="}}`,
		update: `{"metadata":{"name":"s","labels":{"a":"-"}},"data":{"a":"ZA=="}}`},
	{name: "event bad labels", kind: "Event", body: `{"metadata":{"name":"e","labels":{"a":"-","b":"-"}},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m","type":"Normal"}`},
	// Secrets, every type.
	{name: "opaque", kind: "Secret", body: `{"metadata":{"name":"s"},"stringData":{"a":"b"},"data":{"c":"ZA=="}}`},
	{name: "opaque bad key", kind: "Secret", body: secretBody("Opaque", `"a b":"ZA=="`)},
	{name: "opaque bad keys", kind: "Secret", body: secretBody("Opaque", `"..":"","..x":"","a/b":"",".":""`), unordered: true},
	{name: "opaque long key", kind: "Secret", body: secretBody("Opaque", `"`+longKey+`":""`)},
	{name: "opaque bad stringData key", kind: "Secret", body: `{"metadata":{"name":"s"},"stringData":{"a:b":"c"}}`},
	{name: "opaque of 1 MiB with keys", kind: "Secret", body: secretBody("Opaque", `"`+strings.Repeat("k", 200)+`":"`+bigB64+`"`)},
	{name: "opaque too large", kind: "Secret", body: secretBody("Opaque", `"k":"`+big1B64+`"`)},
	{name: "too large, bad key and tls", kind: "Secret", body: secretBody("kubernetes.io/tls", `"k":"`+big1B64+`","a b":""`)},
	{name: "custom type", kind: "Secret", body: secretBody("example.com/anything", `"x":"ZA=="`)},
	{name: "bootstrap token", kind: "Secret", body: secretBody("bootstrap.kubernetes.io/token", ``)},
	{name: "tls", kind: "Secret", body: secretBody("kubernetes.io/tls", `"tls.crt":"","tls.key":""`)},
	{name: "tls without key", kind: "Secret", body: secretBody("kubernetes.io/tls", `"tls.crt":"ZA=="`)},
	{name: "tls without cert", kind: "Secret", body: secretBody("kubernetes.io/tls", `"tls.key":"ZA=="`)},
	{name: "tls without data", kind: "Secret", body: `{"metadata":{"name":"s"},"type":"kubernetes.io/tls"}`},
	{name: "tls from stringData", kind: "Secret", body: `{"metadata":{"name":"s"},"type":"kubernetes.io/tls","stringData":{"tls.crt":"c","tls.key":"k"}}`},
	{name: "dockerconfigjson", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson",
		`".dockerconfigjson":"`+b64(`{"auths":{"r.example.com":{"auth":"dTpw"}}}`)+`"`)},
	{name: "dockerconfigjson null", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson", `".dockerconfigjson":"`+b64(`null`)+`"`)},
	{name: "dockerconfigjson missing", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson", `"config.json":"e30="`)},
	{name: "dockerconfigjson empty", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson", `".dockerconfigjson":""`)},
	{name: "dockerconfigjson syntax", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson", `".dockerconfigjson":"`+b64(`{"auths":`)+`"`)},
	{name: "dockerconfigjson bad character", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson", `".dockerconfigjson":"`+b64(`{'auths':1}`)+`"`)},
	{name: "dockerconfigjson array", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson", `".dockerconfigjson":"`+b64(`[{}]`)+`"`)},
	{name: "dockerconfigjson trailing data", kind: "Secret", body: secretBody("kubernetes.io/dockerconfigjson", `".dockerconfigjson":"`+b64(`{} {}`)+`"`)},
	{name: "dockercfg", kind: "Secret", body: secretBody("kubernetes.io/dockercfg", `".dockercfg":"`+b64(`{"r.example.com":{}}`)+`"`)},
	{name: "dockercfg string", kind: "Secret", body: secretBody("kubernetes.io/dockercfg", `".dockercfg":"`+b64(`"x"`)+`"`)},
	{name: "dockercfg missing", kind: "Secret", body: secretBody("kubernetes.io/dockercfg", ``)},
	{name: "basic-auth", kind: "Secret", body: secretBody("kubernetes.io/basic-auth", `"username":"dQ==","password":"cA=="`)},
	{name: "basic-auth username only", kind: "Secret", body: secretBody("kubernetes.io/basic-auth", `"username":""`)},
	{name: "basic-auth password only", kind: "Secret", body: secretBody("kubernetes.io/basic-auth", `"password":"cA=="`)},
	{name: "basic-auth neither", kind: "Secret", body: secretBody("kubernetes.io/basic-auth", `"user":"dQ=="`)},
	{name: "ssh-auth", kind: "Secret", body: secretBody("kubernetes.io/ssh-auth", `"ssh-privatekey":"aw=="`)},
	{name: "ssh-auth empty key", kind: "Secret", body: secretBody("kubernetes.io/ssh-auth", `"ssh-privatekey":""`)},
	{name: "ssh-auth missing", kind: "Secret", body: secretBody("kubernetes.io/ssh-auth", ``)},
	{name: "service-account-token", kind: "Secret",
		body: `{"metadata":{"name":"s","annotations":{"kubernetes.io/service-account.name":"default"}},"type":"kubernetes.io/service-account-token"}`},
	{name: "service-account-token without account", kind: "Secret", body: secretBody("kubernetes.io/service-account-token", `"token":"dA=="`)},
	{name: "service-account-token empty account", kind: "Secret",
		body: `{"metadata":{"name":"s","annotations":{"kubernetes.io/service-account.name":""}},"type":"kubernetes.io/service-account-token"}`},
	{name: "bad name and tls", kind: "Secret", body: `{"metadata":{"name":"S_1"},"type":"kubernetes.io/tls"}`},
	{name: "secret data update", kind: "Secret",
		body: secretBody("kubernetes.io/basic-auth", `"username":"dQ=="`), update: secretBody("kubernetes.io/basic-auth", `"username":"dg=="`)},
	{name: "secret type is immutable", kind: "Secret",
		body: secretBody("Opaque", `"username":"dQ=="`), update: secretBody("kubernetes.io/basic-auth", `"username":"dQ=="`)},
	{name: "secret update loses tls.key", kind: "Secret",
		body:   secretBody("kubernetes.io/tls", `"tls.crt":"","tls.key":""`),
		update: secretBody("kubernetes.io/tls", `"tls.crt":"","a b":""`)},
	{name: "immutable secret", kind: "Secret",
		body:   `{"metadata":{"name":"s"},"immutable":true,"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`,
		update: `{"metadata":{"name":"s"},"type":"kubernetes.io/dockercfg","data":{"tls.crt":"","a b":""}}`},
	{name: "immutable secret unchanged", kind: "Secret",
		body:   `{"metadata":{"name":"s"},"immutable":true,"data":{"a":"ZA=="}}`,
		update: `{"metadata":{"name":"s","labels":{"a":"b"}},"immutable":true,"data":{"a":"ZA=="}}`},
	{name: "secret made immutable", kind: "Secret",
		body:   `{"metadata":{"name":"s"},"data":{"a":"ZA=="}}`,
		update: `{"metadata":{"name":"s"},"immutable":true,"data":{"a":"ZQ=="}}`},

	// ConfigMaps.
	{name: "configmap", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"a":"b"},"binaryData":{"c":"ZA=="}}`},
	{name: "configmap bad key", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"a b":"c"}}`},
	{name: "configmap bad binary key and duplicate", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"a b":"c"},"binaryData":{"a b":"ZA=="}}`},
	{name: "configmap duplicate", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"k":"c"},"binaryData":{"k":"ZA=="}}`},
	{name: "configmap dot keys", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"..":"","..a":""},"binaryData":{".":""}}`, unordered: true},
	{name: "configmap long key", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"` + longKey + `":""}}`},
	{name: "configmap long bad key", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"..` + longKey + `/":""}}`},
	{name: "configmap of 1 MiB", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"` + strings.Repeat("k", 250) + `":"` + big + `"}}`},
	{name: "configmap too large", kind: "ConfigMap",
		body: `{"metadata":{"name":"c"},"data":{"a":"` + big[:1<<19] + `"},"binaryData":{"b":"` + b64(big[:1<<19+1]) + `"}}`},
	{name: "configmap update", kind: "ConfigMap",
		body: `{"metadata":{"name":"c"},"data":{"a":"b"}}`, update: `{"metadata":{"name":"c"},"data":{"a":"c","..":""}}`},
	{name: "immutable configmap", kind: "ConfigMap",
		body:   `{"metadata":{"name":"c"},"immutable":true,"data":{"a":"b"},"binaryData":{"c":"ZA=="}}`,
		update: `{"metadata":{"name":"c"},"immutable":false,"data":{"a":"c"},"binaryData":{"c":"ZQ==","a":""}}`},
	{name: "configmap made immutable", kind: "ConfigMap",
		body:   `{"metadata":{"name":"c"},"data":{"a":"b"}}`,
		update: `{"metadata":{"name":"c"},"immutable":true,"data":{"a":"c"},"binaryData":{"b":""}}`},
	{name: "immutable configmap unchanged", kind: "ConfigMap",
		body:   `{"metadata":{"name":"c"},"immutable":true,"data":{"a":"b"}}`,
		update: `{"metadata":{"name":"c","labels":{"x":"y"}},"immutable":true,"data":{"a":"b"}}`},
	{name: "immutable configmap binaryData", kind: "ConfigMap",
		body:   `{"metadata":{"name":"c"},"immutable":true,"binaryData":{"c":"ZA=="}}`,
		update: `{"metadata":{"name":"c"},"immutable":true,"binaryData":{"c":"ZQ=="}}`},

	// core v1 Events: the old rules without eventTime, the new with it.
	{name: "event", kind: "Event",
		body: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"Started","message":"m","type":"Normal","count":1}`},
	{name: "event path segment name", kind: "Event", body: `{"metadata":{"name":"E_1:x"},"involvedObject":{"kind":"Node","name":"n"}}`},
	{name: "event other namespace", kind: "Event", body: `{"metadata":{"name":"e"},"involvedObject":{"namespace":"other"}}`},
	{name: "event of cluster object elsewhere", kind: "Event", ns: "other", body: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Node","name":"n"}}`},
	{name: "event same namespace elsewhere", kind: "Event", ns: "other", body: `{"metadata":{"name":"e"},"involvedObject":{"namespace":"other"}}`},
	{name: "event with anything else", kind: "Event",
		body: `{"metadata":{"name":"e"},"reason":"` + strings.Repeat("r", 200) + `","message":"` + strings.Repeat("m", 2000) +
			`","type":"Odd","count":-1,"reportingComponent":"a b","reportingInstance":"` + strings.Repeat("i", 200) + `"}`},
	{name: "new event", kind: "Event",
		body: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"Started","message":"m",` +
			eventT + `,"action":"Start","reportingComponent":"kubelet","reportingInstance":"node-1","type":"Normal"}`},
	{name: "new event of cluster object in kube-system", kind: "Event", ns: "kube-system",
		body: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Node","name":"n"},"reason":"R",` + eventT + `,"action":"A","reportingComponent":"example.com/c","reportingInstance":"i"}`},
	{name: "new event of cluster object elsewhere", kind: "Event", ns: "other",
		body: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Node","name":"n"},"reason":"R",` + eventT + `,"action":"A","reportingComponent":"c","reportingInstance":"i"}`},
	{name: "new event without anything", kind: "Event", ns: "other", body: `{"metadata":{"name":"e"},` + eventT + `}`},
	{name: "new event too long", kind: "Event",
		body: `{"metadata":{"name":"e"},"reason":"` + strings.Repeat("r", 129) + `","message":"` + strings.Repeat("m", 1025) + `",` + eventT +
			`,"action":"` + strings.Repeat("a", 129) + `","reportingComponent":"-c-","reportingInstance":"` + strings.Repeat("i", 129) + `"}`},
	{name: "new event at the limits", kind: "Event",
		body: `{"metadata":{"name":"e"},"reason":"` + strings.Repeat("r", 128) + `","message":"` + strings.Repeat("m", 1024) + `",` + eventT +
			`,"action":"` + strings.Repeat("a", 128) + `","reportingComponent":"a/b/c","reportingInstance":"` + strings.Repeat("i", 128) + `"}`},
	{name: "new event series", kind: "Event",
		body: `{"metadata":{"name":"e"},"reason":"R",` + eventT + `,"series":{"count":1},"action":"A","reportingComponent":"c","reportingInstance":"i"}`},
	{name: "event update", kind: "Event",
		body:   `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"reason":"A","message":"m","count":1}`,
		update: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"q","namespace":"default"},"reason":"B","message":"n","count":2}`},
	{name: "event update to a new event", kind: "Event",
		body:   `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"reason":"A"}`,
		update: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p"},"reason":"A",` + eventT + `}`},
}

// exampleResources returns the example server's resources by kind.
func exampleResources() map[string]*server.Resource {
	rs := map[string]*server.Resource{}
	for _, r := range exampleapi.Resources() {
		rs[r.Kind] = r
	}
	return rs
}

// sortCauses makes the causes of a status a set and drops the message,
// which lists them in order.
func sortCauses(a *answer) {
	if a.status == nil || a.status.Details == nil {
		return
	}
	a.status.Message = ""
	slices.SortFunc(a.status.Details.Causes, func(x, y metav1.StatusCause) int {
		return strings.Compare(x.Field+x.Message, y.Field+y.Message)
	})
}

func TestExampleAPIDifferential(t *testing.T) {
	kinds := map[string]int{}
	for _, c := range exampleCases {
		t.Run(c.name, func(t *testing.T) {
			k := findKind(t, c.kind)
			_, url := servertest.New(t, server.Options{Resources: exampleapi.Resources()})
			ns := c.ns
			if ns == "" {
				ns = "default"
			}
			path := "/api/v1/namespaces/" + ns + "/" + k.Plural
			ctx := genericapirequest.WithNamespace(context.Background(), ns)
			info := &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "create", APIPrefix: "api",
				APIVersion: "v1", Namespace: ns, Resource: k.Plural}
			ctx = genericapirequest.WithRequestInfo(ctx, info)

			in := kubeDecode(t, k, ns, c.body)
			got := ours(t, "POST", url+path, c.body, k)
			want := theirs(t, k, in, rest.BeforeCreate(k.Strategy.(rest.RESTCreateStrategy), ctx, in))
			if c.update != "" {
				if got.status != nil || want.status != nil {
					t.Fatalf("create failed: ours %v, Kubernetes' %v", got.status, want.status)
				}
				old := in
				info.Verb = "update"
				in = kubeDecode(t, k, ns, c.update)
				m, om := in.(metav1.Object), old.(metav1.Object)
				om.SetResourceVersion("1")
				m.SetUID(om.GetUID())
				m.SetResourceVersion("1")
				want = theirs(t, k, in, rest.BeforeUpdate(k.Strategy.(rest.RESTUpdateStrategy), ctx, in, old))
				name, _ := got.obj["metadata"].(map[string]any)["name"].(string)
				got = ours(t, "PUT", url+path+"/"+name, c.update, k)
			}
			if c.unordered {
				if got.status == nil || want.status == nil || len(got.status.Message) != len(want.status.Message) {
					t.Errorf("messages differ:\nKubernetes: %v\nours:       %v", want.status, got.status)
				}
				sortCauses(&got)
				sortCauses(&want)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(answer{})); diff != "" {
				t.Errorf("answers differ (-Kubernetes +ours):\n%s", diff)
			}
			if got.status != nil {
				kinds[c.kind+" refused"]++
				if testing.Verbose() {
					t.Logf("%d %s", got.status.Code, got.status.Message)
				}
			} else {
				kinds[c.kind+" stored"]++
			}
		})
	}
	for _, k := range []string{"Secret", "ConfigMap", "Event"} {
		if kinds[k+" refused"] < 3 || kinds[k+" stored"] < 3 {
			t.Errorf("%s: %d cases refused and %d stored; want at least 3 of each", k, kinds[k+" refused"], kinds[k+" stored"])
		}
	}
}

// A TLS Secret whose certificate and key do not pair is stored with
// Kubernetes' warning.
func TestExampleAPISecretWarning(t *testing.T) {
	k := findKind(t, "Secret")
	_, url := servertest.New(t, server.Options{Resources: exampleapi.Resources()})
	for i, body := range []string{
		secretBody("kubernetes.io/tls", `"tls.crt":"","tls.key":""`),
		secretBody("kubernetes.io/tls", `"tls.crt":"`+b64(testCA)+`","tls.key":"a2V5"`),
		secretBody("Opaque", `"tls.crt":""`),
	} {
		in := kubeDecode(t, k, "default", body).(*api.Secret)
		want := k.Strategy.(rest.RESTCreateStrategy).WarningsOnCreate(context.Background(), in)
		body = strings.Replace(body, `"name":"s"`, `"name":"s`+string(rune('a'+i))+`"`, 1)
		r := servertest.Do(t, "POST", url+"/api/v1/namespaces/default/secrets", body, "Content-Type", "application/json")
		if r.Code != http.StatusCreated {
			t.Fatalf("%d %s", r.Code, r.Body)
		}
		var got []string
		for _, w := range r.Header.Values("Warning") {
			s, ok := strings.CutPrefix(w, "299 - ")
			if !ok {
				t.Fatalf("warning %q", w)
			}
			var text string
			if err := json.Unmarshal([]byte(s), &text); err != nil {
				t.Fatalf("warning %q: %v", w, err)
			}
			got = append(got, text)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: warnings differ (-Kubernetes +ours):\n%s", body, diff)
		}
	}
}

// FuzzExampleSecret gives arbitrary Secrets (a type, a key and its
// value, the service account annotation) to the example server's Secret
// validation and to Kubernetes' ValidateSecret: the causes must be the
// same. The docker config types make it a test of JSON decoding too.
func FuzzExampleSecret(f *testing.F) {
	for _, s := range [][3]string{
		{"kubernetes.io/dockerconfigjson", ".dockerconfigjson", `{"auths":{}}`},
		{"kubernetes.io/dockerconfigjson", ".dockerconfigjson", `{"a":[1,2,{"b":null}],"c":1e999}`},
		{"kubernetes.io/dockercfg", ".dockercfg", "\xff{}"},
		{"kubernetes.io/dockercfg", ".dockercfg", `{"a":"\ud800"}`},
		{"kubernetes.io/tls", "tls.crt", ""},
		{"kubernetes.io/basic-auth", "password", ""},
		{"kubernetes.io/ssh-auth", "ssh-privatekey", "k"},
		{"kubernetes.io/service-account-token", "..x", ""},
		{"Opaque", "a b", "v"},
	} {
		f.Add(s[0], s[1], []byte(s[2]), "")
	}
	validate := exampleResources()["Secret"].Validate
	f.Fuzz(func(t *testing.T, typ, key string, value []byte, account string) {
		ours := &exampleapi.Secret{Type: typ, Data: map[string][]byte{key: value}}
		theirs := &api.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"},
			Type: api.SecretType(typ), Data: map[string][]byte{key: bytes.Clone(value)}}
		if account != "" {
			ours.Annotations = map[string]string{exampleapi.ServiceAccountNameKey: account}
			theirs.Annotations = map[string]string{api.ServiceAccountNameKey: account}
		}
		var want, got []string
		for _, e := range validation.ValidateSecret(theirs) {
			if !strings.HasPrefix(e.Field, "metadata.") || e.Field == "metadata.annotations["+api.ServiceAccountNameKey+"]" {
				want = append(want, e.Error())
			}
		}
		for _, e := range validate(ours, nil) {
			got = append(got, e.Error())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("causes differ (-Kubernetes +ours):\n%s", diff)
		}
	})
}
