package crd

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/jsonvalue"
	"github.com/apisem/apisem/scale"
	"github.com/apisem/apisem/status"
)

// scaleOf decodes a Scale answer.
func scaleOf(t *testing.T, body string) scale.Scale {
	t.Helper()
	var s scale.Scale
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	if s.Kind != "Scale" || s.APIVersion != "autoscaling/v1" {
		t.Errorf("Scale typed %q %q: %s", s.Kind, s.APIVersion, body)
	}
	return s
}

// TestScale serves the scale subresource of testdata's definition: the
// Scale view of .spec.replicas, .status.replicas and .status.selector,
// its writes going through the object's defaulting and validation, and
// discovery's listing of it as autoscaling/v1 Scale.
func TestScale(t *testing.T) {
	_, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	r := do(t, "GET", url+"/apis/example.com/v1", "", 200)
	if want := `{"name":"widgets/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}`; !strings.Contains(r.body, want) {
		t.Errorf("discovery lacks %s: %s", want, r.body)
	}
	r = do(t, "GET", url+"/apis", "", 200, "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	if want := `{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]}`; !strings.Contains(r.body, want) {
		t.Errorf("aggregated discovery lacks %s: %s", want, r.body)
	}

	do(t, "POST", url+widgetsURL, `{"metadata":{"name":"w1"},"spec":{"color":"red","replicas":2}}`, 201)
	do(t, "PATCH", url+widgetsURL+"/w1/status", `{"status":{"replicas":2,"selector":"app=w1"}}`, 200,
		"Content-Type", "application/merge-patch+json")
	scaleURL := url + widgetsURL + "/w1/scale"
	sc := scaleOf(t, do(t, "GET", scaleURL, "", 200).body)
	if sc.Name != "w1" || sc.Namespace != "default" || sc.UID == "" || sc.ResourceVersion == "" || sc.CreationTimestamp.IsZero() ||
		sc.Spec.Replicas != 2 || sc.Status.Replicas != 2 || sc.Status.Selector != "app=w1" {
		t.Errorf("GET scale = %+v", sc)
	}

	for _, tc := range []struct {
		name, method, path, body, ctype string
		code                            int
		want                            int32  // spec replicas after
		msg                             string // of an error
	}{
		{name: "update", method: "PUT", body: `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"w1"},"spec":{"replicas":5}}`, code: 200, want: 5},
		{name: "merge patch (kubectl scale)", method: "PATCH", body: `{"spec":{"replicas":7}}`, ctype: "application/merge-patch+json", code: 200, want: 7},
		{name: "json patch", method: "PATCH", body: `[{"op":"replace","path":"/spec/replicas","value":3}]`, ctype: "application/json-patch+json", code: 200, want: 3},
		{name: "strategic merge patch", method: "PATCH", body: `{"spec":{"replicas":4}}`, ctype: "application/strategic-merge-patch+json", code: 415,
			msg: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
		{name: "apply", method: "PATCH", path: "?fieldManager=hpa&force=true", body: "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: w1}\nspec: {replicas: 4}\n",
			ctype: "application/apply-patch+yaml", code: 200, want: 4},
		{name: "to zero", method: "PATCH", body: `{"spec":{"replicas":0}}`, ctype: "application/merge-patch+json", code: 200, want: 0},
		{name: "schema maximum", method: "PATCH", body: `{"spec":{"replicas":11}}`, ctype: "application/merge-patch+json", code: 422,
			msg: `Widget.example.com "w1" is invalid: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`},
		{name: "negative", method: "PUT", body: `{"metadata":{"name":"w1"},"spec":{"replicas":-1}}`, code: 422,
			msg: `Widget.example.com "w1" is invalid: [spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, .spec.replicas: Invalid value: -1: should be a non-negative integer]`},
		{name: "stale resourceVersion", method: "PUT", body: `{"metadata":{"name":"w1","resourceVersion":"1"},"spec":{"replicas":1}}`, code: 409,
			msg: `Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again`},
		{name: "other name", method: "PUT", body: `{"metadata":{"name":"w2"},"spec":{"replicas":1}}`, code: 400,
			msg: `the name of the object (w2) does not match the name on the URL (w1)`},
		{name: "other kind", method: "PUT", body: `{"kind":"Widget","apiVersion":"example.com/v1","metadata":{"name":"w1"},"spec":{"replicas":1}}`, code: 400},
		{name: "delete", method: "DELETE", code: 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := []string{}
			if tc.ctype != "" {
				hdr = append(hdr, "Content-Type", tc.ctype)
			}
			r := do(t, tc.method, scaleURL+tc.path, tc.body, tc.code, hdr...)
			if tc.code != 200 {
				if st := statusOf(t, r.body); tc.msg != "" && st.Message != tc.msg {
					t.Errorf("message %q\nwant    %q", st.Message, tc.msg)
				}
				return
			}
			if got := scaleOf(t, r.body); got.Spec.Replicas != tc.want || got.Status.Replicas != 2 {
				t.Errorf("answer %+v; want spec replicas %d", got, tc.want)
			}
			w := unstructured(t, do(t, "GET", url+widgetsURL+"/w1", "", 200).body)
			if n, _, _ := jsonvalue.NestedInt64(w.Content, "spec", "replicas"); n != int64(tc.want) {
				t.Errorf("stored spec.replicas = %d; want %d", n, tc.want)
			}
		})
	}
	// Scale writes move the generation as spec writes do.
	w := unstructured(t, do(t, "GET", url+widgetsURL+"/w1", "", 200).body)
	if g := w.Meta().Generation; g != 6 {
		t.Errorf("generation %d after 5 scale writes; want 6", g)
	}
}

