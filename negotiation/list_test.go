package negotiation

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/apisem/apisem/meta"
)

// listItems are items whose YAML and indented JSON have traps: lines long
// enough to fold at different columns, block scalars, keys and strings
// YAML must quote, numbers encoding/json and YAML write differently, and
// nested "items" arrays.
var listItems = []string{
	`{"metadata":{"name":"a"},"data":{"k":"v"}}`,
	`{}`,
	`{"metadata":{"name":"long"},"data":{"text":"` + strings.Repeat("lorem ipsum dolor sit amet ", 12) + `","word":"` + strings.Repeat("x", 150) + `"}}`,
	`{"data":{"script":"#!/bin/sh\nset -e\n  indented: line\n- dash\n","trailing":"a\n\n","crlf":"a\r\nb"}}`,
	`{"data":{"yes":"no","on":"off","1":"2","":"empty key","null":null,"colon":"a: b","dash":"- c","quote":"'\"","unicode":"héllo wörld ✓ \u2028"}}`,
	`{"n":[0,-1,1.5,1e21,12345678901234567890,3.0e-7,true,false,null,[],{},[[1,[2]],{"a":[]}]]}`,
	`{"items":[{"items":[]}],"rows":null,"spec":{"deep":{"deeper":{"deepest":"` + strings.Repeat("y ", 60) + `"}}}}`,
}

// listShapes are the heads and tails servers write: a typed list, an
// unstructured one (sorted members, items in the middle) and a Table.
var listShapes = []struct{ name, head, tail string }{
	{"typed", `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"tok","remainingItemCount":0},"items":[`, `]}`},
	{"unstructured", `{"apiVersion":"demo.io/v1","items":[`, `],"kind":"GizmoList","metadata":{"continue":"","resourceVersion":"7"}}`},
	{"table", `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"a [] \"items\": [\n 0\n] description","priority":0}],"rows":[`, `]}`},
}

func joinList(head, tail string, items []string) []byte {
	return []byte(head + strings.Join(items, ",") + tail)
}

// TestWriteList writes lists in each text form, small and past the gzip
// threshold, and compares them with Result.Encode of the joined JSON and
// WriteResponse: the same bytes, compressed the same, with the same
// headers, save for the Content-Length a large uncompressed body has no
// more.
func TestWriteList(t *testing.T) {
	forms := []struct {
		name string
		res  Result
	}{
		{"JSON", Result{MediaType: JSON}},
		{"pretty JSON", Result{MediaType: JSON, Pretty: true}},
		{"YAML", Result{MediaType: YAML}},
	}
	var many []string
	for i := 0; len(strings.Join(many, ",")) < 3*GzipThreshold; i++ {
		many = append(many, listItems[i%len(listItems)])
	}
	sizes := []struct {
		name  string
		items []string
	}{
		{"no items", nil},
		{"one", listItems[:1]},
		{"traps", listItems},
		{"past the gzip threshold", many},
	}
	for _, shape := range listShapes {
		for _, form := range forms {
			for _, size := range sizes {
				for _, gz := range []bool{false, true} {
					name := fmt.Sprintf("%s/%s/%s/gzip=%v", shape.name, form.name, size.name, gz)
					t.Run(name, func(t *testing.T) {
						r := httptest.NewRequest("GET", "/", nil)
						if gz {
							r.Header.Set("Accept-Encoding", "gzip")
						}
						l := ListBody{Head: []byte(shape.head), Tail: []byte(shape.tail), Len: len(size.items),
							Item: func(i int) ([]byte, error) { return []byte(size.items[i]), nil }}
						w := httptest.NewRecorder()
						if err := WriteList(w, r, form.res, http.StatusOK, l, NewBudget(1<<20)); err != nil {
							t.Fatal(err)
						}
						want, err := form.res.Encode(joinList(shape.head, shape.tail, size.items), nil)
						if err != nil {
							t.Fatal(err)
						}
						ref := httptest.NewRecorder()
						if err := WriteResponse(ref, r, form.res, http.StatusOK, want); err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(w.Body.Bytes(), ref.Body.Bytes()) {
							got := w.Body.Bytes()
							if gz {
								got = gunzip(t, got)
							}
							t.Fatalf("body differs from WriteResponse's:\n%s\nwant\n%s", firstDiff(got, want), firstDiff(want, got))
						}
						wantHeader := ref.Header().Clone()
						if len(want) > GzipThreshold && !gz {
							wantHeader.Del("Content-Length")
						}
						if got := w.Header(); fmt.Sprint(got) != fmt.Sprint(wantHeader) {
							t.Errorf("headers %v; want %v", got, wantHeader)
						}
					})
				}
			}
		}
	}
}

