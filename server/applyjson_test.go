package server

import (
	"reflect"
	"strings"
	"testing"
)

// checkJSONApplyConfig fails t if jsonApplyConfig reads body and the YAML
// reading, strict or not, reads it otherwise or not at all.
func checkJSONApplyConfig(t *testing.T, body []byte) (fast bool) {
	t.Helper()
	got, ok := jsonApplyConfig(body)
	if !ok {
		return false
	}
	for _, strict := range []bool{true, false} {
		want, _, strictErr, err := yamlApplyConfig(body, strict)
		if err != nil || strictErr != nil {
			t.Fatalf("%q: read as JSON, YAML (strict %v): %v %v", body, strict, err, strictErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: read as JSON\n%#v\nYAML (strict %v)\n%#v", body, got, strict, want)
		}
	}
	if _, j, _, _ := yamlApplyConfig(body, false); string(applyConfigJSON(body)) != string(j) {
		t.Fatalf("%q: applyConfigJSON %s, YAML's %s", body, applyConfigJSON(body), j)
	}
	return true
}

var applyJSONCases = []struct {
	body string
	fast bool
}{
	{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"},"data":{"a":"b"}}`, true},
	{"{\n  \"spec\": {\n\t\"replicas\": 1,\n    \"tags\": [\"a\", \"b\"]\n  }\n}\n", true},
	{`{"n":[1.0,1e2,-0,-0.0,0.5,1e-7,1e20,1e21,9223372036854775807,9223372036854775808,-9223372036854775808,12345678901234567890,123456789012345678901234]}`, true},
	{`{"n":[-9223372036854775810,1152921504606846976.0,1.152921504606847e18,9007199254740993.0,-1e15,4.5e15]}`, true},
	{`{"s":["null","~","true","yes","<<","","\u003c\u00e9\n\t\"\\\b\f\r"],"null":null,"~":true,"<<":{"a":1},"":0}`, true},
	{`{"a":{"b":{"c":{"d":[[[{}]]]}}}}`, true},
	{`{"n":1e400}`, false},                              // the YAML reading keeps the text
	{`{"n":1e-400}`, true},                              // underflows alike
	{`{"s":"\/"}`, false},                               // YAML has no \/
	{`{"s":"\ud83d\ude00"}`, false},                     // nor surrogates
	{`{"s":"é"}`, false},                                // not ASCII
	{"{\"s\":\"\x7f\"}", false},                         // nor printable
	{`{"a":1,"a":2}`, false},                            // duplicates: the YAML warning
	{"{\"a\"\n:1}", false},                              // a key off its colon's line
	{"\t{\"a\":1}", false},                              // a tab before
	{"{\"a\":1}\n\t", false},                            // and after
	{`{"a":1} {}`, false},                               // two values
	{`["a"]`, false},                                    // not an object
	{`null`, false},                                     //
	{`{"a":1`, false},                                   // cut
	{`{"` + strings.Repeat("k", 1100) + `":1}`, false},  // a key past YAML's 1024
	{`{"a":"` + strings.Repeat("v", 1100) + `"}`, true}, // a long value is no key
	{strings.Repeat(`{"a":`, 1100) + "1" + strings.Repeat("}", 1100), false},
}

// jsonApplyConfig reads JSON bodies as the YAML reading does, and leaves
// it those the two may read otherwise.
func TestJSONApplyConfig(t *testing.T) {
	for _, tc := range applyJSONCases {
		if fast := checkJSONApplyConfig(t, []byte(tc.body)); fast != tc.fast {
			t.Errorf("%.80q: read as JSON %v, want %v", tc.body, fast, tc.fast)
		}
	}
}

func FuzzJSONApplyConfig(f *testing.F) {
	for _, tc := range applyJSONCases {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkJSONApplyConfig(t, body)
	})
}
