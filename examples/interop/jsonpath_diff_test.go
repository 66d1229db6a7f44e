package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/registry/rest"
	kjsonpath "k8s.io/client-go/util/jsonpath"
	sjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/jsonpath"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/table"
)

// The tests below run the same templates on the same objects through
// k8s.io/client-go/util/jsonpath (what kubectl and a cluster's printer
// columns use) and package jsonpath, and compare the parse errors, the
// results, the evaluation errors and kubectl's printed text.

// jsonpathObjects are the objects the templates run on, decoded as
// Kubernetes' unstructured objects are (integers as int64).
var jsonpathObjects = []string{
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default","labels":{"app":"web","app.kubernetes.io/name":"shop"},"creationTimestamp":"2020-01-02T03:04:05Z"},
	  "spec":{"replicas":3,"ratio":0.25,"big":1e30,"paused":false,"nothing":null,"name":"inner","empty":[],"emptyObj":{},"str":"ab",
	    "containers":[{"name":"app","image":"shop:1","ports":[{"containerPort":8080,"name":"http"},{"containerPort":9090}]},{"name":"sidecar","image":"proxy:2","ports":[]},{"name":null}],
	    "nested":[[1,2,3],[4],[],[[5]]],"mixed":[1,"1",1.5,true,null,{"a":1},[1]]},
	  "status":{"phase":"Running","observedGeneration":2,"conditions":[
	    {"type":"Ready","status":"True","observedGeneration":2,"lastTransitionTime":"2021-05-06T07:08:09Z","reason":"Up"},
	    {"type":"Synced","status":"False","observedGeneration":1,"message":"a, b (c)"},
	    {"type":"Ready","status":"Unknown"}]}}`,
	`{"metadata":{"name":"only"},"spec":{"containers":[{"name":"x","ports":[{"containerPort":1}]}],"replicas":-1},"status":{}}`,
	`{"a":[{"b":1},{"b":2.5},{"b":"2"},{"b":true},{"b":null},{"c":1},[1],"s",7],"x":{"y":{"z":[0,-1,18446744073709551615]}}}`,
	`{"items":[{"metadata":{"name":"a"},"n":1},{"metadata":{"name":"b"},"n":2}],"kind":"List"}`,
}

// jsonpathSeeds are hand-written templates: every construct, and the
// quirks of Kubernetes' parser and evaluator.
var jsonpathSeeds = []string{
	"{.metadata.name}", "{.kind}", "{.spec.replicas}", "{.spec.ratio}", "{.spec.big}", "{.spec.paused}", "{.spec.nothing}",
	"{.spec.empty}", "{.spec.emptyObj}", "{.metadata.labels}", `{.metadata.labels.app\.kubernetes\.io/name}`,
	"{.metadata.labels['app.kubernetes.io/name']}", "{.metadata.labels['app']}", `{.metadata.labels["app"]}`,
	"{.spec.containers[0].name}", "{.spec.containers[-1].name}", "{.spec.containers[5].name}", "{.spec.containers[-5]}",
	"{.spec.containers[1:].name}", "{.spec.containers[:2].image}", "{.spec.containers[::2].name}", "{.spec.containers[0:3:0]}",
	"{.spec.containers[2:1]}", "{.spec.containers[1:1]}", "{.spec.containers[]}", "{.spec.containers[-1:]}", "{.spec.containers[:-1].name}",
	"{.spec.containers[*].name}", "{.spec.containers.*.name}", "{.spec.containers[*].ports[*].containerPort}",
	"{.spec.containers[0,1].name}", "{.spec.containers[1,0,1].name}", "{.spec.containers[0]['name','image']}", "{.spec.containers[ 0 , -1 ].name}",
	"{.spec.containers[0,x]}", "{.spec.containers[*,0].name}", "{.spec.containers[0:1,2:3].name}",
	"{..containerPort}", "{..name}", "{.status..type}", "{.spec.nested..}", "{..[0]}", "{.spec.str.*}", "{.spec.str..}", "{.spec.str[0]}",
	"{.spec.nested[*][0]}", "{.spec.nested[*][*]}", "{.spec.mixed[*]}", "{.spec.mixed..}",
	`{.status.conditions[?(@.type=="Ready")].status}`, `{.status.conditions[?(@.type == 'Synced')].status}`,
	`{.status.conditions[?(@.type=="Ready")].lastTransitionTime}`, `{.status.conditions[?(@.observedGeneration>1)].type}`,
	`{.status.conditions[?(@.observedGeneration>=1)].type}`, `{.status.conditions[?(@.observedGeneration<2)].type}`,
	`{.status.conditions[?(@.observedGeneration<=2)].type}`, `{.status.conditions[?(@.type!="Ready")].type}`,
	`{.status.conditions[?(@.type==1)].type}`, `{.status.conditions[?(@.observedGeneration==2.0)].type}`,
	`{.status.conditions[?(@.reason)].reason}`, `{.status.conditions[?(@.message=="a, b (c)")].type}`,
	`{.status.conditions[?(@.type=="Ready")]}`, `{.status.conditions[?(@.type=<"Ready")]}`, `{.status.conditions[?(@.type=)]}`,
	`{.status.conditions[?(@.status==@.type)].type}`, `{.status.conditions[?(@.observedGeneration==@.observedGeneration)].type}`,
	`{.a[?(@.b==1)]}`, `{.a[?(@.b>1)]}`, `{.a[?(@.b)]}`, `{.a[?(@[0])]}`, `{.a[?(@.b==true)]}`, `{.x.y.z[?(@>-1)]}`, `{.x.y.z[?(@==18446744073709551615)]}`,
	`{.spec[?(@.a)]}`, `{.spec.nothing[?(@.a)]}`, `{.spec.containers[?(@.ports[0])].name}`, `{.spec.containers[?(@.name=="app")].ports[?(@.containerPort>8080)].containerPort}`,
	`{.spec.containers[0,?(@.name=="sidecar")].image}`,
	`{range .spec.containers[*]}{.name}={.image};{end}`, `{range .spec.containers[*]}[{range .ports[*]}{.containerPort},{end}]{end}`,
	`{range .spec.empty[*]}{.name}{end}done`, `{range .spec.empty[*]}{[0]}{end}`, `{range .spec.mixed[*]}<{@}>{end}`,
	`{range .items[*]}{.metadata.name}{"\t"}{.n}{"\n"}{end}`, `{range .items[*]}{.metadata.name}`, `{end}`, `{range}{end}`,
	`{range .items[*]}{range .metadata}{.name}{end}{end}`, `{.kind}{range .items[*]}{.n}{end}{.kind}`,
	`{"text"}`, `{'a\'b'}`, `{"a\qb"}`, `{1}{-2}{+3}{1.5}{true}{false}{.kind 1}`, `{nope}`, `{}`, `{$}`, `{@.kind}`, `{$.kind}`, `{.}`,
	"kind: {.kind}, name: {.metadata.name}", "{.kind}}", "{{.kind}", "{.kind", "no actions", "", "{.a[0}", "{.a[x]}", "{.a[-]}",
	"{....a}", "{...name}", "{..*}", "{.a[?(@.b==1}", "{.a[?(@.b==1)}", `{"abc}`, "{1.2.3}", "{-}", "{.a\t}", "{.a['b{']}", "{.a['b}']}",
	`{.a[?(@.b=="x)")]}`, `{.a[?(@.b=='a\'b')]}`, "{.metadata.name.x}", "{.spec.replicas[0]}", "{.kind[*]}", "{.spec[0]}",
	"{.metadata.labels.*}", "{.metadata.*}", "{.*}", "{..}", "{.spec.containers[99999999999999999999]}", "{.spec.containers[9223372036854775807]}",
	"{.spec.containers[-9223372036854775808]}", "{.spec.containers[0:9223372036854775807]}", "{.spec.containers[0::9223372036854775807].name}",
	"{.spec.containers[٣]}", "{٣}", "{.é}", "{.spec\\.x}", "{.spec.\\}", "{.spec.containers[*]['name']}",
}

