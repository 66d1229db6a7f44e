package builtin

import (
	"testing"

	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// TestRecordedApplyUnknownFields replays testdata/reference/
// applyfields.json: a field a built-in type lacks fails a server-side
// apply with structured-merge-diff's 500 whatever fieldValidation says,
// where a POST or PUT drops it, warns, or answers 400; a key given twice
// is a warning, or a 400 under Strict. A success stores what it
// answers, a failure nothing.
func TestRecordedApplyUnknownFields(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, url := servertest.New(t, server.Options{Resources: res})
	for _, e := range recorded.Load(t, "testdata/reference/applyfields.json") {
		recorded.Replay(t, url, e)
	}
}
