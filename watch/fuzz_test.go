package watch_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/watch"
	"github.com/apisem/apisem/watch/watchtest"
)

// refEvent is a write as the reference model records it.
type refEvent struct {
	typ       watch.EventType
	key       string
	rev       rv.Version
	obj, prev *obj
}

// fuzzWatch is a watcher under test and what the reference says it must
// receive.
type fuzzWatch struct {
	w     *watch.Watcher[*obj]
	desc  string
	want  []string
	got   []string
	start rv.Version
	web   bool
	// initial holds the synthetic ADDED events a Get State watch starts
	// with; the changes after start are added at the end.
	initial []string
	lastRev rv.Version
	err     *status.Error
	stopped bool
}

func describeMsg(m *watch.Message[*obj]) string {
	o := m.Object()
	return fmt.Sprintf("%s %s@%d %s/%d", m.Type(), m.Key(), m.Revision(), o.Value, o.Version())
}

// expected applies Kubernetes' transition rules to the reference history.
func expected(events []refEvent, after rv.Version, web bool) []string {
	match := func(o *obj) bool { return !web || o.Metadata.Labels["app"] == "web" }
	var out []string
	for _, e := range events {
		if e.rev <= after {
			continue
		}
		typ, o := e.typ, e.obj
		switch e.typ {
		case watch.Added, watch.Deleted:
			if !match(e.obj) {
				continue
			}
		case watch.Modified:
			now, before := match(e.obj), match(e.prev)
			switch {
			case now && before:
			case now:
				typ = watch.Added
			case before:
				typ, o = watch.Deleted, watchtest.WithVersion(e.prev, e.rev)
			default:
				continue
			}
		}
		out = append(out, fmt.Sprintf("%s %s@%d %s/%d", typ, e.key, e.rev, o.Value, o.Version()))
	}
	return out
}

// FuzzBroadcaster drives a broadcaster with tiny buffers and windows
// through writes, compactions, watch starts, partial reads and stops chosen
// by the input, and checks every stream against a reference computed from
// the full history: each watcher receives exactly its expected events in
// order, or a prefix of them followed by a 410 whose position is justified
// by compaction.
func FuzzBroadcaster(f *testing.F) {
	f.Add([]byte{1, 2, 0, 8, 16, 3, 0, 4, 5, 0, 0, 2, 12, 4, 7, 0, 5, 4, 0})
	f.Add([]byte{0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 11, 19, 4, 12, 20, 5, 4, 12})
	f.Add([]byte{3, 5, 11, 3, 8, 0, 8, 16, 24, 1, 9, 6, 0, 0, 0, 26, 4, 12, 20, 28, 5, 7, 0})
	f.Add([]byte{2, 1, 3, 19, 0, 8, 0, 8, 0, 8, 0, 8, 0, 8, 4, 12, 2, 0, 8, 0, 8, 0, 5, 4, 15, 23})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 300 {
			return
		}
		synctest.Test(t, func(t *testing.T) {
			fuzzBroadcaster(t, data)
		})
	})
}