// randomTemplate writes a template from the grammar, with names from
// the objects and some noise.
func randomTemplate(r *rand.Rand) string {
	names := []string{"metadata", "name", "spec", "status", "containers", "ports", "containerPort", "conditions", "type",
		"replicas", "nested", "mixed", "labels", "a", "b", "x", "y", "z", "items", "n", "nothing", "str", "empty", "kind", "observedGeneration"}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	index := func() string { return fmt.Sprint(r.IntN(7) - 3) }
	literal := func() string {
		return pick([]string{`"Ready"`, `'True'`, `"app"`, "1", "2", "-1", "2.5", "0", "true", "false", `"2"`, "@." + pick(names)})
	}
	var step func(depth int) string
	step = func(depth int) string {
		switch r.IntN(14) {
		case 0, 1, 2, 3:
			return "." + pick(names)
		case 4:
			return "[" + index() + "]"
		case 5:
			parts := []string{"", index(), index()}
			s := parts[r.IntN(3)] + ":" + parts[r.IntN(3)]
			if r.IntN(3) == 0 {
				s += ":" + pick([]string{"", "1", "2", "0", "-1"})
			}
			return "[" + s + "]"
		case 6:
			return pick([]string{"[*]", ".*"})
		case 7:
			if r.IntN(2) == 0 {
				return ".." + pick(names)
			}
			return "..[" + index() + "]"
		case 8:
			return "[" + index() + "," + pick([]string{index(), "'" + pick(names) + "'", "*", "1:"}) + "]"
		case 9:
			return "['" + pick(names) + "']"
		case 10, 11:
			if depth > 1 {
				return "." + pick(names)
			}
			ops := []string{"==", "!=", "<", "<=", ">", ">="}
			left := "@"
			for range r.IntN(3) {
				left += step(depth + 1)
			}
			if r.IntN(5) == 0 {
				return "[?(" + left + ")]"
			}
			return "[?(" + left + pick(ops) + literal() + ")]"
		case 12:
			return " " + literal()
		}
		return pick([]string{"@", "$", " "})
	}
	action := func() string {
		var b strings.Builder
		for range 1 + r.IntN(5) {
			b.WriteString(step(0))
		}
		return b.String()
	}
	var s string
	switch r.IntN(6) {
	case 0:
		s = "{range " + action() + "}{" + action() + "}," + "{end}"
	case 1:
		s = "x{" + action() + "}y{" + action() + "}"
	default:
		s = "{" + action() + "}"
	}
	// Noise: a few characters changed, added or removed.
	const noise = "{}[]().,'\"@$*?:=!<>- \\\t0123456789ab"
	for range r.IntN(3) {
		if r.IntN(3) != 0 || len(s) == 0 {
			break
		}
		i := r.IntN(len(s))
		c := string(noise[r.IntN(len(noise))])
		switch r.IntN(3) {
		case 0:
			s = s[:i] + c + s[i+1:]
		case 1:
			s = s[:i] + c + s[i:]
		default:
			s = s[:i] + s[i+1:]
		}
	}
	return s
}

