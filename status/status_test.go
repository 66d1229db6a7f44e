package status

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestGoldenJSON renders every constructor and compares the bytes with the
// body a Kubernetes API server writes.
func TestGoldenJSON(t *testing.T) {
	pods := GroupResource{Resource: "pods"}
	deploys := GroupResource{Group: "apps", Resource: "deployments"}
	listOpts := GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}
	tests := []struct {
		name string
		err  *Error
		code int
		want string
	}{
		{"404 core", NewNotFound(pods, "foo"), 404,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"foo\" not found","reason":"NotFound","details":{"name":"foo","kind":"pods"},"code":404}`},
		{"404 grouped", NewNotFound(deploys, "x"), 404,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"x\" not found","reason":"NotFound","details":{"name":"x","group":"apps","kind":"deployments"},"code":404}`},
		{"400 continue with rv", NewBadRequest("specifying resource version is not allowed when using continue"), 400,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"specifying resource version is not allowed when using continue","reason":"BadRequest","code":400}`},
		{"422 list options", NewInvalid(listOpts, "", Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")), 422,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"ListOptions","causes":[{"reason":"FieldValueForbidden","message":"Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided","field":"resourceVersionMatch"}]},"code":422}`},
		{"422 dryRun unsupported", NewInvalid(GroupKind{Group: "meta.k8s.io", Kind: "CreateOptions"}, "", NotSupported("dryRun", []string{"foo"}, "All")), 422,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: [\"foo\"]: supported values: \"All\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"CreateOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: [\"foo\"]: supported values: \"All\"","field":"dryRun"}]},"code":422}`},
		{"409 already exists", NewAlreadyExists(GroupResource{Resource: "configmaps"}, "a"), 409,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"a\" already exists","reason":"AlreadyExists","details":{"name":"a","kind":"configmaps"},"code":409}`},
		{"409 already exists, terminating", NewAlreadyExistsTerminating(GroupResource{Resource: "configmaps"}, "a"), 409,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"object is being deleted: configmaps \"a\" already exists","reason":"AlreadyExists","details":{"name":"a","kind":"configmaps"},"code":409}`},
		{"409 generateName exhausted", NewGenerateNameConflict(GroupResource{Resource: "configmaps"}, "a-x7k2p", 1), 409,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"a-x7k2p\" already exists, the server was not able to generate a unique name for the object","reason":"AlreadyExists","details":{"name":"a-x7k2p","kind":"configmaps","retryAfterSeconds":1},"code":409}`},
		{"409 conflict", NewConflict(deploys, "x", OptimisticLockMessage), 409,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on deployments.apps \"x\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"x","group":"apps","kind":"deployments"},"code":409}`},
		{"410", NewExpired("too old resource version: 5 (1000)"), 410,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 5 (1000)","reason":"Expired","code":410}`},
		{"410 with continue", NewExpired("The provided continue parameter is too old.").WithContinue("tok"), 410,
			`{"kind":"Status","apiVersion":"v1","metadata":{"continue":"tok"},"status":"Failure","message":"The provided continue parameter is too old.","reason":"Expired","code":410}`},
		{"504 timeout without retry: details present but empty", NewTimeout("x", 0), 504,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: x","reason":"Timeout","details":{},"code":504}`},
		{"504 too large resource version", NewTooLargeResourceVersion(12, 10, 1), 504,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 12, current: 10","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}`},
		{"429", NewTooManyRequests("storage is (re)initializing", 1), 429,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`},
		{"406", NewNotAcceptableMediaTypes("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"), 406,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"NotAcceptable","code":406}`},
		{"415", NewUnsupportedBodyMediaType("application/json", "application/yaml", "application/vnd.kubernetes.protobuf"), 415,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}`},
		{"413", NewRequestBodyTooLarge(3145728), 413,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}`},
		{"405", NewMethodNotSupported(GroupResource{Resource: "configmaps"}, "patch"), 405,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"patch is not supported on resources of kind \"configmaps\"","reason":"MethodNotAllowed","details":{"kind":"configmaps"},"code":405}`},
		{"500 internal", NewInternalError(errors.New("boom")), 500,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}`},
		{"503", NewServiceUnavailable("down"), 503,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"down","reason":"ServiceUnavailable","code":503}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(FromError(fmt.Errorf("wrapped: %w", tt.err)))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("JSON:\n got %s\nwant %s", got, tt.want)
			}
			if c := CodeForError(tt.err); c != tt.code {
				t.Errorf("CodeForError = %d; want %d", c, tt.code)
			}
			if !errors.Is(fmt.Errorf("x: %w", tt.err), tt.err.Status.Reason) {
				t.Errorf("errors.Is(wrapped, %q) = false", tt.err.Status.Reason)
			}
			if tt.err.Error() != tt.err.Status.Message {
				t.Errorf("Error() = %q; want the message", tt.err.Error())
			}
		})
	}
}

func TestInvalidAggregatesAndDeduplicates(t *testing.T) {
	gk := GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}
	e1 := Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided")
	e2 := NotSupported("resourceVersionMatch", "foo", "Exact", "NotOlderThan", "")
	err := NewInvalid(gk, "", e1, e2, e1)
	want := `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""]`
	if err.Error() != want {
		t.Errorf("message:\n got %s\nwant %s", err.Error(), want)
	}
	if n := len(err.Status.Details.Causes); n != 3 {
		t.Errorf("causes = %d; want 3 (causes are not deduplicated, the message is)", n)
	}
}

func TestFieldErrorBody(t *testing.T) {
	tests := []struct {
		in   FieldError
		want string
	}{
		{Forbidden("f", "d"), "f: Forbidden: d"},
		{Required("f", ""), "f: Required value"},
		{Required("f", "d"), "f: Required value: d"},
		{InvalidValue("resourceVersion", "abc", `strconv.ParseUint: parsing "abc": invalid syntax`),
			`resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`},
		{InvalidValue("metadata.resourceVersion", int64(0), "must be specified for an update"),
			"metadata.resourceVersion: Invalid value: 0: must be specified for an update"},
		{InvalidValue("x", true, ""), "x: Invalid value: true"},
		{InvalidValue("x", map[string]int{"a": 1}, "d"), `x: Invalid value: {"a":1}: d`},
		{InvalidValue("x", nil, "d"), "x: Invalid value: null: d"},
		{NotSupported("fieldValidation", "strict", "", "Ignore", "Strict", "Warn"),
			`fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"`},
		{FieldError{Type: CauseTypeFieldValueTooLong, Field: "f", BadValue: "long", Detail: "may not be more than 128 bytes"},
			"f: Too long: may not be more than 128 bytes"},
	}
	for _, tt := range tests {
		if got := tt.in.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestClassification(t *testing.T) {
	foreign := errors.New("disk on fire")
	tests := []struct {
		name   string
		err    error
		is     func(error) bool
		reason Reason
		code   int
	}{
		{"nil", nil, func(err error) bool { return err == nil }, ReasonUnknown, 200},
		{"foreign error is an internal error", foreign, IsInternalError, ReasonInternalError, 500},
		{"zero Error is a 500", &Error{}, IsInternalError, ReasonInternalError, 500},
		{"not found", NewNotFound(GroupResource{Resource: "pods"}, "a"), IsNotFound, ReasonNotFound, 404},
		{"already exists", NewAlreadyExists(GroupResource{Resource: "pods"}, "a"), IsAlreadyExists, ReasonAlreadyExists, 409},
		{"conflict", NewConflict(GroupResource{Resource: "pods"}, "a", "x"), IsConflict, ReasonConflict, 409},
		{"invalid", NewInvalid(GroupKind{Kind: "Pod"}, "a", Required("spec", "")), IsInvalid, ReasonInvalid, 422},
		{"bad request", NewBadRequest("x"), IsBadRequest, ReasonBadRequest, 400},
		{"expired", NewExpired("x"), IsExpired, ReasonExpired, 410},
		{"gone counts as expired", &Error{Status: Status{Reason: ReasonGone, Code: 410}}, IsExpired, ReasonGone, 410},
		{"timeout", NewTimeout("x", 0), IsTimeout, ReasonTimeout, 504},
		{"too large rv", NewTooLargeResourceVersion(2, 1, 1), IsTooLargeResourceVersion, ReasonTimeout, 504},
		{"too many requests", NewTooManyRequests("x", 1), IsTooManyRequests, ReasonTooManyRequests, 429},
		{"not acceptable", NewNotAcceptable("x"), IsNotAcceptable, ReasonNotAcceptable, 406},
		{"unsupported media type", NewUnsupportedMediaType("x"), IsUnsupportedMediaType, ReasonUnsupportedMediaType, 415},
		{"too large entity", NewRequestEntityTooLarge("x"), IsRequestEntityTooLarge, ReasonRequestEntityTooLarge, 413},
		{"method not allowed", NewMethodNotSupported(GroupResource{Resource: "pods"}, "get"), IsMethodNotAllowed, ReasonMethodNotAllowed, 405},
		{"internal", NewInternalError(foreign), IsInternalError, ReasonInternalError, 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wrapped := tt.err
			if wrapped != nil {
				wrapped = fmt.Errorf("layer: %w", tt.err)
			}
			if !tt.is(wrapped) {
				t.Errorf("Is helper = false for %v", wrapped)
			}
			if r := ReasonForError(wrapped); r != tt.reason {
				t.Errorf("ReasonForError = %q; want %q", r, tt.reason)
			}
			if c := CodeForError(wrapped); c != tt.code {
				t.Errorf("CodeForError = %d; want %d", c, tt.code)
			}
		})
	}
	// A plain timeout is not a "too large resource version".
	if IsTooLargeResourceVersion(NewTimeout("x", 1)) {
		t.Error("IsTooLargeResourceVersion(plain timeout) = true")
	}
	if IsNotFound(NewConflict(GroupResource{}, "a", "x")) {
		t.Error("IsNotFound(conflict) = true")
	}
}

