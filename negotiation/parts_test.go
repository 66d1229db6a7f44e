package negotiation

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sample returns n bytes of a kind of content.
func sample(kind string, n int, rnd *rand.Rand) []byte {
	b := make([]byte, n)
	for i := range b {
		switch kind {
		case "random":
			b[i] = byte(rnd.Uint32())
		case "run":
			b[i] = 'x'
		case "text":
			b[i] = "abcab {}\":,0123"[rnd.IntN(15)]
		}
	}
	return b
}

func TestWriteParts(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	big := sample("text", 200<<10, rnd)
	item := []byte(`{"metadata":{"name":"x"},"data":{"k":"` + strings.Repeat("v", 256) + `"}}`)
	var many []Part
	for i := range 1000 {
		p := Part{Plain: item}
		if i > 0 {
			p.Sep = []byte{','}
		}
		many = append(many, p)
	}
	tests := []struct {
		name  string
		parts []Part
		gzip  bool // the request accepts gzip
	}{
		{"empty", nil, true},
		{"small", []Part{{Plain: []byte("{}")}, {Sep: []byte(","), Plain: []byte("[]\n")}}, true},
		{"big plain part", []Part{{Plain: []byte("[")}, {Plain: big}, {Plain: []byte("]")}}, true},
		{"many cached", many, true},
		{"many cached, no gzip", many, false},
		{"big, no gzip", []Part{{Plain: big}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []byte
			for _, p := range tt.parts {
				want = append(append(want, p.Sep...), p.Plain...)
			}
			r := httptest.NewRequest("GET", "/", nil)
			if tt.gzip {
				r.Header.Set("Accept-Encoding", "gzip")
			}
			w := httptest.NewRecorder()
			if err := WriteParts(w, r, Result{MediaType: JSON}, http.StatusOK, tt.parts); err != nil {
				t.Fatal(err)
			}
			body := w.Body.Bytes()
			// Byte for byte what WriteResponse writes for the joined body,
			// compressed or not.
			ref := httptest.NewRecorder()
			if err := WriteResponse(ref, r, Result{MediaType: JSON}, http.StatusOK, want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, ref.Body.Bytes()) {
				t.Errorf("%d bytes written differ from WriteResponse's %d", len(body), ref.Body.Len())
			}
			if diff := cmp.Diff(ref.Header(), w.Header()); diff != "" {
				t.Errorf("headers differ from WriteResponse's (-want +got):\n%s", diff)
			}
			gz := w.Header().Get("Content-Encoding") == "gzip"
			if wantGz := tt.gzip && len(want) > GzipThreshold; gz != wantGz {
				t.Fatalf("gzip %v, want %v", gz, wantGz)
			}
			if gz {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil { // checks CRC and size
					t.Fatal(err)
				}
			} else if cl := w.Header().Get("Content-Length"); cl != itoa(len(want)) {
				t.Errorf("Content-Length %s, want %d", cl, len(want))
			}
			if !bytes.Equal(body, want) {
				t.Errorf("body of %d bytes differs from the %d bytes of the parts", len(body), len(want))
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