func fuzzBroadcaster(t *testing.T, data []byte) {
	src := watchtest.NewObjectSource()
	opts := watch.Options{Buffer: 1 + int(data[0]%4), RecentEvents: 1 + int(data[1]%6)}
	b := watch.NewBroadcaster(src, watchtest.Funcs(), opts)
	defer b.Close()

	var (
		events []refEvent
		state  = map[string]*obj{}
		ws     []*fuzzWatch
		n      int
	)
	read := func(fw *fuzzWatch, limit int) {
		for ; limit > 0 && fw.err == nil && !fw.stopped && fw.w.More(); limit-- {
			m, _ := fw.w.Next()
			if m.Type() == watch.Error {
				fw.err = m.Err()
				return
			}
			fw.got = append(fw.got, describeMsg(m))
			fw.lastRev = m.Revision()
		}
	}
	for _, c := range data[2:] {
		op, arg := c%8, int(c/8)
		rev := src.Revision()
		switch op {
		case 0: // put
			key := fmt.Sprint("k", arg%4)
			label := "db"
			if arg&4 != 0 {
				label = "web"
			}
			n++
			r := src.Put(key, watchtest.NewObject(key, fmt.Sprint(n), "app", label))
			o := watchtest.WithVersion(watchtest.NewObject(key, fmt.Sprint(n), "app", label), r)
			typ := watch.Added
			if state[key] != nil {
				typ = watch.Modified
			}
			events = append(events, refEvent{typ, key, r, o, state[key]})
			state[key] = o
		case 1: // delete
			key := fmt.Sprint("k", arg%4)
			if prev := state[key]; prev != nil {
				r, _ := src.Delete(key)
				events = append(events, refEvent{watch.Deleted, key, r, watchtest.WithVersion(prev, r), prev})
				delete(state, key)
			}
		case 2: // compact
			if back := rv.Version(arg % 8); back < rev {
				src.Compact(rev - back)
			}
		case 3: // start a watch
			if len(ws) == 8 {
				continue
			}
			web := arg&1 != 0
			var filter watch.Filter[*obj]
			if web {
				filter = watchtest.LabelFilter("app", "web")
			}
			fw := &fuzzWatch{web: web}
			switch mode := (arg / 2) % 3; mode {
			case 0: // Start at Exact, in the past
				fw.start = rev - min(rev, rv.Version(arg/6))
				fw.w = b.Watch(context.Background(), exact(fw.start), filter)
			case 1: // Get State and Start at Most Recent
				fw.start = rev
				var keys []string
				for k, o := range state {
					if !web || o.Metadata.Labels["app"] == "web" {
						keys = append(keys, k)
					}
				}
				slices.Sort(keys)
				for _, k := range keys {
					o := state[k]
					fw.initial = append(fw.initial, fmt.Sprintf("ADDED %s@%d %s/%d", k, rev, o.Value, o.Version()))
				}
				fw.w = b.Watch(context.Background(), rv.Watch{Start: rv.StartMostRecent, InitialEvents: true}, filter)
			case 2: // Start at Exact, in the future
				fw.start = rev + 1 + rv.Version(arg%2)
				fw.w = b.Watch(context.Background(), exact(fw.start), filter)
			}
			fw.desc = fmt.Sprintf("watch %d (mode %d, web %v) from %d", len(ws), (arg/2)%3, web, fw.start)
			ws = append(ws, fw)
		case 4: // read a little
			if len(ws) > 0 {
				read(ws[arg%len(ws)], arg%5+1)
			}
		case 5:
			synctest.Wait()
		case 6:
			src.Bump()
		case 7: // stop
			if len(ws) > 0 {
				fw := ws[arg%len(ws)]
				fw.w.Stop()
				fw.stopped = true
			}
		}
	}
	synctest.Wait()
	for _, fw := range ws {
		read(fw, 1<<30)
		fw.want = append(fw.initial, expected(events, fw.start, fw.web)...)
	}
	for _, fw := range ws {
		prefix := len(fw.got) <= len(fw.want) && slices.Equal(fw.got, fw.want[:len(fw.got)])
		switch {
		case !prefix:
			t.Errorf("%s: got\n%v\nwant (a prefix of)\n%v", fw.desc, fw.got, fw.want)
		case fw.err != nil:
			var pos, compacted rv.Version
			if _, err := fmt.Sscanf(fw.err.Error(), "too old resource version: %d (%d)", &pos, &compacted); err != nil ||
				!status.IsExpired(fw.err) || pos < fw.lastRev || pos < fw.start || compacted <= pos || compacted > src.Compacted() {
				t.Errorf("%s: after %v got %q (compacted at %d)", fw.desc, fw.got, fw.err.Error(), src.Compacted())
			}
		case !fw.stopped && len(fw.got) != len(fw.want):
			t.Errorf("%s: got only\n%v\nwant\n%v", fw.desc, fw.got, fw.want)
		}
	}
}