func TestUnwrapAndAs(t *testing.T) {
	cause := errors.New("root cause")
	err := fmt.Errorf("outer: %w", NewInternalError(cause))
	if !errors.Is(err, cause) {
		t.Error("errors.Is(err, cause) = false; NewInternalError must wrap its cause")
	}
	var se *Error
	if !errors.As(err, &se) || se.Code() != 500 {
		t.Fatalf("errors.As = %v, %v", se, err)
	}
	w := NewBadRequest("invalid continue token: x").Wrap(cause)
	if !errors.Is(w, cause) || !IsBadRequest(w) {
		t.Error("Wrap lost the cause or the reason")
	}
	if RetryAfterSeconds(fmt.Errorf("x: %w", NewTooLargeResourceVersion(2, 1, 1))) != 1 {
		t.Error("RetryAfterSeconds through wrap != 1")
	}
	if RetryAfterSeconds(cause) != 0 {
		t.Error("RetryAfterSeconds(foreign) != 0")
	}
}

func TestFromErrorForeign(t *testing.T) {
	got, _ := json.Marshal(FromError(errors.New("resourceVersion should not be set on objects to be created")))
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"resourceVersion should not be set on objects to be created","code":500}`
	if string(got) != want {
		t.Errorf("foreign error:\n got %s\nwant %s", got, want)
	}
	got, _ = json.Marshal(NewSuccess(&Details{Name: "a", Kind: "configmaps", UID: "u"}))
	want = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"a","kind":"configmaps","uid":"u"}}`
	if string(got) != want {
		t.Errorf("success:\n got %s\nwant %s", got, want)
	}
}

