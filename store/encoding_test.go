package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apisem/apisem/rv"
)

func TestEncodedOncePerEncoding(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	for i := range 3 {
		f.create(t, newWidget("ns", fmt.Sprint(i)))
	}
	var jsonCalls, upperCalls atomic.Int64
	jsonEnc := NewEncoding(func(dst []byte, w *widget) ([]byte, error) {
		jsonCalls.Add(1)
		b, err := json.Marshal(w)
		return append(dst, b...), err
	})
	nameEnc := NewEncoding(func(dst []byte, w *widget) ([]byte, error) {
		upperCalls.Add(1)
		return append(dst, w.Name...), nil
	})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				p, err := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
				if err != nil {
					t.Error(err)
					return
				}
				for i := 0; i < p.Len(); i++ {
					b, err := p.Encoded(i, jsonEnc)
					if err != nil || string(b) != mustJSON(p.At(i)) {
						t.Errorf("Encoded = %s, %v", b, err)
					}
					if n, _ := p.Encoded(i, nameEnc); string(n) != p.At(i).Name {
						t.Errorf("name form = %s", n)
					}
				}
			}
		})
	}
	wg.Wait()
	if jsonCalls.Load() != 3 || upperCalls.Load() != 3 {
		t.Errorf("encoded %d and %d times; want once per object and encoding", jsonCalls.Load(), upperCalls.Load())
	}
	// A new version is a new object: encoded again.
	f.r.Update(ctx, newWidget("ns", "0"), UpdateOptions{})
	p, _ := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	for i := 0; i < p.Len(); i++ {
		p.Encoded(i, jsonEnc)
	}
	if jsonCalls.Load() != 4 {
		t.Errorf("after an update: %d encodes; want 4", jsonCalls.Load())
	}
	// Errors are not cached: the next caller tries again (a conversion
	// webhook may be back), and a success is then cached.
	boom := errors.New("boom")
	var fail atomic.Bool
	fail.Store(true)
	flaky := NewEncoding(func(dst []byte, w *widget) ([]byte, error) {
		jsonCalls.Add(1)
		if fail.Load() {
			return nil, boom
		}
		return append(dst, w.Name...), nil
	})
	for range 2 {
		if _, err := p.Encoded(0, flaky); err != boom {
			t.Errorf("err = %v", err)
		}
	}
	fail.Store(false)
	for range 2 {
		if b, err := p.Encoded(0, flaky); err != nil || string(b) != p.At(0).Name {
			t.Errorf("after the failures: %s, %v", b, err)
		}
	}
	if jsonCalls.Load() != 7 {
		t.Errorf("flaky encoder ran %d times; want 3 (two failures, one success)", jsonCalls.Load()-4)
	}
	if b, _ := jsonEnc.Append([]byte("x"), p.At(0)); string(b) != "x"+mustJSON(p.At(0)) {
		t.Errorf("Append = %s", b)
	}
}

// TestStoreEncoded shares the cache between list pages and watch events:
// an event object and a page item of the same version encode once; copies
// are never served cached bytes.
func TestStoreEncoded(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	f.create(t, newWidget("ns", "a"))
	f.r.Update(ctx, newWidget("ns", "a"), UpdateOptions{})
	var calls atomic.Int64
	enc := NewEncoding(func(dst []byte, w *widget) ([]byte, error) {
		calls.Add(1)
		return append(dst, w.ResourceVersion...), nil
	})
	evs := f.events(t, 0)
	for range 3 {
		for _, ev := range evs {
			if b, _ := f.s.Encoded(ev.Object, enc); string(b) != ev.Object.ResourceVersion {
				t.Errorf("Encoded = %s", b)
			}
		}
		if b, _ := f.s.Encoded(evs[1].Prev, enc); string(b) != "1" {
			t.Errorf("Encoded(prev) = %s", b)
		}
	}
	p, _ := f.r.List(ctx, "ns", ListOptions{})
	p.Encoded(0, enc)
	if calls.Load() != 2 {
		t.Errorf("%d encodes; want one per version", calls.Load())
	}
	cp := f.get(t, "ns", "a")
	cp.ResourceVersion = "2"
	f.s.Encoded(cp, enc)
	f.s.Encoded(cp, enc)
	if calls.Load() != 4 {
		t.Errorf("a copy was served from the cache (%d encodes)", calls.Load())
	}
	f.s.Compact(2)
	f.s.Encoded(evs[0].Object, enc) // compacted: encoded directly
	if calls.Load() != 5 {
		t.Errorf("%d encodes after compaction", calls.Load())
	}
}

// TestPageView checks that View hands out the stored version itself: the
// object Encoded serializes and watch events carry, at the page's
// revision, without a copy, so Store.Encoded of a viewed object is served
// from the version's cache. At and Items still copy.
func TestPageView(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Options[*widget]{})
	f.create(t, newWidget("ns", "a"))
	f.create(t, newWidget("ns", "b"))
	upd := newWidget("ns", "a")
	upd.Spec = map[string]string{"v": "2"}
	f.r.Update(ctx, upd, UpdateOptions{})
	evs := f.events(t, 0)
	var calls atomic.Int64
	enc := NewEncoding(func(dst []byte, w *widget) ([]byte, error) {
		calls.Add(1)
		return append(dst, w.Name+"@"+w.ResourceVersion...), nil
	})
	for _, tc := range []struct {
		at   rv.Version
		want []*widget // the stored objects, from the events
	}{
		{2, []*widget{evs[0].Object, evs[1].Object}},
		{3, []*widget{evs[2].Object, evs[1].Object}},
	} {
		p, err := f.r.List(ctx, "ns", ListOptions{Read: rv.Read{Semantics: rv.Exact, Version: tc.at}})
		if err != nil || p.Len() != 2 {
			t.Fatalf("list at %d: %d items, %v", tc.at, p.Len(), err)
		}
		views := p.Views()
		for i, want := range tc.want {
			if p.View(i) != want || views[i] != want {
				t.Errorf("at %d: View(%d) is %p, Views()[%d] is %p; want the stored object %p", tc.at, i, p.View(i), i, views[i], want)
			}
			if p.At(i) == want || p.Items()[i] == want {
				t.Errorf("at %d: At or Items returned the stored object %d itself", tc.at, i)
			}
			b, _ := p.Encoded(i, enc)
			n := calls.Load()
			viewed, _ := f.s.Encoded(p.View(i), enc)
			if &viewed[0] != &b[0] || calls.Load() != n {
				t.Errorf("at %d: Store.Encoded(View(%d)) = %s was encoded again; want Page.Encoded's cached %s", tc.at, i, viewed, b)
			}
			if string(b) != want.Name+"@"+want.ResourceVersion {
				t.Errorf("at %d: item %d encoded as %s", tc.at, i, b)
			}
		}
	}
	if calls.Load() != 3 {
		t.Errorf("%d encodes; want one per stored version (3)", calls.Load())
	}
}
