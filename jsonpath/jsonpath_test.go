package jsonpath

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// pod is a Pod as an unstructured object holds it.
const pod = `{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "labels": {"app": "web", "app.kubernetes.io/name": "shop"}},
  "spec": {"containers": [
    {"name": "app", "image": "shop:1", "ports": [{"containerPort": 8080}, {"containerPort": 9090}]},
    {"name": "sidecar", "image": "proxy:2"}
  ], "replicas": 3, "ratio": 0.5, "paused": false, "nothing": null, "empty": [], "nested": [[1, 2], [3]]},
  "status": {"conditions": [
    {"type": "Ready", "status": "True", "observedGeneration": 2},
    {"type": "Synced", "status": "False", "observedGeneration": 1}
  ]}
}`

func decode(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return intsOf(v)
}

// intsOf turns whole float64s into int64, as Kubernetes' unstructured
// decoding keeps integers.
func intsOf(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = intsOf(x)
		}
	case []any:
		for i, x := range v {
			v[i] = intsOf(x)
		}
	case float64:
		if v == float64(int64(v)) {
			return int64(v)
		}
	}
	return v
}

// The rows follow k8s.io/client-go/util/jsonpath's behaviour; the
// differential test in examples/interop checks the same on many more.
func TestExecute(t *testing.T) {
	tests := []struct {
		template string
		want     string // output, or the error with "error: " before it
		missing  bool   // AllowMissingKeys
	}{
		// Members and indexes.
		{template: "{.metadata.name}", want: "web"},
		{template: "kind is {.kind}.", want: "kind is Pod."},
		{template: "{.spec.replicas}", want: "3"},
		{template: "{.spec.ratio}", want: "0.5"},
		{template: "{.spec.paused}", want: "false"},
		{template: "{.spec.nothing}", want: "null"},
		{template: "{.spec.empty}", want: "[]"},
		{template: "{.metadata.labels}", want: `{"app":"web","app.kubernetes.io/name":"shop"}`},
		{template: `{.metadata.labels.app\.kubernetes\.io/name}`, want: "shop"},
		{template: "{.metadata.labels['app']}", want: "web"},
		// A quoted name is read as a dotted path, as in Kubernetes.
		{template: "{.metadata.labels['app.kubernetes.io/name']}", want: "error: kubernetes is not found"},
		{template: "{.metadata.labels['app.kubernetes.io/name']}", missing: true, want: ""},
		{template: "{.spec.containers[0].name}", want: "app"},
		{template: "{.spec.containers[-1].name}", want: "sidecar"},
		{template: "{.spec.containers[2].name}", want: "error: array index out of bounds: index 2, length 2"},
		{template: "{.spec.containers[1:].name}", want: "sidecar"},
		{template: "{.spec.containers[0:2:2].name}", want: "app"},
		{template: "{.spec.containers[0:0].name}", want: ""},
		{template: "{.spec.containers[0:1:0]}", want: "error: step must be > 0"},
		{template: "{.spec.containers[1:0]}", want: "error: starting index 1 is greater than ending index 0"},
		{template: "{.spec.empty[0]}", want: "error: array index out of bounds: index 0, length 0"},
		{template: "{.spec[0]}", want: "error: map[string]interface {} is not array or slice"},
		{template: "{.spec.nothing[0]}", want: ""},
		{template: "{.metadata.nope}", want: "error: nope is not found"},
		{template: "{.metadata.nope}", missing: true, want: ""},
		{template: "{.spec.containers.name}", missing: true, want: ""},
		// Wildcards, unions, recursive descent.
		{template: "{.spec.containers[*].name}", want: "app sidecar"},
		{template: "{.spec.containers.*.image}", want: "shop:1 proxy:2"},
		{template: "{.metadata.labels.*}", want: "web shop"},
		{template: "{.spec.containers[*].ports[*].containerPort}", want: "8080 9090"},
		{template: "{.spec.containers[1,0].name}", want: "sidecar app"},
		{template: "{.spec.containers[0]['name','image']}", want: "app shop:1"},
		{template: "{.spec.nested[*][0]}", want: "1 3"},
		{template: "{..containerPort}", want: "8080 9090"},
		{template: "{.status..type}", want: "Ready Synced"},
		{template: "{.metadata.name.*}", want: "119 101 98"},
		{template: "{.spec.nested..}", want: "[[1,2],[3]] [1,2] [3]"},
		// Filters.
		{template: `{.status.conditions[?(@.type=="Ready")].status}`, want: "True"},
		{template: `{.status.conditions[?(@.type == 'Synced')].status}`, want: "False"},
		{template: `{.status.conditions[?(@.observedGeneration>1)].type}`, want: "Ready"},
		{template: `{.status.conditions[?(@.observedGeneration<=1)].type}`, want: "Synced"},
		{template: `{.status.conditions[?(@.type!="Ready")].type}`, want: "Synced"},
		{template: `{.spec.containers[?(@.ports)].name}`, want: "app"},
		{template: `{.status.conditions[?(@.type==1)].type}`, want: "error: incompatible types for comparison"},
		{template: `{.status.conditions[?(@.observedGeneration==1.0)].type}`, want: "error: incompatible types for comparison"},
		{template: `{.status.conditions[?(@.x=="a")].type}`, missing: true, want: ""},
		{template: `{.status.conditions[?(@.type=="Ready")].status}`, want: "True"},
		{template: `{.spec[?(@.a)]}`, want: "error: map[containers:[map[image:shop:1 name:app ports:[map[containerPort:8080] map[containerPort:9090]]] map[image:proxy:2 name:sidecar]] empty:[] nested:[[1 2] [3]] nothing:<nil> paused:false ratio:0.5 replicas:3] is not array or slice and cannot be filtered"},
		// Range.
		{template: `{range .spec.containers[*]}{.name}={.image};{end}`, want: "app=shop:1;sidecar=proxy:2;"},
		{template: `{range .spec.containers[*]}[{range .ports[*]}{.containerPort}{end}]{end}`, missing: true, want: "[80809090][]"},
		{template: `{range .spec.containers[*]}[{range .ports[*]}{.containerPort}{end}]{end}`, want: "error: ports is not found"},
		{template: `{range .spec.empty[*]}{.name}{end}done`, missing: true, want: "done"},
		// The pass over nothing that finds the end of the range looks up
		// members of nothing.
		{template: `{range .spec.empty[*]}{.name}{end}done`, want: "error: name is not found"},
		{template: `{end}`, want: "error: not in range, nothing to end"},
		// Literals and identifiers.
		{template: `{"a\tb"}{'c'}`, want: "a\tbc"},
		{template: `{.kind 1 2.5 true}`, want: "true"},
		{template: `{nope}`, want: "error: unrecognized identifier nope"},
		{template: `{}`, want: `{"apiVersion":"v1","kind":"Pod","metadata":{"labels":{"app":"web","app.kubernetes.io/name":"shop"},"name":"web"},"spec":{"containers":[{"image":"shop:1","name":"app","ports":[{"containerPort":8080},{"containerPort":9090}]},{"image":"proxy:2","name":"sidecar"}],"empty":[],"nested":[[1,2],[3]],"nothing":null,"paused":false,"ratio":0.5,"replicas":3},"status":{"conditions":[{"observedGeneration":2,"status":"True","type":"Ready"},{"observedGeneration":1,"status":"False","type":"Synced"}]}}`},
	}
	data := decode(t, pod)
	for _, tt := range tests {
		tmpl, err := Parse(tt.template)
		if err != nil {
			t.Errorf("Parse(%q) = %v", tt.template, err)
			continue
		}
		var b strings.Builder
		got := ""
		if err := tmpl.Execute(&b, data, Options{AllowMissingKeys: tt.missing}); err != nil {
			got = "error: " + err.Error()
		} else {
			got = b.String()
		}
		if got != tt.want {
			t.Errorf("Execute(%q, missing=%v) = %q; want %q", tt.template, tt.missing, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ template, want string }{
		{"{.a", "unclosed action"},
		{"{.a\n}", "unclosed action"},
		{"{.a\t}", "unrecognized character in action: U+0009"},
		{"{....a}", "invalid multiple recursive descent"},
		{"{..*}", "unrecognized character in action: U+002A '*'"},
		{"{.a[0}", "unterminated array"},
		{"{.a[x]}", "invalid array index x"},
		{`{.a["x"]}`, `invalid array index "x"`},
		{"{.a[-]}", "array index - is not a number"},
		{"{.a[1:2:3:4]}", "invalid array index 1:2:3:4"},
		{"{.a[99999999999999999999]}", "array index 99999999999999999999 is not a number"},
		{"{.a[?(@.b==1}", "unterminated filter"},
		{"{.a[?(@.b==1)}", "unclosed array expect ]"},
		{`{"abc}`, "unterminated quoted string"},
		{`{"a\qb"}`, `unquote string "a\qb" error invalid syntax`},
		{"{1.2.3}", "cannot parse number 1.2.3"},
		{"{-}", "cannot parse number -"},
		{"{.a{}", "unrecognized character in action: U+007B '{'"},
		{"{.a[0,x]}", "invalid array index x"},
		{"{.a['b{']}", "unrecognized character in action: U+007B '{'"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.template)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v; want %q", tt.template, err, tt.want)
		}
	}
}

// TestParse pins the quirks of Kubernetes' parser that evaluation shows.
func TestParse(t *testing.T) {
	data := decode(t, `{"a": {"b": [10, 20, 30], "": "empty", "c d": 1}, "x": 7}`)
	tests := []struct{ template, want string }{
		{"{.a.b[]}", "10"},           // [] is [0]
		{"{.a.b[-1:]}", "30"},        // a slice from the end
		{"{.a.b[:-1]}", "10 20"},     // up to the last
		{"{.a.b[::2]}", "10 30"},     // every other
		{"{.a.b[ 1 , 2 ]}", "20 30"}, // union members are trimmed
		{"{.a.b[*,0]}", "10 20 30 10"},
		{"{.a['b'][0]}", "10"},
		{"{.a.['b'][0]}", "error: b is not found"}, // .a. is the member "" of a
		{"{.a['*']}", `empty [10,20,30] 1`},        // a quoted name is a path: here a wildcard
		{"{$.x}{@.x}", "77"},
		{"{.x}}{", ""}, // the text "}" then an unclosed action: an error below
		{"text only", "text only"},
		{"{.a['b}']}", "[10,20,30]"}, // what follows the brace in a quoted name is dropped
	}
	for _, tt := range tests {
		tmpl, err := Parse(tt.template)
		if tt.template == "{.x}}{" {
			if err == nil {
				t.Errorf("Parse(%q) parses; want an error", tt.template)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q) = %v", tt.template, err)
			continue
		}
		var b strings.Builder
		got := ""
		if err := tmpl.Execute(&b, data, Options{}); err != nil {
			got = "error: " + err.Error()
		} else {
			got = b.String()
		}
		if got != tt.want {
			t.Errorf("Execute(%q) = %q; want %q", tt.template, got, tt.want)
		}
	}
}

func TestFindResults(t *testing.T) {
	tmpl, err := Parse(`{.spec.replicas}{.spec.containers[*].name}x{range .spec.nested[*]}{@}{end}`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := tmpl.FindResults(decode(t, pod), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `[[3],["app","sidecar"],["x"],[[1,2]],[[3]]]`; string(b) != want {
		t.Errorf("FindResults = %s; want %s", b, want)
	}
	// A range over null gives Missing, as Kubernetes' reflect.Value that
	// holds nothing.
	tmpl, _ = Parse(`{range .a[*]}{@}{end}`)
	got, err = tmpl.FindResults(map[string]any{"a": []any{nil}}, Options{})
	if err != nil || len(got) != 1 || len(got[0]) != 1 || got[0][0] != (Missing{}) {
		t.Errorf("FindResults over [null] = %#v, %v; want [[Missing{}]]", got, err)
	}
}

func TestMaxValues(t *testing.T) {
	// Arrays four deep, ten wide: 10^4 leaves, each reached 2^4 ways.
	var data any = int64(1)
	for range 4 {
		arr := make([]any, 10)
		for i := range arr {
			arr[i] = data
		}
		data = arr
	}
	tmpl, err := Parse("{[*,*][*,*][*,*][*,*]}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmpl.FindResults(data, Options{MaxValues: 10000}); !errors.Is(err, ErrTooManyValues) {
		t.Errorf("FindResults = %v; want ErrTooManyValues", err)
	}
	small, _ := Parse("{[0][*][*]}")
	if _, err := small.FindResults(data, Options{MaxValues: 10000}); err != nil {
		t.Errorf("FindResults of a small result = %v", err)
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "null"},
		{Missing{}, "<no value>"},
		{"a<b", "a<b"},
		{int64(-3), "-3"},
		{1e21, "1e+21"},
		{uint8('a'), "97"},
		{json.Number("1.50"), "1.50"},
		{map[string]any{"b": 1, "a": "<"}, `{"a":"\u003c","b":1}`},
		{[]any{true, nil}, "[true,null]"},
		{[]string{"x"}, `["x"]`},
	}
	for _, tt := range tests {
		if got, err := Format(tt.v); err != nil || got != tt.want {
			t.Errorf("Format(%#v) = %q, %v; want %q", tt.v, got, err, tt.want)
		}
	}
}

// FuzzParse parses untrusted templates (CRD printer columns): parsing
// never panics, and a template that parses evaluates without panicking
// within its bounds.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"{.metadata.name}", "{.spec.containers[*].name}", `{.status.conditions[?(@.type=="Ready")].status}`,
		"{..name}", "{.a[1:3:2]}", "{.a['b','c']}", "{range .items[*]}{.x}{end}", `{"a\tb" 1 -2.5 true}`,
		"{.a[?(@.b)]}", "{.a[-1]}", "x{}y", "{.a[?(@.b=='x)')]}", "{.a\\.b}", "{$}", "{.a[,]}",
	} {
		f.Add(s)
	}
	data := decode(f, pod)
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := Parse(s)
		if err != nil {
			return
		}
		if tmpl.String() != s {
			t.Fatalf("String() = %q; want %q", tmpl.String(), s)
		}
		for _, o := range []Options{{}, {AllowMissingKeys: true, MaxValues: 1 << 14}} {
			if err := tmpl.Execute(discard{}, data, o); err != nil {
				continue
			}
		}
	})
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(`{.status.conditions[?(@.type=="Ready")].status}`); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkColumn evaluates the most common shapes of printer column.
func BenchmarkColumn(b *testing.B) {
	data := decode(b, pod)
	for _, s := range []string{"{.spec.replicas}", `{.status.conditions[?(@.type=="Ready")].status}`, "{.spec.containers[*].name}"} {
		tmpl, err := Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tmpl.FindResults(data, Options{AllowMissingKeys: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestMembersFastPath: templates of member names only take a shortcut;
// it answers as the general evaluator does.
func TestMembersFastPath(t *testing.T) {
	data := decode(t, pod)
	for _, s := range []string{"{.metadata.name}", "{.spec.nothing}", "{.spec.nothing.x}", "{.spec.containers.name}",
		"{.nope}", "{.metadata.nope.deeper}", "{.spec}", `{.metadata.labels.app\.kubernetes\.io/name}`, "{.}"} {
		tmpl, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if tmpl.members == nil {
			t.Errorf("Parse(%q) takes no shortcut", s)
		}
		for _, missing := range []bool{false, true} {
			o := Options{AllowMissingKeys: missing}
			fast, ferr := tmpl.FindResults(data, o)
			e := &evaluator{o: o, budget: DefaultMaxValues, lastEnd: -1}
			slow, serr := e.find(tmpl.root.nodes, 0, data)
			fj, _ := json.Marshal(fast)
			sj, _ := json.Marshal(slow)
			if string(fj) != string(sj) || (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
				t.Errorf("%q, missing=%v: shortcut %s, %v; evaluator %s, %v", s, missing, fj, ferr, sj, serr)
			}
		}
	}
}
