package negotiation_test

import (
	"bytes"
	"fmt"

	"github.com/apisem/apisem/negotiation"
)

// Note is decoded without reflection when its body is the plain
// {"text":"..."} it usually is.
type Note struct {
	Text string `json:"text"`
}

// UnmarshalJSONFast takes exactly {"text":"<no escapes>"} and declines
// everything else, which Decode then decodes as it decodes any type.
func (n *Note) UnmarshalJSONFast(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, []byte(`{"text":"`))
	if !ok {
		return false
	}
	text, ok := bytes.CutSuffix(rest, []byte(`"}`))
	if !ok || bytes.ContainsAny(text, "\"\\") {
		return false
	}
	n.Text = string(text)
	return true
}

// A type with a fast decoder of its common bodies (FastUnmarshaler)
// decodes them without reflection; the others, and their errors, are
// the reflective decoder's.
func ExampleFastUnmarshaler() {
	opts := negotiation.DecodeOptions{Kind: "Note", Version: "v1", FieldValidation: negotiation.FieldValidationStrict}
	for _, body := range []string{`{"text":"hi"}`, `{"text":"a \"quote\""}`, `{"text":"x","color":"red"}`} {
		var n Note
		_, err := negotiation.Decode([]byte(body), negotiation.JSON, &n, opts)
		fmt.Printf("%q %v\n", n.Text, err)
	}
	// Output:
	// "hi" <nil>
	// "a \"quote\"" <nil>
	// "x" Note in version "v1" cannot be handled as a Note: strict decoding error: unknown field "color"
}
