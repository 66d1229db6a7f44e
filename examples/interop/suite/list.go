package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"

	"github.com/apisem/apisem/examples/apiserver/demo"
)

// client-go's pager lists in pages of limit; every page carries the first
// page's resourceVersion, and writes between pages do not show up: the
// list is one snapshot.
func (e env) pagerConstantResourceVersion(t *testing.T) {
	for _, protobuf := range []bool{false, true} {
		t.Run(fmt.Sprint("protobuf=", protobuf), func(t *testing.T) {
			ts := e.start(t, demo.Options{})
			cs := ts.clientset(t, protobuf)
			ctx := context.Background()
			namespace(t, cs, "ns1")
			const n = 25
			for i := range n {
				if _, err := cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}

			var rvs []string
			var remaining []*int64
			pages := 0
			p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				l, err := cs.CoreV1().ConfigMaps("ns1").List(ctx, opts)
				if err != nil {
					return nil, err
				}
				pages++
				rvs = append(rvs, l.ResourceVersion)
				remaining = append(remaining, l.RemainingItemCount)
				// Writes between pages: the snapshot must not see them.
				if _, err := cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("late-%d", pages)}}, metav1.CreateOptions{}); err != nil {
					return nil, err
				}
				if err := cs.CoreV1().ConfigMaps("ns1").Delete(ctx, fmt.Sprintf("cm-%02d", n-pages), metav1.DeleteOptions{}); err != nil {
					return nil, err
				}
				return l, nil
			})
			p.PageSize = 10
			var names []string
			err := p.EachListItem(ctx, metav1.ListOptions{}, func(o runtime.Object) error {
				m, _ := meta.Accessor(o)
				names = append(names, m.GetName())
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if pages != 3 {
				t.Errorf("%d pages; want 3", pages)
			}
			for _, rv := range rvs {
				if rv != rvs[0] {
					t.Errorf("page resourceVersions %v; want all equal", rvs)
					break
				}
			}
			if len(names) != n {
				t.Fatalf("listed %d objects; want %d: %v", len(names), n, names)
			}
			for i, name := range names {
				if want := fmt.Sprintf("cm-%02d", i); name != want {
					t.Errorf("item %d = %s; want %s", i, name, want)
				}
			}
			if remaining[0] == nil || *remaining[0] != 15 || remaining[1] == nil || *remaining[1] != 5 || remaining[2] != nil {
				t.Errorf("remainingItemCount per page: %v %v %v; want 15, 5, unset", ptrStr(remaining[0]), ptrStr(remaining[1]), ptrStr(remaining[2]))
			}
		})
	}
}

func ptrStr(p *int64) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// A continue token whose snapshot was compacted is a 410 carrying a token
// to continue inconsistently, which the pager falls back to with a full
// list.
func (e env) continueAfterCompaction(t *testing.T) {
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, false)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	for i := range 4 {
		cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm", i)}}, metav1.CreateOptions{})
	}
	first, err := cs.CoreV1().ConfigMaps("ns1").List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil || first.Continue == "" {
		t.Fatalf("first page = %+v, %v", first, err)
	}
	cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm9"}}, metav1.CreateOptions{})
	ts.Compact()
	_, err = cs.CoreV1().ConfigMaps("ns1").List(ctx, metav1.ListOptions{Limit: 2, Continue: first.Continue})
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("continue after compaction: err %v; want 410 Expired", err)
	}
	se := err.(*apierrors.StatusError)
	next := se.ErrStatus.ListMeta.Continue
	if next == "" {
		t.Fatalf("the 410 carries no inconsistent continue token: %+v", se.ErrStatus)
	}
	rest, err := cs.CoreV1().ConfigMaps("ns1").List(ctx, metav1.ListOptions{Limit: 10, Continue: next})
	if err != nil || len(rest.Items) != 3 || rest.Items[2].Name != "cm9" {
		t.Fatalf("inconsistent continue = %+v, %v", rest, err)
	}
}

// kubectl get asks for a Table with this exact Accept header and prints
// its columns.
func (e env) tableWithKubectlAccept(t *testing.T) {
	ts := e.start(t, demo.Options{})
	cs := ts.clientset(t, false)
	ctx := context.Background()
	namespace(t, cs, "ns1")
	cs.CoreV1().ConfigMaps("ns1").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm1"},
		Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"c": {}}}, metav1.CreateOptions{})
	cs.CoreV1().Secrets("ns1").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s1"},
		Data: map[string][]byte{"username": []byte("x")}, Type: corev1.SecretTypeBasicAuth}, metav1.CreateOptions{})

	const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	for _, tc := range []struct {
		path    string
		columns []string
		cells   []any
	}{
		{"/api/v1/namespaces/ns1/configmaps", []string{"Name", "Data", "Age"}, []any{"cm1", float64(3)}},
		{"/api/v1/secrets", []string{"Name", "Type", "Data", "Age"}, []any{"s1", "kubernetes.io/basic-auth", float64(1)}},
		{"/api/v1/namespaces", []string{"Name", "Status", "Age"}, []any{"ns1", "Active"}},
		{"/api/v1/namespaces/ns1/configmaps/cm1", []string{"Name", "Data", "Age"}, []any{"cm1", float64(3)}},
	} {
		raw, err := cs.CoreV1().RESTClient().Get().AbsPath(tc.path).Param("limit", "500").
			SetHeader("Accept", accept).DoRaw(ctx)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		var tab metav1.Table
		if err := json.Unmarshal(raw, &tab); err != nil {
			t.Fatalf("%s: %v\n%s", tc.path, err, raw)
		}
		if tab.Kind != "Table" || tab.APIVersion != "meta.k8s.io/v1" || tab.ResourceVersion == "" {
			t.Errorf("%s: table type %s %s rv %q", tc.path, tab.APIVersion, tab.Kind, tab.ResourceVersion)
		}
		var cols []string
		for _, c := range tab.ColumnDefinitions {
			cols = append(cols, c.Name)
		}
		if fmt.Sprint(cols) != fmt.Sprint(tc.columns) {
			t.Errorf("%s: columns %v; want %v", tc.path, cols, tc.columns)
		}
		if len(tab.Rows) != 1 {
			t.Fatalf("%s: %d rows", tc.path, len(tab.Rows))
		}
		cells := tab.Rows[0].Cells
		if fmt.Sprint(cells[:len(tc.cells)]) != fmt.Sprint(tc.cells) {
			t.Errorf("%s: cells %v; want prefix %v", tc.path, cells, tc.cells)
		}
		var pom metav1.PartialObjectMetadata
		if err := json.Unmarshal(tab.Rows[0].Object.Raw, &pom); err != nil || pom.Kind != "PartialObjectMetadata" || pom.UID == "" {
			t.Errorf("%s: row object %s", tc.path, tab.Rows[0].Object.Raw)
		}
	}
}
