package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8smf "k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/managedfields/managedfieldstest"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/apisem/apisem/openapi"
	"github.com/apisem/apisem/server"
)

// The differential test of server-side apply: the same applies and
// updates, by the same managers, go to an apisem server over HTTP and to
// Kubernetes' own field manager (k8s.io/apimachinery/pkg/util/managedfields)
// in process, which gets its types from the OpenAPI document the server
// publishes. Both must end with the same object, the same managedFields
// (times aside) and the same conflicts.

func str(desc string) *openapi.Schema { return &openapi.Schema{Type: "string", Description: desc} }

// gadgetSchema has a field of every merge strategy.
var gadgetSchema = &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{
	"spec": {Type: "object", Properties: map[string]*openapi.Schema{
		"replicas": {Type: "integer", Format: "int32"},
		"image":    str("image"),
		"ports": {Type: "array", ListType: "map", ListMapKeys: []string{"name"},
			Items: &openapi.Schema{Type: "object", Required: []string{"name"}, Properties: map[string]*openapi.Schema{
				"name": str("name"), "port": {Type: "integer"}, "protocol": str("protocol")}}},
		"env": {Type: "array", PatchStrategy: "merge", PatchMergeKey: "name",
			Items: &openapi.Schema{Type: "object", Properties: map[string]*openapi.Schema{
				"name": str("name"), "value": str("value")}}},
		"tags":     {Type: "array", ListType: "set", Items: str("tag")},
		"args":     {Type: "array", ListType: "atomic", Items: str("arg")},
		"labels":   {Type: "object", AdditionalProperties: str("label")},
		"selector": {Type: "object", MapType: "atomic", AdditionalProperties: str("selector")},
		"config": {Type: "object", Properties: map[string]*openapi.Schema{
			"a": str("a"), "b": str("b"),
			"nested": {Type: "object", PreserveUnknownFields: true}}},
	}},
}}

var (
	gadgets = schema.GroupVersionResource{Group: "diff.apisem.dev", Version: "v1", Resource: "gadgets"}
	blobs   = schema.GroupVersionResource{Group: "diff.apisem.dev", Version: "v1", Resource: "blobs"}
)