// TestScaleSubresourceValues reads and writes the scale paths with
// Kubernetes' messages for values of the wrong type.
func TestScaleSubresourceValues(t *testing.T) {
	sel := ".status.selector"
	def := &CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &sel}
	sub := scaleSubresource(def)
	for _, tc := range []struct {
		name, obj string
		spec, st  int32
		selector  string
		found     bool
		err       string
		invalid   string // validateScale's errors
	}{
		{name: "all", obj: `{"spec":{"replicas":3},"status":{"replicas":2,"selector":"a=b"}}`, spec: 3, st: 2, selector: "a=b", found: true},
		{name: "none", obj: `{}`},
		{name: "null spec", obj: `{"spec":null}`},
		{name: "string replicas", obj: `{"spec":{"replicas":"3"}}`,
			err:     `.spec.replicas accessor error: 3 is of the type string, expected int64`,
			invalid: `.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 3 is of the type string, expected int64`},
		{name: "fraction", obj: `{"spec":{"replicas":1.5}}`,
			err:     `.spec.replicas accessor error: 1.5 is of the type float64, expected int64`,
			invalid: `.spec.replicas: Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected int64`},
		// Kubernetes names the member it could not look up, not the
		// value that is not an object.
		{name: "spec not an object", obj: `{"spec":[1]}`,
			err:     `.spec.replicas accessor error: [1] is of the type []interface {}, expected map[string]interface{}`,
			invalid: `.spec.replicas: Invalid value: 0: .spec.replicas accessor error: [1] is of the type []interface {}, expected map[string]interface{}`},
		{name: "selector not a string", obj: `{"spec":{"replicas":1},"status":{"selector":{"a":"b"}}}`,
			err:     `.status.selector accessor error: map[a:b] is of the type map[string]interface {}, expected string`,
			invalid: `.status.selector: Invalid value: "": .status.selector accessor error: map[a:b] is of the type map[string]interface {}, expected string`},
		{name: "too many", obj: `{"spec":{"replicas":2147483648}}`, spec: -2147483648, found: true,
			invalid: `.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647`},
		{name: "negative status", obj: `{"spec":{"replicas":1},"status":{"replicas":-2}}`, spec: 1, st: -2, found: true,
			invalid: `.status.replicas: Invalid value: -2: should be a non-negative integer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`
			if tc.obj != `{}` {
				obj = obj[:len(obj)-1] + "," + tc.obj[1:]
			}
			u := unstructured(t, obj)
			spec, st, found, err := sub.Get(u)
			switch {
			case tc.err != "":
				if err == nil || err.Error() != tc.err {
					t.Errorf("Get error %v; want %s", err, tc.err)
				}
			case err != nil:
				t.Errorf("Get: %v", err)
			case spec.Replicas != tc.spec || st.Replicas != tc.st || st.Selector != tc.selector || found != tc.found:
				t.Errorf("Get = %+v %+v %v", spec, st, found)
			}
			var msgs []string
			for _, e := range validateScale(u.Content, def) {
				msgs = append(msgs, e.Error())
			}
			if got := strings.Join(msgs, "; "); got != tc.invalid {
				t.Errorf("validateScale = %q\nwant           %q", got, tc.invalid)
			}
		})
	}
	// Set makes the objects on the way, and refuses to go through a
	// value that is not one.
	u := unstructured(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`)
	if err := sub.Set(u, 4); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := jsonvalue.NestedInt64(u.Content, "spec", "replicas"); n != 4 {
		t.Errorf("Set: %v", u.Content)
	}
	u = unstructured(t, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":"x"}`)
	if err := sub.Set(u, 4); err == nil || err.Error() != "value cannot be set because .spec is not a map[string]interface{}" {
		t.Errorf("Set through a string: %v", err)
	}
}

