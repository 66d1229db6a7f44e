package metrics

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// appendRuntime appends the Go runtime's metrics under the names
// Prometheus' Go client gives them (its Go collector's defaults).
func appendRuntime(dst []byte) []byte {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	g := func(name, typ, help string, v float64) {
		dst = header(dst, name, typ, help)
		dst = sample(dst, name, nil, v)
	}
	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	dst = header(dst, "go_gc_duration_seconds", "summary", "Stop-the-world pauses of the garbage collector, in seconds.")
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		dst = sample(dst, "go_gc_duration_seconds", []string{"quantile", q}, gc.PauseQuantiles[i].Seconds())
	}
	dst = sample(dst, "go_gc_duration_seconds_sum", nil, gc.PauseTotal.Seconds())
	dst = sample(dst, "go_gc_duration_seconds_count", nil, float64(gc.NumGC))
	g("go_goroutines", "gauge", "Goroutines alive now.", float64(runtime.NumGoroutine()))
	dst = header(dst, "go_info", "gauge", "The Go version the binary was built with.")
	dst = sample(dst, "go_info", []string{"version", runtime.Version()}, 1)
	g("go_memstats_alloc_bytes", "gauge", "Heap bytes allocated and not yet freed.", float64(ms.Alloc))
	g("go_memstats_alloc_bytes_total", "counter", "Heap bytes ever allocated.", float64(ms.TotalAlloc))
	g("go_memstats_frees_total", "counter", "Heap objects ever freed.", float64(ms.Frees))
	g("go_memstats_gc_sys_bytes", "gauge", "Bytes of the garbage collector's own metadata.", float64(ms.GCSys))
	g("go_memstats_heap_alloc_bytes", "gauge", "Heap bytes allocated and not yet freed (as go_memstats_alloc_bytes).", float64(ms.HeapAlloc))
	g("go_memstats_heap_idle_bytes", "gauge", "Heap bytes held but unused.", float64(ms.HeapIdle))
	g("go_memstats_heap_inuse_bytes", "gauge", "Heap bytes in spans in use.", float64(ms.HeapInuse))
	g("go_memstats_heap_objects", "gauge", "Heap objects allocated and not yet freed.", float64(ms.HeapObjects))
	g("go_memstats_heap_released_bytes", "gauge", "Heap bytes returned to the operating system.", float64(ms.HeapReleased))
	g("go_memstats_heap_sys_bytes", "gauge", "Heap bytes taken from the operating system.", float64(ms.HeapSys))
	g("go_memstats_last_gc_time_seconds", "gauge", "When the last garbage collection ended, in Unix seconds.", float64(ms.LastGC)/1e9)
	g("go_memstats_mallocs_total", "counter", "Heap objects ever allocated.", float64(ms.Mallocs))
	g("go_memstats_next_gc_bytes", "gauge", "Heap size at which the next garbage collection starts.", float64(ms.NextGC))
	g("go_memstats_stack_inuse_bytes", "gauge", "Bytes of goroutine stacks in use.", float64(ms.StackInuse))
	g("go_memstats_sys_bytes", "gauge", "Bytes taken from the operating system in all.", float64(ms.Sys))
	g("go_sched_gomaxprocs_threads", "gauge", "runtime.GOMAXPROCS: threads that may run Go code at once.", float64(runtime.GOMAXPROCS(0)))
	g("go_threads", "gauge", "Operating-system threads the runtime created.", float64(pprof.Lookup("threadcreate").Count()))
	return dst
}

// Linux's fixed units of /proc/self/stat (USER_HZ is 100 on every
// architecture Go supports, as Prometheus' procfs assumes).
const userHZ = 100

// appendProcess appends the process's metrics under Prometheus' Go client's
// names, from /proc; elsewhere than Linux it appends nothing.
func appendProcess(dst []byte) []byte {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return dst
	}
	// The fields after the command, which is in parentheses and may hold
	// spaces: field 3 (state) is f[0].
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return dst
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 22 {
		return dst
	}
	num := func(field int) float64 { // field numbers as proc(5) gives them
		v, _ := strconv.ParseFloat(f[field-3], 64)
		return v
	}
	g := func(name, typ, help string, v float64) {
		dst = header(dst, name, typ, help)
		dst = sample(dst, name, nil, v)
	}
	g("process_cpu_seconds_total", "counter", "CPU seconds the process used, user and system.", (num(14)+num(15))/userHZ)
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		g("process_open_fds", "gauge", "File descriptors open now.", float64(len(fds)))
	}
	if lim, ok := maxOpenFiles(); ok {
		g("process_max_fds", "gauge", "The process's limit on open file descriptors.", lim)
	}
	g("process_resident_memory_bytes", "gauge", "Bytes of memory resident now.", num(24)*float64(os.Getpagesize()))
	if boot, ok := bootTime(); ok {
		g("process_start_time_seconds", "gauge", "When the process started, in Unix seconds.", boot+num(22)/userHZ)
	}
	g("process_virtual_memory_bytes", "gauge", "Bytes of virtual memory mapped.", num(23))
	return dst
}

// bootTime is /proc/stat's btime, in seconds since the epoch.
func bootTime() (float64, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return n, err == nil
		}
	}
	return 0, false
}

// maxOpenFiles is the soft limit of open files, from /proc/self/limits.
func maxOpenFiles() (float64, bool) {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, err := strconv.ParseFloat(f[0], 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}