// jsonpathOutcome is what one evaluation gave: a parse error, or the
// results and an evaluation error, and kubectl's text.
type jsonpathOutcome struct {
	parseErr string
	results  [][]any
	evalErr  string
	text     string
	panicked bool
}

func kubeJSONPath(template string, data any, allowMissing bool) (out jsonpathOutcome) {
	defer func() {
		if recover() != nil {
			out = jsonpathOutcome{panicked: true}
		}
	}()
	j := kjsonpath.New("t").AllowMissingKeys(allowMissing)
	if err := j.Parse(template); err != nil {
		return jsonpathOutcome{parseErr: err.Error()}
	}
	rs, err := j.FindResults(data)
	if err != nil {
		out.evalErr = err.Error()
	}
	for _, r := range rs {
		vs := []any{}
		for _, v := range r {
			if !v.IsValid() {
				vs = append(vs, jsonpath.Missing{})
				continue
			}
			vs = append(vs, v.Interface())
		}
		out.results = append(out.results, vs)
	}
	if err == nil {
		// Execute evaluates afresh: Kubernetes' JSONPath keeps range
		// state from the evaluation before.
		j := kjsonpath.New("t").AllowMissingKeys(allowMissing)
		_ = j.Parse(template)
		var b strings.Builder
		if err := j.Execute(&b, data); err != nil {
			out.text = "error: " + err.Error()
		} else {
			out.text = b.String()
		}
	}
	return out
}

