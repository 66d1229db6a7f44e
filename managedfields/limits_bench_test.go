package managedfields

import (
	"fmt"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// bigConfigMap is an applied ConfigMap whose data has n keys, the body
// of issue 24 item 4 at n = 100,000.
func bigConfigMap(n int) map[string]any {
	data := make(map[string]any, n)
	for i := range n {
		data["key-"+strconv.Itoa(i)] = "v"
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "big", "namespace": "default"}, "data": data}
}

// cpuTime is the CPU time the process has used, all threads (the
// garbage collector's included): on a shared machine wall time says
// little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkApplyBigMap(b *testing.B) {
	for _, n := range []int{1000, 10000, 30000, 100000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			f := newCM()
			config := bigConfigMap(n)
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if _, _, err := f.Apply(nil, nil, config, Operation{Manager: "m", Time: t0}, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkSmall is the common case the sorted views must not slow down:
// a small object created, updated and applied.
func BenchmarkSmall(b *testing.B) {
	f := newCM()
	created := obj(`{"metadata":{"name":"a","namespace":"d","labels":{"app":"x","tier":"web"},"annotations":{"a":"b"}},"data":{"k1":"v","k2":"v","k3":"v","k4":"v"}}`)
	live := obj(`{"metadata":{"name":"a","namespace":"d","uid":"u","labels":{"app":"x","tier":"web"},"annotations":{"a":"b"}},"data":{"k1":"v","k2":"v","k3":"v","k4":"v"}}`)
	changed := obj(`{"metadata":{"name":"a","namespace":"d","uid":"u","labels":{"app":"x","tier":"db"},"annotations":{"a":"b"}},"data":{"k1":"v","k2":"w","k3":"v","k4":"v"}}`)
	config := obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"d","labels":{"app":"x"}},"data":{"k1":"v","k5":"v"}}`)
	entries, err := f.Update(nil, created, nil, nil, Operation{Manager: "create", Time: t0})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.Update(nil, created, nil, nil, Operation{Manager: "create", Time: t0}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Objects of a new shape each time: the field set is not kept.
	shapes := make([]map[string]any, 2*maxShapes)
	for i := range shapes {
		shapes[i] = obj(fmt.Sprintf(`{"metadata":{"name":"a","namespace":"d","labels":{"app%d":"x","tier":"web"},"annotations":{"a":"b"}},"data":{"k1":"v","k2":"v","k3":"v","k4":"v"}}`, i))
	}
	b.Run("create, new shape", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			if _, err := f.Update(nil, shapes[i%len(shapes)], nil, nil, Operation{Manager: "create", Time: t0}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.Update(live, changed, entries, nil, Operation{Manager: "editor", Time: t0}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := f.Apply(live, entries, config, Operation{Manager: "applier", Time: t0}, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkApplyBigSet applies a list of n strings that the schema makes
// a set, in reverse order. Not linear: structured-merge-diff keeps a
// list's items in sorted slices with inserts (its typed package's list
// walkers), which no view can reorder without reordering the merged
// list; 30,000 items cost seconds of CPU.
func BenchmarkApplyBigSet(b *testing.B) {
	f := New(Options{APIVersion: "v1", Kind: "ConfigMap", Type: atomicMapType(b)})
	for _, n := range []int{1000, 10000, 30000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			items := make([]any, n)
			for i := range n {
				items[i] = "item-" + strconv.Itoa(1_000_000-i)
			}
			config := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "items": items}
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				if _, _, err := f.Apply(nil, nil, config, Operation{Manager: "m", Time: t0}, false); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
