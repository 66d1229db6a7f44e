package patch

import (
	"errors"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/apisem/apisem/status"
)

const cmDoc = `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"v","l":["p","q"]}}`

// deep returns a JSON value nested n arrays deep.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// deepObject returns a merge patch whose value is nested n levels deep.
func deepObject(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }

// ops returns a JSON patch of n test operations that pass.
func ops(n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(`{"op":"test","path":"/kind","value":"ConfigMap"},`, n), ",") + "]"
}

var applyTests = []struct {
	name        string
	contentType string
	body        string
	opts        Options
	want        string   // the patched document, compared as JSON
	problems    []string // Result.FieldProblems
	code        int      // the status error's code; 0: success
	reason      status.Reason
	message     string
}{
	// JSON patch (RFC 6902) and Kubernetes' answers to a bad one.
	{name: "json add", contentType: JSONPatchType, body: `[{"op":"add","path":"/data/j","value":"1"}]`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"v","l":["p","q"],"j":"1"}}`},
	{name: "json with charset", contentType: JSONPatchType + "; charset=utf-8", body: `[{"op":"remove","path":"/data"}]`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]}}`},
	{name: "json test then replace", contentType: JSONPatchType,
		body: `[{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"replace","path":"/data/k","value":"w"}]`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"w","l":["p","q"]}}`},
	{name: "json negative index counts from the end, as in Kubernetes", contentType: JSONPatchType,
		body: `[{"op":"remove","path":"/data/l/-1"}]`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"v","l":["p"]}}`},
	{name: "json test fails", contentType: JSONPatchType, body: `[{"op":"test","path":"/data/k","value":"no"}]`,
		code: 422, reason: status.ReasonInvalid, message: status.GenericInvalidMessage},
	{name: "json path missing", contentType: JSONPatchType, body: `[{"op":"add","path":"/spec/x","value":1}]`,
		code: 422, reason: status.ReasonInvalid, message: status.GenericInvalidMessage},
	{name: "json parent path not created", contentType: JSONPatchType, body: `[{"op":"add","path":"/a/b/c","value":1}]`,
		code: 422, reason: status.ReasonInvalid, message: status.GenericInvalidMessage},
	{name: "json unknown op fails when applied", contentType: JSONPatchType, body: `[{"op":"frob","path":"/a"}]`,
		code: 422, reason: status.ReasonInvalid, message: status.GenericInvalidMessage},
	{name: "json not a list", contentType: JSONPatchType, body: `{"op":"add"}`,
		code: 400, reason: status.ReasonBadRequest, message: "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
	{name: "json not a list, checked", contentType: JSONPatchType, body: `{"op":"add"}`, opts: Options{CheckFields: true},
		code: 400, reason: status.ReasonBadRequest,
		message: "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp"},
	{name: "json not JSON", contentType: JSONPatchType, body: `[{`,
		code: 400, reason: status.ReasonBadRequest, message: "unexpected end of JSON input"},
	{name: "json not JSON, checked", contentType: JSONPatchType, body: `[{`, opts: Options{CheckFields: true},
		code: 400, reason: status.ReasonBadRequest, message: "error decoding patch: unexpected end of JSON input"},
	{name: "json too deep", contentType: JSONPatchType, body: deep(10001),
		code: 400, reason: status.ReasonBadRequest, message: "invalid character '[' exceeded max depth"},
	{name: "json too deep, checked", contentType: JSONPatchType, body: deep(10001), opts: Options{CheckFields: true},
		code: 400, reason: status.ReasonBadRequest, message: "error decoding patch: invalid character '[' exceeded max depth"},
	{name: "json unknown field reported", contentType: JSONPatchType, opts: Options{CheckFields: true},
		body:     `[{"op":"add","path":"/data/j","value":"1","extra":1}]`,
		want:     `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"v","l":["p","q"],"j":"1"}}`,
		problems: []string{`json patch unknown field "[0].extra"`}},
	{name: "json at the operation limit", contentType: JSONPatchType, body: ops(3), opts: Options{MaxOperations: 3}, want: cmDoc},
	{name: "json over the operation limit", contentType: JSONPatchType, body: ops(4), opts: Options{MaxOperations: 3},
		code: 413, reason: status.ReasonRequestEntityTooLarge,
		message: "Request entity too large: The allowed maximum operations in a JSON patch is 3, got 4"},
	{name: "json over Kubernetes' operation limit", contentType: JSONPatchType, body: ops(10001),
		code: 413, reason: status.ReasonRequestEntityTooLarge,
		message: "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"},
	{name: "json operation count before the operations", contentType: JSONPatchType,
		body: "[" + strings.Repeat(`{"op":"frob"},`, 4) + `{"op":"frob"}]`, opts: Options{MaxOperations: 3},
		code: 413, reason: status.ReasonRequestEntityTooLarge,
		message: "Request entity too large: The allowed maximum operations in a JSON patch is 3, got 5"},
	{name: "json copies over the copy limit", contentType: JSONPatchType, opts: Options{MaxCopyBytes: 1 << 10},
		body: `[{"op":"add","path":"/a","value":["xxxxxxxxxxxxxxxx"]}` +
			strings.Repeat(`,{"op":"copy","from":"/a","path":"/a/-"}`, 40) + `]`,
		code: 422, reason: status.ReasonInvalid, message: status.GenericInvalidMessage},

	// Merge patch (RFC 7386).
	{name: "merge", contentType: MergePatchType, body: `{"metadata":{"labels":{"x":null,"y":"2"}},"data":{"l":null}}`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"y":"2"},"finalizers":["a"]},"data":{"k":"v"}}`},
	{name: "merge replaces lists", contentType: MergePatchType, body: `{"metadata":{"finalizers":["b"]}}`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["b"]},"data":{"k":"v","l":["p","q"]}}`},
	{name: "merge keeps large integers", contentType: MergePatchType, body: `{"n":12345678901234567890123}`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"v","l":["p","q"]},"n":12345678901234567890123}`},
	{name: "merge with a list replaces the document", contentType: MergePatchType, body: `[1,null]`, want: `[1,null]`},
	{name: "merge null", contentType: MergePatchType, body: `null`,
		code: 400, reason: status.ReasonBadRequest, message: "Invalid JSON Patch"},
	{name: "merge scalar", contentType: MergePatchType, body: ` "x"`,
		code: 400, reason: status.ReasonBadRequest, message: "Invalid JSON Patch"},
	{name: "merge empty", contentType: MergePatchType, body: ``,
		code: 400, reason: status.ReasonBadRequest, message: "Invalid JSON Patch"},
	{name: "merge not JSON", contentType: MergePatchType, body: `{`,
		code: 400, reason: status.ReasonBadRequest, message: "Invalid JSON Patch"},
	{name: "merge not JSON, checked", contentType: MergePatchType, body: `{`, opts: Options{CheckFields: true},
		code: 400, reason: status.ReasonBadRequest, message: "error decoding patch: unexpected end of JSON input"},
	{name: "merge too deep", contentType: MergePatchType, body: deepObject(10001),
		code: 400, reason: status.ReasonBadRequest, message: "Invalid JSON Patch"},
	{name: "merge too deep, checked", contentType: MergePatchType, body: deepObject(10001), opts: Options{CheckFields: true},
		code: 400, reason: status.ReasonBadRequest, message: "error decoding patch: invalid character '{' exceeded max depth"},
	{name: "merge duplicate field reported", contentType: MergePatchType, body: `{"data":{"k":"1","k":"2"}}`,
		opts:     Options{CheckFields: true},
		want:     `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"2","l":["p","q"]}}`,
		problems: []string{`duplicate field "data.k"`}},

	// Strategic merge patch, only for types with a Schema.
	{name: "strategic", contentType: StrategicMergePatchType, opts: Options{Schema: schema},
		body: `{"metadata":{"finalizers":["b"],"labels":{"y":"2"}}}`,
		want: `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1","y":"2"},"finalizers":["b","a"]},"data":{"k":"v","l":["p","q"]}}`},
	{name: "strategic duplicate field reported", contentType: StrategicMergePatchType,
		opts: Options{Schema: schema, CheckFields: true}, body: `{"data":{"k":"1","k":"2"}}`,
		want:     `{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"7","labels":{"x":"1"},"finalizers":["a"]},"data":{"k":"2","l":["p","q"]}}`,
		problems: []string{`duplicate field "data.k"`}},
	{name: "strategic not an object", contentType: StrategicMergePatchType, opts: Options{Schema: schema}, body: `[1]`,
		code: 400, reason: status.ReasonBadRequest, message: "json: cannot unmarshal array into Go value of type map[string]interface {}"},
	{name: "strategic too deep", contentType: StrategicMergePatchType, opts: Options{Schema: schema}, body: deepObject(10001),
		code: 400, reason: status.ReasonBadRequest, message: "invalid character '{' exceeded max depth"},
	{name: "strategic bad directive", contentType: StrategicMergePatchType, opts: Options{Schema: schema},
		body: `{"data":{"$patch":"frob"}}`,
		code: 400, reason: status.ReasonBadRequest, message: "patch: malformed: unknown $patch directive frob in an object"},
	{name: "strategic without a schema", contentType: StrategicMergePatchType, body: `{}`,
		code: 415, reason: status.ReasonUnsupportedMediaType,
		message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json"},
	{name: "strategic without a schema, apply elsewhere", contentType: StrategicMergePatchType, body: `{}`,
		opts: Options{OtherMediaTypes: []string{"application/apply-patch+yaml"}},
		code: 415, reason: status.ReasonUnsupportedMediaType,
		message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
	{name: "unknown media type", contentType: "application/json", body: `{}`, opts: Options{Schema: schema},
		code: 415, reason: status.ReasonUnsupportedMediaType,
		message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json"},
	{name: "media types compare exactly", contentType: "Application/Merge-Patch+JSON", body: `{}`,
		code: 415, reason: status.ReasonUnsupportedMediaType,
		message: "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json"},
}

func TestApply(t *testing.T) {
	for _, tt := range applyTests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Apply([]byte(cmDoc), []byte(tt.body), tt.contentType, tt.opts)
			if tt.code != 0 {
				var se *status.Error
				if !errors.As(err, &se) {
					t.Fatalf("Apply(%.60s, %q) = %s, err %v; want a status error %d", tt.body, tt.contentType, res.Doc, err, tt.code)
				}
				if got := se.Status; int(got.Code) != tt.code || got.Reason != tt.reason || got.Message != tt.message {
					t.Errorf("Apply(%.60s, %q) = %d %s %q; want %d %s %q",
						tt.body, tt.contentType, got.Code, got.Reason, got.Message, tt.code, tt.reason, tt.message)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%.60s, %q) = err %v; want %s", tt.body, tt.contentType, err, tt.want)
			}
			if !sameJSON(t, res.Doc, []byte(tt.want)) {
				t.Errorf("Apply(%.60s, %q) = %s; want %s", tt.body, tt.contentType, res.Doc, tt.want)
			}
			if diff := cmp.Diff(tt.problems, res.FieldProblems); diff != "" {
				t.Errorf("Apply(%.60s, %q) field problems (-want +got):\n%s", tt.body, tt.contentType, diff)
			}
		})
	}
}

// The 422 for a JSON patch that does not apply carries the library's error
// as its cause, for logs and for callers that want the reason.
func TestApplyKeepsTheCause(t *testing.T) {
	_, err := Apply([]byte(cmDoc), []byte(`[{"op":"test","path":"/data/k","value":"no"}]`), JSONPatchType, Options{})
	if !errors.Is(err, jsonpatch.ErrTestFailed) {
		t.Errorf("failed test: err %v does not wrap jsonpatch.ErrTestFailed", err)
	}
	body := `[{"op":"add","path":"/a","value":["xxxxxxxxxxxxxxxx"]}` +
		strings.Repeat(`,{"op":"copy","from":"/a","path":"/a/-"}`, 40) + `]`
	_, err = Apply([]byte(`{}`), []byte(body), JSONPatchType, Options{MaxCopyBytes: 1 << 10})
	var copyErr *jsonpatch.AccumulatedCopySizeError
	if !errors.As(err, &copyErr) {
		t.Errorf("doubling copies: err %v does not wrap an AccumulatedCopySizeError", err)
	}
}
