package demo

import (
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/server"
)

// Every client error of the write verbs answers Kubernetes' Status.
func TestWriteErrors(t *testing.T) {
	_, base := newTestServer(t, Options{
		Watch:  server.WatchOptions{FutureWait: 50 * time.Millisecond},
		Limits: server.LimitOptions{MaxBodyBytes: 1 << 10},
	})
	seed(t, base, "ns1")
	const cms = "/api/v1/namespaces/ns1/configmaps"
	for _, tt := range []struct {
		name, method, path, body string
		hdr                      []string
		code                     int
		reason, message          string
	}{
		{"exists", "POST", cms, `{"metadata":{"name":"cm"}}`, nil, 409, "AlreadyExists", `configmaps "cm" already exists`},
		{"missing namespace", "POST", "/api/v1/namespaces/nope/configmaps", `{"metadata":{"name":"a"}}`, nil, 404, "NotFound", `namespaces "nope" not found`},
		{"namespace mismatch", "POST", cms, `{"metadata":{"name":"a","namespace":"other"}}`, nil, 400, "BadRequest",
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"apiVersion mismatch", "POST", cms, `{"apiVersion":"v2","metadata":{"name":"a"}}`, nil, 400, "BadRequest",
			"the API version in the data (v2) does not match the expected API version (v1)"},
		{"kind mismatch", "POST", cms, `{"kind":"Secret","metadata":{"name":"a"}}`, nil, 400, "BadRequest",
			"the kind in the data (Secret) does not match the expected kind (ConfigMap)"},
		{"no name", "POST", cms, `{"metadata":{}}`, nil, 422, "Invalid",
			`ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`},
		{"resourceVersion on create", "POST", cms, `{"metadata":{"name":"a","resourceVersion":"1"}}`, nil, 500, "", ""},
		{"strict", "POST", cms + "?fieldValidation=Strict", `{"metadata":{"name":"a"},"x":1,"data":{"k":"v"},"data":{}}`, nil, 400, "BadRequest",
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "x", duplicate field "data"`},
		{"bad fieldValidation", "POST", cms + "?fieldValidation=strict", `{"metadata":{"name":"a"}}`, nil, 422, "Invalid",
			`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"`},
		{"bad dryRun", "POST", cms + "?dryRun=foo", `{"metadata":{"name":"a"}}`, nil, 422, "Invalid",
			`CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["foo"]: supported values: "All"`},
		{"body too large", "POST", cms, `{"metadata":{"name":"a"},"data":{"k":"` + strings.Repeat("x", 2000) + `"}}`, nil, 413, "RequestEntityTooLarge",
			"Request entity too large: limit is 1024"},
		{"unknown body type", "POST", cms, `x`, []string{"Content-Type", "text/plain"}, 415, "UnsupportedMediaType",
			"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"not protobuf", "POST", cms, `{}`, []string{"Content-Type", "application/vnd.kubernetes.protobuf"}, 400, "BadRequest",
			"the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({} ...)"},
		{"widget protobuf", "POST", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets", "k8s\x00", []string{"Content-Type", "application/vnd.kubernetes.protobuf"}, 415, "UnsupportedMediaType",
			"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"update missing", "PUT", cms + "/nope", `{"metadata":{"name":"nope"}}`, nil, 404, "NotFound", `configmaps "nope" not found`},
		{"update name mismatch", "PUT", cms + "/cm", `{"metadata":{"name":"other"}}`, nil, 400, "BadRequest",
			"the name of the object (other) does not match the name on the URL (cm)"},
		{"update namespace mismatch", "PUT", cms + "/cm", `{"metadata":{"name":"cm","namespace":"other"}}`, nil, 400, "BadRequest",
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"patch namespace mismatch", "PATCH", cms + "/cm", `{"metadata":{"namespace":"other"}}`, []string{"Content-Type", "application/merge-patch+json"}, 400, "BadRequest",
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"update stale", "PUT", cms + "/cm", `{"metadata":{"name":"cm","resourceVersion":"1"}}`, nil, 409, "Conflict",
			`Operation cannot be fulfilled on configmaps "cm": the object has been modified; please apply your changes to the latest version and try again`},
		{"delete missing", "DELETE", cms + "/nope", ``, nil, 404, "NotFound", `configmaps "nope" not found`},
		{"delete precondition", "DELETE", cms + "/cm", `{"preconditions":{"uid":"x"}}`, nil, 409, "Conflict", ""},
		{"delete bad propagation", "DELETE", cms + "/cm?propagationPolicy=Sometimes", ``, nil, 422, "Invalid",
			`DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{"delete bad dryRun", "DELETE", cms + "/cm", `{"dryRun":["Some"]}`, nil, 422, "Invalid",
			`DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"`},
		{"list bad selector", "GET", cms + "?labelSelector=a%3D%3D%3Db", ``, nil, 400, "BadRequest", ""},
		{"list bad field selector", "GET", cms + "?fieldSelector=spec.x%3D1", ``, nil, 400, "BadRequest",
			`"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		// A well-formed token (revision 5, start "a\x00"): a malformed one is named first.
		{"list continue with rv", "GET", cms + "?continue=AQAFYQA&resourceVersion=5", ``, nil, 400, "BadRequest",
			"specifying resource version is not allowed when using continue"},
		{"list rvm without rv", "GET", cms + "?resourceVersionMatch=Exact", ``, nil, 422, "Invalid",
			`ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		// kube-apiserver's router refuses it before its handler would.
		{"not acceptable", "GET", cms + "/cm", ``, []string{"Accept", "text/html"}, 406, "NotAcceptable",
			"406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"bad includeObject", "GET", cms, ``, []string{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}, 0, "", ""},
		{"bad includeObject", "GET", cms + "?includeObject=foo", ``, []string{"Accept", "application/json;as=Table;v=v1;g=meta.k8s.io"}, 400, "BadRequest",
			`Unable to convert to Table as requested: includeObject: Invalid value: "foo": must be 'Metadata', 'Object', 'None', or empty`},
		{"too large rv", "GET", cms + "/cm?resourceVersion=999", ``, nil, 504, "Timeout", "Timeout: Too large resource version: 999, current: 3"},
	} {
		r := call(t, base, tt.method, tt.path, tt.body, tt.hdr...)
		if tt.code == 0 {
			continue
		}
		if r.code != tt.code || field(t, r.body, "kind") != "Status" || field(t, r.body, "reason") != nil && field(t, r.body, "reason") != tt.reason ||
			tt.reason != "" && field(t, r.body, "reason") != tt.reason || tt.message != "" && field(t, r.body, "message") != tt.message {
			t.Errorf("%s: %s %s = %d %s; want %d %s %q", tt.name, tt.method, tt.path, r.code, r.body, tt.code, tt.reason, tt.message)
		}
	}
}

// Creates fill in generated fields; dry runs store nothing.
func TestCreate(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const cms = "/api/v1/namespaces/ns1/configmaps"
	r := must(t, 201, base, "POST", cms, `{"metadata":{"generateName":"gen-"},"data":{"a":"1"}}`)
	name, _ := field(t, r.body, "metadata.name").(string)
	if !strings.HasPrefix(name, "gen-") || len(name) != 9 || field(t, r.body, "metadata.uid") == nil ||
		field(t, r.body, "kind") != "ConfigMap" || field(t, r.body, "apiVersion") != "v1" {
		t.Errorf("generated: %s", r.body)
	}
	must(t, 200, base, "GET", cms+"/"+name, "")

	r = must(t, 201, base, "POST", cms+"?dryRun=All", `{"metadata":{"name":"dry"}}`)
	if field(t, r.body, "metadata.uid") == nil || field(t, r.body, "metadata.resourceVersion") != nil {
		t.Errorf("dry-run create: %s", r.body)
	}
	must(t, 404, base, "GET", cms+"/dry", "")

	// YAML in, protobuf out.
	r = must(t, 201, base, "POST", cms, "metadata:\n  name: from-yaml\ndata:\n  k: v\n",
		"Content-Type", "application/yaml", "Accept", "application/vnd.kubernetes.protobuf")
	e, err := envelope.ConsumeEnvelope([]byte(r.body))
	if err != nil || e.Kind != "ConfigMap" || e.APIVersion != "v1" || r.header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" {
		t.Errorf("protobuf response: %v %+v %s", err, e, hex.EncodeToString([]byte(r.body)))
	}

	// Secrets: stringData lands in data and is never returned.
	r = must(t, 201, base, "POST", "/api/v1/namespaces/ns1/secrets", `{"metadata":{"name":"s"},"stringData":{"user":"u"}}`)
	if field(t, r.body, "data.user") != "dQ==" || field(t, r.body, "stringData") != nil || field(t, r.body, "type") != "Opaque" {
		t.Errorf("secret: %s", r.body)
	}
}

// Update and patch: every patch type, dry runs, and the errors of a patch.
func TestUpdateAndPatch(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const cm = "/api/v1/namespaces/ns1/configmaps/cm"
	r := must(t, 200, base, "PUT", cm, `{"metadata":{"name":"cm"},"data":{"k":"v2"}}`)
	if field(t, r.body, "data.k") != "v2" || field(t, r.body, "metadata.labels") != nil {
		t.Errorf("update without resourceVersion replaces the object: %s", r.body)
	}
	rv := field(t, r.body, "metadata.resourceVersion")
	r = must(t, 200, base, "PUT", cm+"?dryRun=All", `{"metadata":{"name":"cm"},"data":{"k":"dry"}}`)
	if field(t, r.body, "data.k") != "dry" {
		t.Errorf("dry-run update: %s", r.body)
	}
	if r = must(t, 200, base, "GET", cm, ""); field(t, r.body, "data.k") != "v2" || field(t, r.body, "metadata.resourceVersion") != rv {
		t.Errorf("dry-run update was stored: %s", r.body)
	}
	// An update that changes nothing writes nothing.
	r = must(t, 200, base, "PUT", cm, `{"metadata":{"name":"cm"},"data":{"k":"v2"}}`)
	if field(t, r.body, "metadata.resourceVersion") != rv {
		t.Errorf("no-op update got a new resourceVersion: %s", r.body)
	}

	for _, tt := range []struct {
		name, ct, body string
		code           int
		check          string // dotted path that must be "1" afterwards, or the error message
	}{
		{"merge", "application/merge-patch+json", `{"data":{"m":"1"}}`, 200, "data.m"},
		{"strategic", "application/strategic-merge-patch+json", `{"metadata":{"labels":{"s":"1"}}}`, 200, "metadata.labels.s"},
		{"json", "application/json-patch+json", `[{"op":"add","path":"/data/j","value":"1"}]`, 200, "data.j"},
		{"json with charset", "application/json-patch+json; charset=utf-8", `[{"op":"add","path":"/data/c","value":"1"}]`, 200, "data.c"},
		{"json test fails", "application/json-patch+json", `[{"op":"test","path":"/data/k","value":"no"}]`, 422,
			"the server rejected our request due to an error in our request"},
		{"json malformed", "application/json-patch+json", `{"op":"add"}`, 400,
			"error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"},
		{"merge not JSON", "application/merge-patch+json", `{`, 400, "error decoding patch: unexpected end of JSON input"},
		{"merge too deep", "application/merge-patch+json", strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001), 400,
			"error decoding patch: invalid character '{' exceeded max depth"},
		{"strategic too deep", "application/strategic-merge-patch+json", strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001), 400,
			"invalid character '{' exceeded max depth"},
		{"apply without fieldManager", "application/apply-patch+yaml", `{}`, 422,
			`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		// kube-apiserver's router refuses a built-in resource's patch of
		// another type (a custom resource's handler answers
		// "the body of the request was in an unknown format - ...").
		{"unknown", "application/json", `{}`, 415, "415: Unsupported Media Type"},
		{"renames", "application/merge-patch+json", `{"metadata":{"name":"other"}}`, 400,
			"the name of the object (other) does not match the name on the URL (cm)"},
		{"stale resourceVersion", "application/merge-patch+json", `{"metadata":{"resourceVersion":"1"}}`, 409, ""},
		{"unknown field warns", "application/merge-patch+json", `{"spec":{"w":"1"},"data":{"w":"1"}}`, 200, "data.w"},
		{"invalid result", "application/merge-patch+json", `{"data":{"a/b":"1"}}`, 422, ""},
		{"type change", "application/merge-patch+json", `{"data":"x"}`, 422, ""},
	} {
		r := call(t, base, "PATCH", cm, tt.body, "Content-Type", tt.ct)
		switch {
		case r.code != tt.code:
			t.Errorf("%s: %d %s; want %d", tt.name, r.code, r.body, tt.code)
		case tt.code == 200 && field(t, r.body, tt.check) != "1":
			t.Errorf("%s: %s lacks %s", tt.name, r.body, tt.check)
		case tt.code != 200 && tt.check != "" && field(t, r.body, "message") != tt.check:
			t.Errorf("%s: message %q; want %q", tt.name, field(t, r.body, "message"), tt.check)
		}
	}
	r = must(t, 200, base, "PATCH", cm, `{"spec":1}`, "Content-Type", "application/merge-patch+json")
	if w := r.header.Get("Warning"); w != `299 - "unknown field \"spec\""` {
		t.Errorf("Warn mode patch: Warning %q", w)
	}
	r = must(t, 422, base, "PATCH", cm+"?fieldValidation=Strict", `{"spec":1}`, "Content-Type", "application/merge-patch+json")
	if msg, _ := field(t, r.body, "message").(string); !strings.HasPrefix(msg, ` "" is invalid: patch: Invalid value: "{`) ||
		!strings.HasSuffix(msg, `": strict decoding error: unknown field "spec"`) {
		t.Errorf("Strict patch: %s", r.body)
	}
	r = must(t, 422, base, "PATCH", cm+"?fieldValidation=Strict", `[{"op":"add","path":"/data/q","value":"1","extra":1}]`, "Content-Type", "application/json-patch+json")
	if msg, _ := field(t, r.body, "message").(string); !strings.HasSuffix(msg, `strict decoding error: json patch unknown field "[0].extra"`) {
		t.Errorf("Strict JSON patch: %s", r.body)
	}

	// A cluster-scoped object's namespace is cleared, as Kubernetes does.
	r = must(t, 200, base, "PUT", "/api/v1/namespaces/ns1", `{"metadata":{"name":"ns1","namespace":"x","labels":{"a":"b"}}}`)
	if field(t, r.body, "metadata.namespace") != nil || field(t, r.body, "metadata.labels.a") != "b" {
		t.Errorf("update of a namespace that names a namespace: %s", r.body)
	}
	// Warn mode's warnings go out whatever the answer, as Kubernetes sends
	// them as soon as the body is decoded.
	r = must(t, 400, base, "PUT", cm, `{"metadata":{"name":"other"},"bogus":1}`)
	if w := r.header.Get("Warning"); w != `299 - "unknown field \"bogus\""` {
		t.Errorf("Warning on a failed update: %q", w)
	}
}

// Deletes answer a Status for core resources and the object for custom
// resources and for objects kept by finalizers.
func TestDelete(t *testing.T) {
	_, base := newTestServer(t, Options{})
	seed(t, base, "ns1")
	const cms = "/api/v1/namespaces/ns1/configmaps"
	r := must(t, 200, base, "DELETE", cms+"/cm?dryRun=All", "")
	must(t, 200, base, "GET", cms+"/cm", "")
	uid := field(t, must(t, 200, base, "GET", cms+"/cm", "").body, "metadata.uid").(string)
	r = must(t, 200, base, "DELETE", cms+"/cm", "")
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"cm","kind":"configmaps","uid":"` + uid + `"}}` + "\n"
	if r.body != want {
		t.Errorf("delete: %s; want %s", r.body, want)
	}

	must(t, 201, base, "POST", cms, `{"metadata":{"name":"held","finalizers":["x/y"]}}`)
	r = must(t, 200, base, "DELETE", cms+"/held", "")
	if field(t, r.body, "kind") != "ConfigMap" || field(t, r.body, "metadata.deletionTimestamp") == nil {
		t.Errorf("delete of a held object: %s", r.body)
	}
	r = must(t, 202, base, "DELETE", cms+"/held", `{"orphanDependents":false}`)
	must(t, 202, base, "DELETE", cms+"/held?orphanDependents=FALSE", "")
	must(t, 200, base, "DELETE", cms+"/held?orphanDependents=no", "") // not false: true
	must(t, 200, base, "PATCH", cms+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	must(t, 404, base, "GET", cms+"/held", "")

	must(t, 201, base, "POST", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets", `{"metadata":{"name":"w"},"spec":{"size":1}}`)
	r = must(t, 200, base, "DELETE", "/apis/example.apisem.dev/v1/namespaces/ns1/widgets/w", "")
	// A Status, as kube-apiserver 1.37.1 answers for a custom resource.
	if field(t, r.body, "kind") != "Status" || field(t, r.body, "status") != "Success" || field(t, r.body, "details.kind") != "widgets" {
		t.Errorf("custom resource delete: %s", r.body)
	}

	// deletecollection returns what it deleted.
	for _, n := range []string{"a", "b", "c"} {
		must(t, 201, base, "POST", cms, `{"metadata":{"name":"`+n+`","labels":{"del":"`+map[bool]string{true: "yes", false: "no"}[n != "c"]+`"}}}`)
	}
	r = must(t, 200, base, "DELETE", cms+"?labelSelector=del%3Dyes", "")
	if field(t, r.body, "kind") != "ConfigMapList" || len(field(t, r.body, "items").([]any)) != 2 {
		t.Errorf("deletecollection: %s", r.body)
	}
	r = must(t, 200, base, "GET", cms, "")
	if items := field(t, r.body, "items").([]any); len(items) != 1 {
		t.Errorf("after deletecollection: %s", r.body)
	}
}