// startDiff serves gadgets (with gadgetSchema) and blobs (no schema: the
// deduced type) and returns its URL.
func startDiff(t *testing.T) string {
	t.Helper()
	s, err := server.New(server.Options{Resources: []*server.Resource{
		server.UnstructuredResource(server.Resource{Group: "diff.apisem.dev", Version: "v1", Kind: "Gadget", ListKind: "GadgetList",
			Plural: "gadgets", Singular: "gadget", Namespaced: true, Schema: gadgetSchema}),
		server.UnstructuredResource(server.Resource{Group: "diff.apisem.dev", Version: "v1", Kind: "Blob", ListKind: "BlobList",
			Plural: "blobs", Singular: "blob", Namespaced: true}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Shutdown(ctx)
		hs.Close()
	})
	return hs.URL
}

// kubeFieldManager is Kubernetes' field manager for kind, with the types
// of the server's OpenAPI v3 document (nil types: the deduced type).
func kubeFieldManager(t *testing.T, url string, kind string, deduced bool) *k8smf.FieldManager {
	t.Helper()
	gvk := schema.GroupVersionKind{Group: "diff.apisem.dev", Version: "v1", Kind: kind}
	if deduced {
		return managedfieldstest.NewFakeFieldManager(k8smf.NewDeducedTypeConverter(), gvk)
	}
	resp, err := http.Get(url + "/openapi/v3/apis/diff.apisem.dev/v1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var doc spec3.OpenAPI
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tc, err := k8smf.NewTypeConverter(doc.Components.Schemas, false)
	if err != nil {
		t.Fatal(err)
	}
	return managedfieldstest.NewFakeFieldManager(tc, gvk)
}

// step is one write: an apply of obj or an update to obj (reset also
// sends managedFields [{}]).
type step struct {
	apply, force, reset bool
	manager             string
	obj                 map[string]any // spec and metadata.labels
}

func (s step) String() string {
	b, _ := json.Marshal(s.obj)
	verb := "update"
	if s.apply {
		verb = "apply"
		if s.force {
			verb += " --force"
		}
	}
	if s.reset {
		verb += " (reset managedFields)"
	}
	return fmt.Sprintf("%s by %s: %s", verb, s.manager, b)
}

// model runs steps on both sides.
type model struct {
	t       *testing.T
	dyn     dynamic.ResourceInterface
	kube    *k8smf.FieldManager
	kind    string
	live    *unstructured.Unstructured // Kubernetes' side; nil before create
	created bool                       // the server has the object
	rv      string
}

func (m *model) object(obj map[string]any) *unstructured.Unstructured {
	// Through JSON, as a server receives it: an empty list is null.
	b, err := json.Marshal(obj)
	if err != nil {
		m.t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if err := json.Unmarshal(b, &u.Object); err != nil {
		m.t.Fatal(err)
	}
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	u.SetAPIVersion("diff.apisem.dev/v1")
	u.SetKind(m.kind)
	u.SetName("g")
	u.SetNamespace("ns")
	return u
}

func restConfig(url string) *rest.Config { return &rest.Config{Host: url, QPS: -1} }

func (m *model) run(s step) {
	m.t.Helper()
	ctx := context.Background()
	var got *unstructured.Unstructured
	var gotErr error
	var want *unstructured.Unstructured
	var wantErr error
	empty := m.object(nil)
	empty.SetName("")
	empty.SetNamespace("")
	live := m.live
	if live == nil {
		live = empty
	}
	if s.apply {
		cfg := m.object(s.obj)
		got, gotErr = m.dyn.Apply(ctx, "g", cfg, metav1.ApplyOptions{FieldManager: s.manager, Force: s.force})
		var out any
		out, wantErr = m.kube.Apply(live.DeepCopy(), cfg.DeepCopy(), s.manager, s.force)
		if wantErr == nil {
			want = out.(*unstructured.Unstructured)
		}
	} else {
		body := m.object(s.obj)
		if s.reset {
			body.SetManagedFields([]metav1.ManagedFieldsEntry{{}})
		}
		if m.created {
			body.SetResourceVersion(m.rv)
			got, gotErr = m.dyn.Update(ctx, body, metav1.UpdateOptions{FieldManager: s.manager})
		} else {
			got, gotErr = m.dyn.Create(ctx, body, metav1.CreateOptions{FieldManager: s.manager})
		}
		newObj := body.DeepCopy()
		newObj.SetResourceVersion("")
		if m.live != nil {
			newObj.SetUID(m.live.GetUID())
		}
		want = m.kube.UpdateNoErrors(live.DeepCopy(), newObj, s.manager).(*unstructured.Unstructured)
	}
	if (gotErr == nil) != (wantErr == nil) {
		m.t.Fatalf("%v:\nserver error %v\nKubernetes error %v", s, gotErr, wantErr)
	}
	if gotErr != nil {
		if !apierrors.IsConflict(gotErr) || !apierrors.IsConflict(wantErr) {
			m.t.Fatalf("%v: errors are not both conflicts:\nserver %v\nKubernetes %v", s, gotErr, wantErr)
		}
		g, w := gotErr.(apierrors.APIStatus).Status(), wantErr.(apierrors.APIStatus).Status()
		if g.Message != w.Message {
			m.t.Fatalf("%v: conflict message\nserver:     %q\nKubernetes: %q", s, g.Message, w.Message)
		}
		if diff := cmp.Diff(sortedCauses(w.Details.Causes), sortedCauses(g.Details.Causes)); diff != "" {
			m.t.Fatalf("%v: conflict causes (-Kubernetes +server):\n%s", s, diff)
		}
		return
	}
	m.created = true
	m.rv = got.GetResourceVersion()
	if want.GetUID() == "" {
		want.SetUID(got.GetUID()) // as storage would
	}
	// Storage keeps metadata as ObjectMeta, which drops null members.
	if md, ok := want.Object["metadata"].(map[string]any); ok {
		for k, v := range md {
			if v == nil {
				delete(md, k)
			}
		}
	}
	m.live = want
	if diff := cmp.Diff(content(want), content(got)); diff != "" {
		m.t.Fatalf("%v: object (-Kubernetes +server):\n%s", s, diff)
	}
	if diff := cmp.Diff(entries(want.GetManagedFields()), entries(got.GetManagedFields())); diff != "" {
		m.t.Fatalf("%v: managedFields (-Kubernetes +server):\n%s", s, diff)
	}
}

func sortedCauses(c []metav1.StatusCause) []metav1.StatusCause {
	c = slices.Clone(c)
	slices.SortFunc(c, func(a, b metav1.StatusCause) int {
		return strings.Compare(a.Message+a.Field, b.Message+b.Field)
	})
	return c
}

// content is an object without what the server sets and managedFields,
// as plain JSON values.
func content(u *unstructured.Unstructured) any {
	c := u.DeepCopy()
	c.SetManagedFields(nil)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "name", "namespace"} {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	if md, ok := c.Object["metadata"].(map[string]any); ok {
		// A server keeps metadata as ObjectMeta, which has no null
		// members: labels a merge left null are gone.
		for k, v := range md {
			if v == nil {
				delete(md, k)
			}
		}
		if len(md) == 0 {
			delete(c.Object, "metadata")
		}
	}
	b, _ := json.Marshal(c.Object)
	var v any
	json.Unmarshal(b, &v)
	return v
}

// entry is a managedFields entry without its time.
type entry struct {
	Manager, Operation, APIVersion, Subresource, Fields string
}

func entries(es []metav1.ManagedFieldsEntry) []entry {
	var out []entry
	for _, e := range es {
		f := ""
		if e.FieldsV1 != nil {
			f = string(e.FieldsV1.Raw)
		}
		out = append(out, entry{e.Manager, string(e.Operation), e.APIVersion, e.Subresource, f})
	}
	slices.SortFunc(out, func(a, b entry) int {
		return strings.Compare(a.Operation+a.Manager+a.Subresource, b.Operation+b.Manager+b.Subresource)
	})
	return out
}

func newModel(t *testing.T, url string, gvr schema.GroupVersionResource, kind string) *model {
	dyn, err := dynamic.NewForConfig(restConfig(url))
	if err != nil {
		t.Fatal(err)
	}
	return &model{t: t, dyn: dyn.Resource(gvr).Namespace("ns"), kube: kubeFieldManager(t, url, kind, gvr == blobs), kind: kind}
}

// TestApplyDifferential runs written scenarios, then random ones.
func TestApplyDifferential(t *testing.T) {
	url := startDiff(t)
	spec := func(kv ...any) map[string]any {
		s := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			s[kv[i].(string)] = kv[i+1]
		}
		return map[string]any{"spec": s}
	}
	port := func(name string, p int64) map[string]any { return map[string]any{"name": name, "port": p} }
	scenarios := []struct {
		name  string
		steps []step
	}{
		{"create by apply, then a second manager conflicts, then forces", []step{
			{apply: true, manager: "a", obj: spec("image", "x", "replicas", int64(1))},
			{apply: true, manager: "b", obj: spec("image", "y")},
			{apply: true, manager: "b", obj: spec("image", "y", "replicas", int64(2)), force: false},
			{apply: true, manager: "b", force: true, obj: spec("image", "y", "replicas", int64(2))},
			{apply: true, manager: "a", obj: spec("tags", []any{"t"})},
		}},
		{"list map keys are owned per element", []step{
			{apply: true, manager: "a", obj: spec("ports", []any{port("http", 80)})},
			{apply: true, manager: "b", obj: spec("ports", []any{port("grpc", 90)})},
			{apply: true, manager: "a", obj: spec("ports", []any{port("https", 443)})},
			{apply: true, manager: "b", obj: spec("ports", []any{port("https", 8443)})},
			{apply: true, manager: "b", force: true, obj: spec("ports", []any{port("https", 8443)})},
		}},
		{"update then apply, same values shared", []step{
			{manager: "kubectl-create", obj: spec("image", "x", "labels", map[string]any{"a": "1"})},
			{apply: true, manager: "a", obj: spec("image", "x")},
			{apply: true, manager: "a", obj: spec("image", "z")},
			{manager: "editor", obj: spec("image", "w", "labels", map[string]any{"a": "1"})},
			{apply: true, manager: "a", obj: spec("image", "q")},
		}},
		{"reset then before-first-apply", []step{
			{manager: "creator", obj: spec("image", "x", "args", []any{"1", "2"})},
			{manager: "creator", reset: true, obj: spec("image", "x", "args", []any{"1", "2"})},
			{apply: true, manager: "a", obj: spec("args", []any{"3"})},
			{apply: true, manager: "a", force: true, obj: spec("args", []any{"3"})},
		}},
		{"atomic map and set", []step{
			{apply: true, manager: "a", obj: spec("selector", map[string]any{"k": "v"}, "tags", []any{"x", "y"})},
			{apply: true, manager: "b", obj: spec("selector", map[string]any{"k": "v"}, "tags", []any{"y", "z"})},
			{apply: true, manager: "a", obj: spec("tags", []any{"x"})},
			{apply: true, manager: "b", obj: spec("selector", map[string]any{"k": "w"})},
		}},
	}
	for _, r := range []struct {
		gvr  schema.GroupVersionResource
		kind string
	}{{gadgets, "Gadget"}, {blobs, "Blob"}} {
		for i, sc := range scenarios {
			t.Run(r.kind+"/"+sc.name, func(t *testing.T) {
				m := newModel(t, url, r.gvr, r.kind)
				m.dyn.Delete(context.Background(), "g", metav1.DeleteOptions{})
				_ = i
				for _, s := range sc.steps {
					m.run(s)
				}
			})
		}
		for seed := range uint64(8) {
			t.Run(fmt.Sprintf("%s/fuzz%d", r.kind, seed), func(t *testing.T) {
				m := newModel(t, url, r.gvr, r.kind)
				m.dyn.Delete(context.Background(), "g", metav1.DeleteOptions{})
				rng := rand.New(rand.NewPCG(seed, 14))
				for range 60 {
					m.run(randomStep(rng))
				}
			})
		}
	}
}

// randomStep is a write by one of three managers of a few fields with few
// values, so that owners overlap and conflict often.
func randomStep(rng *rand.Rand) step {
	pick := func(vals ...string) string { return vals[rng.IntN(len(vals))] }
	subset := func(vals ...string) []any {
		var out []any
		for _, v := range vals {
			if rng.IntN(2) == 0 {
				out = append(out, v)
			}
		}
		return out
	}
	sp := map[string]any{}
	maybe := func(k string, v func() any) {
		if rng.IntN(3) == 0 {
			sp[k] = v()
		}
	}
	maybe("image", func() any { return pick("a", "b") })
	maybe("replicas", func() any { return int64(rng.IntN(2)) })
	maybe("ports", func() any {
		var ps []any
		for _, n := range subset("http", "https", "grpc") {
			p := map[string]any{"name": n, "port": int64(rng.IntN(2))}
			if rng.IntN(2) == 0 {
				p["protocol"] = pick("TCP", "UDP")
			}
			ps = append(ps, p)
		}
		return ps
	})
	maybe("env", func() any {
		var es []any
		for _, n := range subset("A", "B") {
			es = append(es, map[string]any{"name": n, "value": pick("1", "2")})
		}
		return es
	})
	maybe("tags", func() any { return subset("x", "y", "z") })
	maybe("args", func() any { return subset("1", "2") })
	maybe("labels", func() any {
		l := map[string]any{}
		for _, k := range subset("a", "b") {
			l[k.(string)] = pick("1", "2")
		}
		return l
	})
	maybe("selector", func() any { return map[string]any{pick("k", "l"): pick("1", "2")} })
	maybe("config", func() any {
		c := map[string]any{}
		for _, k := range subset("a", "b") {
			c[k.(string)] = pick("1", "2")
		}
		if rng.IntN(2) == 0 {
			c["nested"] = map[string]any{pick("p", "q"): map[string]any{"r": pick("1", "2")}}
		}
		return c
	})
	obj := map[string]any{"spec": sp}
	if rng.IntN(3) == 0 {
		obj["metadata"] = map[string]any{"labels": map[string]any{pick("l1", "l2"): pick("1", "2")}}
	}
	s := step{manager: pick("m1", "m2", "m3"), obj: obj}
	switch rng.IntN(10) {
	case 0, 1, 2:
	case 3:
		s.reset = true
	default:
		s.apply = true
		s.force = rng.IntN(3) == 0
	}
	return s
}
