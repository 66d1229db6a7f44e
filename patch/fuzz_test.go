package patch

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/apisem/apisem/status"
)

var fuzzMediaTypes = []string{JSONPatchType, MergePatchType, StrategicMergePatchType, "text/plain"}

// FuzzApply feeds untrusted patch bodies (and documents) to Apply: it must
// never panic, must answer every failure with a status error of a code
// Kubernetes uses for a bad patch, and must return JSON on success.
func FuzzApply(f *testing.F) {
	for _, tt := range applyTests {
		if len(tt.body) > 1<<12 {
			continue // the 10,000-deep and 10,000-operation rows
		}
		for i, mt := range fuzzMediaTypes {
			if mt == tt.contentType {
				f.Add([]byte(cmDoc), []byte(tt.body), uint8(i), tt.opts.CheckFields)
			}
		}
	}
	for _, tt := range strategicTests {
		f.Add([]byte(tt.doc), []byte(tt.patch), uint8(2), true)
	}
	f.Fuzz(func(t *testing.T, doc, body []byte, mediaType uint8, check bool) {
		opts := Options{Schema: schema, CheckFields: check, MaxOperations: 64, MaxCopyBytes: 1 << 16}
		res, err := Apply(doc, body, fuzzMediaTypes[int(mediaType)%len(fuzzMediaTypes)], opts)
		if err != nil {
			var se *status.Error
			if !errors.As(err, &se) {
				t.Fatalf("Apply(%q, %q): error %v is not a status error", doc, body, err)
			}
			switch se.Code() {
			case 400, 413, 415, 422:
			case 500:
				// Only for a document that is not JSON, which a server
				// never passes.
				if json.Valid(doc) {
					t.Fatalf("Apply(%q, %q): 500 %v for a JSON document", doc, body, err)
				}
			default:
				t.Fatalf("Apply(%q, %q): unexpected status %d %v", doc, body, se.Code(), err)
			}
			return
		}
		if json.Valid(doc) && !json.Valid(res.Doc) {
			t.Fatalf("Apply(%q, %q) = %q, not JSON", doc, body, res.Doc)
		}
	})
}