// statusOf decodes a Status answer.
func statusOf(t *testing.T, body string) status.Status {
	t.Helper()
	var st status.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestScaleManagedFields writes to the scale subresource and checks the
// object's managedFields against what kube-apiserver 1.37 answered to the
// same requests: the Scale view's entries are mapped to the object as
// Kubernetes' scale handler maps them, with its quirks (a scale writer's
// entry has no time; an Update entry of the object that owned the replicas
// splits in two after any scale write; a scale write whose Scale view has
// no entries records nothing).
//
// Server-side apply to a custom resource's scale subresource answers a
// 500 on kube-apiserver 1.37 unless it conflicts or changes nothing
// ("failed to convert new object (/g1; autoscaling/v1, Kind=Scale) to
// proper version: request to convert CR to an invalid group/version:
// autoscaling/v1"); the applies that succeed here do what they do to a
// Deployment's scale subresource there (observed too).
func TestScaleManagedFields(t *testing.T) {
	url, serve := gadgetServer(t, gadgetsYAML)
	const (
		apply = "application/apply-patch+yaml"
		scale = `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"g1"`
		rest  = `creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:size":{}}}`
	)
	runWriteSteps(t, url+gadgetsPath, serve, []writeStep{{
		name: "create", method: "POST", path: "?fieldManager=creator",
		body: `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"size":1}}`, code: 201,
		object: "g1",
		mf:     `creator Update {"f:spec":{".":{},"f:color":{},"f:nested":{".":{},"f:a":{}},"f:replicas":{},"f:size":{}}}`,
	}, {
		name: "update", method: "PUT", path: "/g1/scale?fieldManager=scaler", body: scale + `,"namespace":"demo"},"spec":{"replicas":4}}`, code: 200,
		object: "g1",
		mf:     `scaler Update/scale (no time) {"f:spec":{"f:replicas":{}}}` + "\n" + rest,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":4,"size":1}`,
	}, {
		name: "merge patch", method: "PATCH", path: "/g1/scale?fieldManager=mscaler", ctype: "application/merge-patch+json",
		body: `{"spec":{"replicas":6}}`, code: 200,
		object: "g1",
		mf:     `mscaler Update/scale (no time) {"f:spec":{"f:replicas":{}}}` + "\n" + rest,
	}, {
		name: "json patch", method: "PATCH", path: "/g1/scale?fieldManager=jscaler", ctype: "application/json-patch+json",
		body: `[{"op":"replace","path":"/spec/replicas","value":7}]`, code: 200,
		object: "g1",
		mf:     `jscaler Update/scale (no time) {"f:spec":{"f:replicas":{}}}` + "\n" + rest,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":7,"size":1}`,
	}, {
		name: "apply conflicts with the scale writer", method: "PATCH", path: "/g1/scale?fieldManager=ascaler", ctype: apply,
		body: scale + `},"spec":{"replicas":8}}`, code: 409,
		msg: `Apply failed with 1 conflict: conflict with "jscaler" with subresource "scale" using autoscaling/v1: .spec.replicas`,
	}, {
		name: "apply to the object conflicts with it too", method: "PATCH", path: "/g1?fieldManager=applier", ctype: apply,
		body: `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"replicas":9}}`, code: 409,
		msg: `Apply failed with 1 conflict: conflict with "jscaler" with subresource "scale" using test.apisem.dev/v1: .spec.replicas`,
	}, {
		name: "forced apply", method: "PATCH", path: "/g1/scale?fieldManager=ascaler&force=true", ctype: apply,
		body: scale + `},"spec":{"replicas":8}}`, code: 200,
		object: "g1",
		mf:     `ascaler Apply/scale (no time) {"f:spec":{"f:replicas":{}}}` + "\n" + rest,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":8,"size":1}`,
	}, {
		name: "apply of status and labels sets the replicas alone", method: "PATCH", path: "/g1/scale?fieldManager=ascaler", ctype: apply,
		body: "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: g1\n  labels: {a: b}\nspec:\n  replicas: 5\nstatus:\n  replicas: 1\n", code: 200,
		object: "g1",
		mf:     `ascaler Apply/scale (no time) {"f:spec":{"f:replicas":{}}}` + "\n" + rest,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":5,"size":1}`,
	}, {
		name: "apply that leaves the replicas out removes them", method: "PATCH", path: "/g1/scale?fieldManager=ascaler", ctype: apply,
		body: scale + `}}`, code: 200,
		object: "g1",
		mf:     rest,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":0,"size":1}`,
	}, {
		name: "a scale write with no owner of the replicas records nothing", method: "PUT", path: "/g1/scale?fieldManager=scaler",
		body: scale + `},"spec":{"replicas":2}}`, code: 200,
		object: "g1",
		mf:     rest,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":2,"size":1}`,
	}, {
		name: "a first apply conflicts with before-first-apply", method: "PATCH", path: "/g1/scale?fieldManager=ascaler", ctype: apply,
		body: scale + `},"spec":{"replicas":3}}`, code: 409,
		msg: `Apply failed with 1 conflict: conflict with "before-first-apply" with subresource "scale" using autoscaling/v1: .spec.replicas`,
	}, {
		name: "the creator's entry splits", method: "POST", path: "?fieldManager=creator",
		body: `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"g4"},"spec":{"size":1}}`, code: 201,
	}, {
		method: "PUT", path: "/g4/scale?fieldManager=noop", body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"g4"},"spec":{"replicas":1}}`, code: 200,
		object: "g4",
		mf:     `creator Update (no time) {"f:spec":{"f:replicas":{}}}` + "\n" + rest,
	}, {
		name: "and one half wins the next decoding", method: "PUT", path: "/g4?fieldManager=creator",
		body: `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"g4","resourceVersion":"RV"},"spec":{"size":2}}`, code: 200,
		object: "g4",
		mf:     rest,
		spec:   `{"color":"red","nested":{"a":"x"},"replicas":1,"size":2}`,
	}, {
		name: "apply errors: another kind", method: "PATCH", path: "/g1/scale?fieldManager=a", ctype: apply,
		body: `{"apiVersion":"test.apisem.dev/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"replicas":9}}`, code: 400,
		msg: "invalid object type: test.apisem.dev/v1, Kind=Gadget",
	}, {
		name: "apply errors: no kind", method: "PATCH", path: "/g1/scale?fieldManager=a", ctype: apply,
		body: `{"metadata":{"name":"g1"},"spec":{"replicas":9}}`, code: 400, msg: "invalid object type: /, Kind=",
	}, {
		name: "apply errors: no manager", method: "PATCH", path: "/g1/scale", ctype: apply, body: scale + `}}`, code: 422,
		msg: `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`,
	}, {
		name: "apply errors: unknown field", method: "PATCH", path: "/g1/scale?fieldManager=a&fieldValidation=Strict", ctype: apply,
		body: scale + `},"spec":{"replicas":9,"bogus":1}}`, code: 500,
		msg: "failed to create typed patch object (/g1; autoscaling/v1, Kind=Scale): .spec.bogus: field not declared in schema",
	}, {
		name: "apply errors: managedFields", method: "PATCH", path: "/g1/scale?fieldManager=a", ctype: apply,
		body: scale + `,"managedFields":[{"manager":"x"}]}}`, code: 400, msg: "metadata.managedFields must be nil",
	}, {
		name: "apply errors: another name", method: "PATCH", path: "/g1/scale?fieldManager=a&force=true", ctype: apply,
		body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"zz"},"spec":{"replicas":9}}`, code: 400,
		msg: "the name of the object (zz) does not match the name on the URL (g1)",
	}, {
		name: "apply errors: stale resourceVersion", method: "PATCH", path: "/g1/scale?fieldManager=a&force=true", ctype: apply,
		body: scale + `,"resourceVersion":"1"},"spec":{"replicas":9}}`, code: 409,
		msg: `Operation cannot be fulfilled on gadgets.test.apisem.dev "g1": the object has been modified; please apply your changes to the latest version and try again`,
	}, {
		name: "apply errors: no object", method: "PATCH", path: "/nope/scale?fieldManager=a", ctype: apply,
		body: `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"nope"},"spec":{"replicas":9}}`, code: 404,
		msg: `gadgets.test.apisem.dev "nope" not found`,
	}, {
		name: "strategic merge patch", method: "PATCH", path: "/g1/scale", ctype: "application/strategic-merge-patch+json",
		body: `{"spec":{"replicas":9}}`, code: 415,
		msg: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
	}})
}

// TestScaleOpenAPI: the scale subresource is published in /openapi/v3 and
// /openapi/v2 as kube-apiserver 1.37 publishes a custom resource's: get,
// put and patch of autoscaling/v1 Scale (its schema in the document,
// named as that kind), operations named after the resource's kind, the
// object's patch types, 200 alone for a patch.
func TestScaleOpenAPI(t *testing.T) {
	_, c, url := newServer(t)
	do(t, "POST", url+crdsURL, widgetCRD(t), 201)
	if _, err := c.WaitEstablished(context.Background(), "widgets.example.com"); err != nil {
		t.Fatal(err)
	}
	const path = "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale"
	type op struct {
		OperationID string `json:"operationId"`
		Description string
		GVK         map[string]string `json:"x-kubernetes-group-version-kind"`
		Consumes    []string
		Responses   map[string]json.RawMessage
		RequestBody struct{ Content map[string]json.RawMessage }
		Parameters  []struct{ Name string }
	}
	var v3 struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal([]byte(do(t, "GET", url+"/openapi/v3/apis/example.com/v1", "", 200).body), &v3); err != nil {
		t.Fatal(err)
	}
	var v2 struct {
		Paths       map[string]map[string]json.RawMessage
		Definitions map[string]json.RawMessage
	}
	if err := json.Unmarshal([]byte(do(t, "GET", url+"/openapi/v2", "", 200).body), &v2); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []struct {
		name    string
		paths   map[string]map[string]json.RawMessage
		schemas map[string]json.RawMessage
	}{{"v3", v3.Paths, v3.Components.Schemas}, {"v2", v2.Paths, v2.Definitions}} {
		p := doc.paths[path]
		if p == nil {
			t.Errorf("%s: no %s", doc.name, path)
			continue
		}
		for _, want := range []struct{ verb, id, desc, codes string }{
			{"get", "readExampleComV1NamespacedWidgetScale", "read scale of the specified Widget", "200 401"},
			{"put", "replaceExampleComV1NamespacedWidgetScale", "replace scale of the specified Widget", "200 201 401"},
			{"patch", "patchExampleComV1NamespacedWidgetScale", "partially update scale of the specified Widget", "200 401"},
		} {
			var o op
			if err := json.Unmarshal(p[want.verb], &o); err != nil {
				t.Fatal(err)
			}
			codes := slices.Sorted(maps.Keys(o.Responses))
			if o.OperationID != want.id || o.Description != want.desc || strings.Join(codes, " ") != want.codes ||
				o.GVK["group"] != "example.com" || o.GVK["kind"] != "Widget" || o.GVK["version"] != "v1" {
				t.Errorf("%s %s: %s %q %v %v", doc.name, want.verb, o.OperationID, o.Description, codes, o.GVK)
			}
			if want.verb == "patch" {
				types := o.Consumes
				if doc.name == "v3" {
					types = slices.Sorted(maps.Keys(o.RequestBody.Content))
				}
				if got := strings.Join(types, " "); !strings.Contains(got, "apply-patch") || strings.Contains(got, "strategic") {
					t.Errorf("%s patch types %s", doc.name, got)
				}
			}
			if want.verb == "put" && !strings.Contains(string(p["put"]), `io.k8s.api.autoscaling.v1.Scale"`) {
				t.Errorf("%s put: %s", doc.name, p["put"])
			}
		}
		if s := string(doc.schemas["io.k8s.api.autoscaling.v1.Scale"]); !strings.Contains(s, `"x-kubernetes-group-version-kind":[{"group":"autoscaling","kind":"Scale","version":"v1"}]`) {
			t.Errorf("%s Scale schema: %s", doc.name, s)
		}
		if doc.schemas["io.k8s.api.autoscaling.v1.ScaleSpec"] == nil || doc.schemas["io.k8s.api.autoscaling.v1.ScaleStatus"] == nil {
			t.Errorf("%s lacks ScaleSpec or ScaleStatus", doc.name)
		}
	}
}