// TestWithContinueDoesNotMutate guards against a shared *Error being changed
// by a later WithContinue (errors are often package-level values).
func TestWithContinueDoesNotMutate(t *testing.T) {
	base := NewExpired("x")
	_ = base.WithContinue("tok")
	if base.Status.Metadata.Continue != "" {
		t.Error("WithContinue mutated its receiver")
	}
}

func BenchmarkNewNotFound(b *testing.B) {
	b.ReportAllocs()
	gr := GroupResource{Resource: "configmaps"}
	for b.Loop() {
		_ = NewNotFound(gr, "name")
	}
}

func BenchmarkMarshal(b *testing.B) {
	b.ReportAllocs()
	s := FromError(NewTooLargeResourceVersion(12, 10, 1))
	for b.Loop() {
		if _, err := json.Marshal(&s); err != nil {
			b.Fatal(err)
		}
	}
}

// NewForbidden's three message forms, as Kubernetes' errors.NewForbidden
// (k8s.io/apimachinery/pkg/api/errors) writes them.
func TestNewForbidden(t *testing.T) {
	cause := errors.New(`User "u" cannot get resource "configmaps" in API group "" in the namespace "ns"`)
	cm := GroupResource{Resource: "configmaps"}
	for _, tt := range []struct {
		gr   GroupResource
		name string
		want string
	}{
		{cm, "x", `configmaps "x" is forbidden: ` + cause.Error()},
		{cm, "", `configmaps is forbidden: ` + cause.Error()},
		{GroupResource{}, "", `forbidden: ` + cause.Error()},
	} {
		err := NewForbidden(tt.gr, tt.name, cause)
		if err.Error() != tt.want || err.Status.Code != 403 || !IsForbidden(err) || !errors.Is(err, cause) {
			t.Errorf("NewForbidden(%v, %q) = %d %q; want 403 %q", tt.gr, tt.name, err.Status.Code, err.Error(), tt.want)
		}
	}
}

func TestNewGenericInvalid(t *testing.T) {
	cause := errors.New("testing value /a failed: test failed")
	e := NewGenericInvalid(cause)
	b, err := json.Marshal(e.Status)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",` +
		`"message":"the server rejected our request due to an error in our request","reason":"Invalid","details":{},"code":422}`
	if string(b) != want {
		t.Errorf("NewGenericInvalid renders %s; want %s", b, want)
	}
	if !errors.Is(e, cause) || !errors.Is(e, ReasonInvalid) {
		t.Errorf("NewGenericInvalid(%v): Is(cause) %v, Is(ReasonInvalid) %v; want both", cause, errors.Is(e, cause), errors.Is(e, ReasonInvalid))
	}
}
