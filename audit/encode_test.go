package audit

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

// fullEvent has every field set, with the characters encoding/json
// escapes.
func fullEvent(s string) *Event {
	return &Event{Kind: "Event", APIVersion: APIVersion, Level: LevelRequestResponse, AuditID: s, Stage: StageResponseComplete,
		RequestURI: "/api/v1/x?a=1&b=<" + s + ">", Verb: s,
		User:             UserInfo{Username: s, UID: "u", Groups: []string{s, ""}, Extra: map[string][]string{s: {s}, "b": nil, "a": {}}},
		ImpersonatedUser: &UserInfo{Username: s},
		SourceIPs:        []string{"10.0.0.1", s}, UserAgent: s,
		ObjectRef: &ObjectReference{Resource: s, Namespace: "ns", Name: s, UID: "uid", APIGroup: "g", APIVersion: "v1",
			ResourceVersion: "5", Subresource: s},
		ResponseStatus: &status.Status{Status: "Failure", Message: s, Reason: status.Reason(s), Code: 422,
			Details: &status.Details{Name: s, Group: "g", Kind: "k", UID: "u", RetryAfterSeconds: 3,
				Causes: []status.Cause{{Type: "FieldValueInvalid", Message: s, Field: s}, {}}}},
		RequestObject:            json.RawMessage(`{"a":"<&>\u2028","b":[1,2.5e3,null,true]}`),
		ResponseObject:           json.RawMessage(`{"s":"` + "\u2029" + `"}`),
		RequestReceivedTimestamp: meta.MicroTime{Time: time.Date(2026, 11, 27, 10, 0, 0, 123456789, time.FixedZone("x", 3600))},
		StageTimestamp:           meta.MicroTime{Time: time.Date(2026, 11, 27, 10, 0, 1, 0, time.UTC)},
		Annotations:              map[string]string{s: s, "z": "", "a": "1"},
	}
}

func TestAppendEventMatchesEncodingJSON(t *testing.T) {
	for _, ev := range []*Event{
		{},
		{ResponseStatus: &status.Status{}},
		{ResponseStatus: &status.Status{Kind: "Status", Code: 200}},
		{ObjectRef: &ObjectReference{}, User: UserInfo{Extra: map[string][]string{}}},
		fullEvent("plain"),
		fullEvent("quotes \" and \\ and \n\r\t\b\f\x00\x1f\x7f"),
		fullEvent("html <script>&amp;</script>"),
		fullEvent("unicode é 日本 \u2028 \u2029 \U0001F600"),
		fullEvent("invalid \xff\xfe utf-8 \xe2\x80"),
	} {
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, ev); string(got) != string(want) {
			t.Errorf("appendEvent =\n%s\nencoding/json:\n%s", got, want)
		}
	}
}

// FuzzAppendEvent: appendEvent writes what encoding/json writes, for any
// strings.
func FuzzAppendEvent(f *testing.F) {
	for _, s := range []string{"", "a", "<&>", "\u2028", "\xff", "\"\\\n"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, s, raw string) {
		ev := fullEvent(s)
		if json.Valid([]byte(raw)) {
			ev.RequestObject = compact(raw)
		}
		want, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEvent(nil, ev); string(got) != string(want) {
			t.Fatalf("appendEvent =\n%s\nencoding/json:\n%s", got, want)
		}
	})
}

// compact is s compacted as the filter compacts bodies: no HTML
// escaping, which appendRaw adds.
func compact(s string) json.RawMessage {
	var b bytes.Buffer
	_ = json.Compact(&b, []byte(s))
	return b.Bytes()
}