func ourJSONPath(template string, data any, allowMissing bool) (out jsonpathOutcome) {
	t, err := jsonpath.Parse(template)
	if err != nil {
		return jsonpathOutcome{parseErr: err.Error()}
	}
	o := jsonpath.Options{AllowMissingKeys: allowMissing}
	rs, err := t.FindResults(data, o)
	if err != nil {
		out.evalErr = err.Error()
	}
	out.results = rs
	if err == nil {
		var b strings.Builder
		if err := t.Execute(&b, data, o); err != nil {
			out.text = "error: " + err.Error()
		} else {
			out.text = b.String()
		}
	}
	return out
}

// sortedOutcome orders each result list by its values' text, for
// templates that visit an object's members, which Kubernetes does in Go's
// random map order.
func sortedOutcome(o jsonpathOutcome) jsonpathOutcome {
	var rs [][]any
	for _, r := range o.results {
		r = slices.Clone(r)
		slices.SortStableFunc(r, func(a, b any) int { return strings.Compare(fmt.Sprintf("%#v", a), fmt.Sprintf("%#v", b)) })
		rs = append(rs, r)
	}
	o.results = rs
	o.text = ""
	return o
}

// compareJSONPath runs template on data both ways; it reports whether
// Kubernetes' answer could be compared: not when it panicked.
func compareJSONPath(t *testing.T, template string, data any, allowMissing bool) bool {
	t.Helper()
	ours := ourJSONPath(template, data, allowMissing)
	kube := kubeJSONPath(template, data, allowMissing)
	if kube.panicked {
		return false
	}
	ours.results, kube.results = normalResults(ours.results), normalResults(kube.results)
	if reflect.DeepEqual(ours, kube) {
		return true
	}
	if strings.Contains(template, "*") || strings.Contains(template, "..") {
		// Kubernetes visits an object's members in Go's random order,
		// which changes the order of results and which error comes
		// first: ours must be one of the answers it gives.
		if reflect.DeepEqual(sortedOutcome(ours), sortedOutcome(kube)) {
			return true
		}
		for range 200 {
			again := kubeJSONPath(template, data, allowMissing)
			again.results = normalResults(again.results)
			if reflect.DeepEqual(sortedOutcome(ours), sortedOutcome(again)) {
				return true
			}
		}
	}
	t.Errorf("template %q, allowMissingKeys=%v, on object %q:\nours: %#v\nkube: %#v", template, allowMissing, objectName(data), ours, kube)
	return true
}

// normalResults makes no results and no values empty, not nil.
func normalResults(rs [][]any) [][]any {
	out := [][]any{}
	for _, r := range rs {
		if r == nil {
			r = []any{}
		}
		out = append(out, r)
	}
	return out
}

// objectName names one of jsonpathObjects by its first bytes.
func objectName(data any) string {
	s := fmt.Sprint(data)
	if len(s) > 40 {
		s = s[:40]
	}
	return s
}

