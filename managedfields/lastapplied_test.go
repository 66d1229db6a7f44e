package managedfields

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
)

// cmWith is a ConfigMap with data and, unless last is "", last as its
// last-applied configuration.
func cmWith(data, last string) map[string]any {
	o := obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":` + data + `}`)
	if last != "" {
		o["metadata"].(map[string]any)["annotations"] = map[string]any{LastAppliedAnnotation: last}
	}
	return o
}

// The fields kubectl's first server-side apply may take over are those
// its last-applied configuration set and the live object still holds.
func TestLastAppliedFields(t *testing.T) {
	const last = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"1","b":"2"}}`
	for _, tt := range []struct {
		name string
		live map[string]any
		want string // the set's paths, sorted, space-separated; "nil" for none
	}{
		{"no annotation", cmWith(`{"a":"1"}`, ""), "nil"},
		{"not JSON", cmWith(`{"a":"1"}`, "{"), "nil"},
		{"other apiVersion", cmWith(`{"a":"1","b":"2"}`, strings.Replace(last, `"v1"`, `"v2"`, 1)), "nil"},
		{"unchanged since", cmWith(`{"a":"1","b":"2"}`, last),
			".apiVersion .data .data.a .data.b .kind .metadata .metadata.name"},
		{"b changed since", cmWith(`{"a":"1","b":"9"}`, last),
			".apiVersion .data .data.a .kind .metadata .metadata.name"},
		{"b removed since", cmWith(`{"a":"1"}`, last),
			".apiVersion .data .data.a .kind .metadata .metadata.name"},
		// A field added since is not the configuration's, nor taken.
		{"c added since", cmWith(`{"a":"1","b":"2","c":"3"}`, last),
			".apiVersion .data .data.a .data.b .kind .metadata .metadata.name"},
		// A field whose shape changed since is not taken.
		{"data's shape changed since", cmWith(`{"a":"1"}`, `{"apiVersion":"v1","kind":"ConfigMap","data":[1]}`), ".apiVersion .kind"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := "nil"
			if s := newCM().lastAppliedFields(tt.live); s != nil {
				paths := strings.Split(s.String(), "\n")
				slices.Sort(paths)
				got = strings.Join(paths, " ")
			}
			if got != tt.want {
				t.Errorf("got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// kubectl's annotation follows its server-side applies: it becomes the
// configuration applied, less the annotation itself, unless it would
// make the annotations too large.
func TestUpdateLastApplied(t *testing.T) {
	big := strings.Repeat("x", maxAnnotationsBytes)
	for _, tt := range []struct {
		name        string
		obj, config map[string]any
		want        string // the annotation after; "-" for none
	}{
		{"no annotation: none added", cmWith(`{"a":"1"}`, ""), cmWith(`{"a":"2"}`, ""), "-"},
		{"replaced by the config", cmWith(`{"a":"2"}`, `{"old":true}`), cmWith(`{"a":"2"}`, ""),
			`{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"a"}}` + "\n"},
		{"without the config's own annotation", cmWith(`{"a":"2"}`, `{"old":true}`), cmWith(`{"a":"2"}`, `{"stale":true}`),
			`{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"a"}}` + "\n"},
		{"too large: dropped", cmWith(`{"a":"2"}`, `{"old":true}`), cmWith(`{"a":"`+big+`"}`, ""), "-"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.obj)
			beforeConfig, _ := json.Marshal(tt.config)
			out := updateLastApplied(tt.obj, tt.config)
			md, _ := out["metadata"].(map[string]any)
			a, _ := md["annotations"].(map[string]any)
			got, ok := a[LastAppliedAnnotation].(string)
			if !ok {
				got = "-"
			}
			if got != tt.want {
				t.Errorf("annotation %q; want %q", got, tt.want)
			}
			if after, _ := json.Marshal(tt.obj); string(after) != string(before) {
				t.Errorf("obj changed: %s; was %s", after, before)
			}
			if after, _ := json.Marshal(tt.config); string(after) != string(beforeConfig) {
				t.Errorf("config changed: %s; was %s", after, beforeConfig)
			}
			if !reflect.DeepEqual(out["data"], tt.obj["data"]) {
				t.Errorf("data %v; want obj's %v", out["data"], tt.obj["data"])
			}
		})
	}
}

// Through Apply: kubectl, and only kubectl, takes over from the
// client-side apply's manager what its annotation shows it set and what
// still holds that value; a field another manager changed since stays a
// conflict.
func TestApplyAfterClientSideApply(t *testing.T) {
	const last = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"a":"1","b":"2"}}`
	for _, tt := range []struct {
		name, manager, live string
		wantErr             string // "" for success
	}{
		{"kubectl takes its fields", "kubectl", `{"a":"1","b":"2"}`, ""},
		{"another manager conflicts", "other", `{"a":"1","b":"2"}`,
			"Apply failed with 2 conflicts: conflicts with \"kubectl-client-side-apply\" using v1:\n- .data.a\n- .data.b"},
		{"b changed since", "kubectl", `{"a":"1","b":"9"}`,
			"Apply failed with 1 conflict: conflict with \"kubectl-client-side-apply\" using v1: .data.b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newCM()
			live := cmWith(tt.live, last)
			live["metadata"].(map[string]any)["uid"] = "u"
			entries, err := f.Update(nil, live, nil, nil, Operation{Manager: "kubectl-client-side-apply", Time: t0})
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := f.Apply(live, entries, cmWith(`{"a":"3","b":"4"}`, ""), Operation{Manager: tt.manager, Time: t0}, false)
			if tt.wantErr != "" {
				if !status.IsConflict(err) || err.Error() != tt.wantErr {
					t.Fatalf("%v; want 409 %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := annotation(out, LastAppliedAnnotation); !strings.Contains(got, `"data":{"a":"3","b":"4"}`) {
				t.Errorf("annotation %q; want the applied configuration", got)
			}
		})
	}
}