// firstDiff shows a's bytes around where it first differs from b.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("at byte %d: %q", i, a[max(0, i-40):min(len(a), i+40)])
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An item that fails before the first GzipThreshold bytes are sent leaves
// the response to the caller; one that fails later cuts the body, and the
// error says so.
func TestWriteListErrors(t *testing.T) {
	boom := errors.New("boom")
	big := `{"data":"` + strings.Repeat("x", GzipThreshold) + `"}`
	for _, res := range []Result{{MediaType: JSON}, {MediaType: YAML}, {MediaType: JSON, Pretty: true}} {
		l := ListBody{Head: []byte(`{"items":[`), Tail: []byte(`]}`), Len: 3, Item: func(i int) ([]byte, error) {
			if i == 2 {
				return nil, boom
			}
			return []byte(big), nil
		}}
		r := httptest.NewRequest("GET", "/", nil)
		w := httptest.NewRecorder()
		err := WriteList(w, r, res, http.StatusOK, l, nil)
		if !errors.Is(err, boom) || !errors.Is(err, ErrBodyTruncated) {
			t.Errorf("%+v: an item failing after the headers: %v; want boom and ErrBodyTruncated", res, err)
		}
		l.Len = 1
		l.Item = func(int) ([]byte, error) { return nil, boom }
		w = httptest.NewRecorder()
		err = WriteList(w, r, res, http.StatusOK, l, nil)
		if !errors.Is(err, boom) || errors.Is(err, ErrBodyTruncated) || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" {
			t.Errorf("%+v: an item failing first: %v, %d bytes, headers %v; want boom and nothing written", res, err, w.Body.Len(), w.Header())
		}
	}
	if err := WriteList(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil), Result{MediaType: Protobuf}, 200, ListBody{}, nil); !errors.Is(err, ErrNoProtobuf) {
		t.Errorf("WriteList in protobuf: %v", err)
	}
}

// Converter.ListBody through WriteList and Converter.ListParts through
// WriteParts write what EncodeList writes, for every conversion and form.
func TestConverterListBody(t *testing.T) {
	var objs []*testObj
	for i := range 40 {
		objs = append(objs, newTestObj("obj-"+strconv.Itoa(i), strconv.Itoa(100+i), created,
			map[string]string{"k": strings.Repeat("v ", 10*i)}, map[string]string{"note": strings.Repeat("lorem ipsum ", 8*i)}))
	}
	remaining := int64(3)
	list := meta.ListMeta{ResourceVersion: "42", Continue: "tok", RemainingItemCount: &remaining}
	targets := []Target{TargetTable, TargetTableV1beta1, TargetPartialObjectMetadataList, TargetPartialObjectMetadataListV1beta1}
	printer := *dataConverter
	printer.EmptyRows = true
	for _, conv := range []*Converter[*testObj]{testConverter, dataConverter, &printer} {
		for _, target := range targets {
			for _, res := range []Result{{MediaType: JSON}, {MediaType: JSON, Pretty: true}, {MediaType: YAML}, {MediaType: Protobuf}} {
				for _, inc := range []IncludeObjectPolicy{IncludeMetadata, IncludeObject, IncludeNone} {
					for _, n := range []int{0, 1, len(objs)} {
						if inc == IncludeObject && (conv.Object == nil || !target.IsTable()) {
							continue // no Object function; a conversion without objects
						}
						res.Target = target
						name := fmt.Sprintf("%v/%v/pretty=%v/%v/%d", target, res.MediaType, res.Pretty, inc, n)
						r := httptest.NewRequest("GET", "/", nil)
						want, wantErr := conv.EncodeList(res, inc, list, objs[:n])
						w := httptest.NewRecorder()
						var err error
						if res.MediaType == Protobuf && !target.IsTable() {
							var parts []Part
							if parts, err = conv.ListParts(res, list, objs[:n]); err == nil {
								err = WriteParts(w, r, res, http.StatusOK, parts)
							}
						} else {
							var l ListBody
							if l, err = conv.ListBody(res, inc, list, objs[:n]); err == nil {
								err = WriteList(w, r, res, http.StatusOK, l, nil)
							}
						}
						if fmt.Sprint(err) != fmt.Sprint(wantErr) {
							t.Errorf("%s: error %v; EncodeList's %v", name, err, wantErr)
							continue
						}
						if err == nil && !bytes.Equal(w.Body.Bytes(), want) {
							t.Errorf("%s: body differs from EncodeList's:\n%s\nwant\n%s", name, firstDiff(w.Body.Bytes(), want), firstDiff(want, w.Body.Bytes()))
						}
					}
				}
			}
		}
	}
}

// A Budget grants reservations in arrival order, lets a waiter go when its
// context ends, and runs a reservation larger than itself alone.
func TestBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := NewBudget(100)
		if err := b.acquire(ctx, 60); err != nil {
			t.Fatal(err)
		}
		var order []string
		done := make(chan string, 3)
		wait := func(name string, ctx context.Context, n int64) {
			go func() {
				if err := b.acquire(ctx, n); err != nil {
					done <- name + " gave up"
					return
				}
				done <- name
			}()
			synctest.Wait() // queued in this order
		}
		cctx, cancel := context.WithCancel(ctx)
		wait("big", ctx, 1000) // more than the budget: waits for all of it
		wait("cancelled", cctx, 10)
		wait("small", ctx, 10) // would fit, but arrives after big
		synctest.Wait()
		if len(done) != 0 {
			t.Fatalf("%d waiters passed a full budget", len(done))
		}
		cancel()
		synctest.Wait()
		order = append(order, <-done)
		b.release(60)
		synctest.Wait()
		order = append(order, <-done)
		if len(done) != 0 {
			t.Fatal("small ran beside big")
		}
		b.release(1000)
		synctest.Wait()
		order = append(order, <-done)
		b.release(10)
		if want := "[cancelled gave up big small]"; fmt.Sprint(order) != want {
			t.Errorf("order %v; want %s", order, want)
		}
		if b.used != 0 || len(b.waiters) != 0 {
			t.Errorf("after all releases: used %d, %d waiters", b.used, len(b.waiters))
		}
		var nb *Budget
		if err := nb.acquire(ctx, 1<<40); err != nil {
			t.Error(err)
		}
		nb.release(1 << 40)
	})
}
