package patch

import (
	"encoding/json"
	"errors"
	"testing"
)

// checkResult fails unless err wraps one of the package's sentinels or out
// is one valid JSON value.
func checkResult(t *testing.T, out []byte, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrNotApplicable) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		return
	}
	if !json.Valid(out) {
		t.Fatalf("result is not JSON: %q", out)
	}
}

func FuzzMergePatch(f *testing.F) {
	for _, tt := range mergeTests {
		f.Add([]byte(tt.doc), []byte(tt.patch))
	}
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		out, err := MergePatch(doc, p)
		checkResult(t, out, err)
		if err != nil {
			return
		}
		// RFC 7386 patches are idempotent.
		again, err := MergePatch(out, p)
		if err != nil || !sameJSON(t, again, out) {
			t.Fatalf("second application of %s to %s: %s, %v; want %s", p, doc, again, err, out)
		}
	})
}

func FuzzJSONPatch(f *testing.F) {
	for _, tt := range jsonPatchTests {
		f.Add([]byte(tt.doc), []byte(tt.patch))
	}
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		out, err := JSONPatch(doc, p, Limits{MaxCopyBytes: 1 << 16})
		checkResult(t, out, err)
	})
}

func FuzzStrategicMergePatch(f *testing.F) {
	for _, tt := range strategicTests {
		f.Add([]byte(tt.doc), []byte(tt.patch))
	}
	f.Fuzz(func(t *testing.T, doc, p []byte) {
		out, err := StrategicMergePatch(doc, p, schema)
		checkResult(t, out, err)
	})
}