func jsonpathData(t testing.TB) []any {
	var out []any
	for _, s := range jsonpathObjects {
		var v any
		if err := sjson.UnmarshalCaseSensitivePreserveInts([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestJSONPathDifferential(t *testing.T) {
	data := jsonpathData(t)
	templates := append(slices.Clone(jsonpathSeeds), randomTemplates(rand.New(rand.NewPCG(20, 1)), 4000)...)
	compared, skipped := 0, 0
	for _, tmpl := range templates {
		for _, d := range data {
			for _, missing := range []bool{true, false} {
				if compareJSONPath(t, tmpl, d, missing) {
					compared++
				} else {
					skipped++
				}
			}
		}
	}
	t.Logf("%d evaluations compared, %d skipped (Kubernetes panicked)", compared, skipped)
	if skipped > compared/20 {
		t.Errorf("%d of %d evaluations skipped", skipped, compared+skipped)
	}
}

// FuzzJSONPathDifferential compares any template on the objects above;
// its seeds are the hand-written templates.
func FuzzJSONPathDifferential(f *testing.F) {
	for _, s := range jsonpathSeeds {
		f.Add(s)
	}
	data := jsonpathData(f)
	f.Fuzz(func(t *testing.T, tmpl string) {
		for _, d := range data {
			compareJSONPath(t, tmpl, d, true)
			compareJSONPath(t, tmpl, d, false)
		}
	})
}

// TestPrinterColumnDifferential compares the cells of printer columns:
// apiextensions-apiserver's table convertor against server.JSONPathColumn
// (what package crd serves), for every column type, on the objects above
// as a cluster stores them (with metadata).
func TestPrinterColumnDifferential(t *testing.T) {
	var paths []string
	r := rand.New(rand.NewPCG(22, 1))
	for _, s := range append(slices.Clone(jsonpathSeeds), randomTemplates(r, 3000)...) {
		if len(s) > 2 && s[0] == '{' && s[1] == '.' && s[len(s)-1] == '}' {
			paths = append(paths, s[1:len(s)-1])
		}
	}
	var objects []string
	for _, o := range jsonpathObjects {
		if strings.Contains(o, `"kind":"List"`) {
			continue
		}
		if !strings.Contains(o, `"metadata"`) {
			o = `{"metadata":{"name":"x"},` + o[1:]
		}
		if !strings.Contains(o, `"apiVersion"`) {
			o = `{"apiVersion":"example.com/v1","kind":"Widget",` + o[1:]
		}
		objects = append(objects, o)
	}
	compared, skipped := 0, 0
	for _, path := range paths {
		for _, typ := range []string{"string", "integer", "number", "boolean", "date"} {
			col := apiextensionsv1.CustomResourceColumnDefinition{Name: "c", Type: typ, JSONPath: path}
			tc, kubeErr := tableconvertor.New([]apiextensionsv1.CustomResourceColumnDefinition{col})
			ours, ourErr := server.JSONPathColumn(table.Column{Name: "c", Type: typ}, path)
			if (kubeErr == nil) != (ourErr == nil) {
				t.Errorf("column %q: table convertor: %v; ours: %v", path, kubeErr, ourErr)
				continue
			}
			if kubeErr != nil {
				continue
			}
			for i, o := range objects {
				if i > 0 {
					tc, _ = tableconvertor.New([]apiextensionsv1.CustomResourceColumnDefinition{col})
				}
				var u unstructured.Unstructured
				if err := u.UnmarshalJSON([]byte(o)); err != nil {
					t.Fatal(err)
				}
				kube, ok := kubeCell(tc, &u)
				if !ok {
					skipped++
					continue
				}
				var su server.Unstructured
				if err := json.Unmarshal([]byte(o), &su); err != nil {
					t.Fatal(err)
				}
				got := ours.Cell(&su, time.Now())
				compared++
				// Where Kubernetes visits an object's members, in Go's
				// random order, ours must be one of its answers.
				// A fresh convertor each time: Kubernetes' keeps the state of
				// a range from one row to the next.
				for i := 0; i < 200 && !reflect.DeepEqual(got, kube) && (strings.Contains(path, "*") || strings.Contains(path, "..")); i++ {
					tc, _ := tableconvertor.New([]apiextensionsv1.CustomResourceColumnDefinition{col})
					kube, _ = kubeCell(tc, &u)
				}
				if !reflect.DeepEqual(got, kube) {
					t.Errorf("column %q of type %s on %q: ours %#v; table convertor %#v", path, typ, objectName(u.Object), got, kube)
				}
			}
		}
	}
	t.Logf("%d cells compared, %d skipped (the table convertor panicked)", compared, skipped)
}

// kubeCell is the cell the table convertor makes for the one column.
func kubeCell(tc rest.TableConvertor, u *unstructured.Unstructured) (cell any, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	table, err := tc.ConvertToTable(context.Background(), u, nil)
	if err != nil || len(table.Rows) != 1 || len(table.Rows[0].Cells) != 2 {
		return nil, false
	}
	return table.Rows[0].Cells[1], true
}

func randomTemplates(r *rand.Rand, n int) []string {
	var out []string
	for range n {
		out = append(out, randomTemplate(r))
	}
	return out
}
