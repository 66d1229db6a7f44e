package server

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"time"
)

// /debug/pprof, as kube-apiserver serves it with --profiling (its default;
// k8s.io/apiserver/pkg/server/routes/profiling.go): a non-resource URL
// behind the authenticator and the authorizer, which a cluster's RBAC
// grants to system:masters alone. The handlers are written on
// runtime/pprof rather than taken from net/http/pprof, whose import
// registers them on http.DefaultServeMux: a library must not publish
// profiles on a mux its user may serve without authorization.
//
//	/debug/pprof          302 to /debug/pprof/
//	/debug/pprof/         the index of the profiles
//	/debug/pprof/<name>   a runtime profile (heap, goroutine, allocs, block,
//	                      mutex, threadcreate); ?debug=N for text, ?gc=1 to
//	                      collect garbage before a heap profile
//	/debug/pprof/profile  a CPU profile of ?seconds= (30)
//	/debug/pprof/trace    an execution trace of ?seconds= (1)
//	/debug/pprof/symbol   symbols of program counters (go tool pprof's)
//
// Like kube-apiserver's, it serves no /debug/pprof/cmdline: the command
// line may hold secrets.

// isDebugPath reports whether segs address /debug/pprof or below.
func isDebugPath(segs []string) bool {
	return len(segs) >= 2 && segs[0] == "debug" && segs[1] == "pprof"
}

// serveDebug serves /debug/pprof/...; segs are the path's segments.
func (s *Server) serveDebug(w http.ResponseWriter, r *http.Request, segs []string) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	switch {
	case len(segs) == 2 && !strings.HasSuffix(r.URL.Path, "/"):
		http.Redirect(w, r, "/debug/pprof/", http.StatusFound)
	case len(segs) == 2:
		debugIndex(w)
	case len(segs) > 3:
		http.NotFound(w, r)
	case segs[2] == "profile":
		cpuProfile(w, r)
	case segs[2] == "trace":
		executionTrace(w, r)
	case segs[2] == "symbol":
		symbols(w, r)
	default:
		namedProfile(w, r, segs[2])
	}
}

// debugIndex lists the profiles, with links.
func debugIndex(w http.ResponseWriter) {
	var b bytes.Buffer
	b.WriteString("<html><head><title>/debug/pprof/</title></head><body>\n<p>Profiles:</p>\n<table>\n")
	for _, p := range pprof.Profiles() {
		n := html.EscapeString(p.Name())
		fmt.Fprintf(&b, "<tr><td>%d</td><td><a href=\"%s?debug=1\">%s</a></td></tr>\n", p.Count(), n, n)
	}
	b.WriteString("<tr><td></td><td><a href=\"profile\">profile</a> (CPU, ?seconds=30)</td></tr>\n")
	b.WriteString("<tr><td></td><td><a href=\"trace?seconds=1\">trace</a> (execution trace)</td></tr>\n")
	b.WriteString("</table>\n<p><a href=\"goroutine?debug=2\">full goroutine stack dump</a></p>\n</body></html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// namedProfile writes the runtime profile name.
func namedProfile(w http.ResponseWriter, r *http.Request, name string) {
	p := pprof.Lookup(name)
	if p == nil {
		debugError(w, http.StatusNotFound, "Unknown profile")
		return
	}
	q := r.URL.Query()
	debug, _ := strconv.Atoi(q.Get("debug"))
	if name == "heap" && q.Get("gc") != "" && q.Get("gc") != "0" {
		runtime.GC()
	}
	if debug != 0 {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	}
	p.WriteTo(w, debug)
}

// seconds reads ?seconds= (def if absent); a duration that would outlive
// the request's deadline is refused, as net/http/pprof refuses one past
// its server's WriteTimeout.
func seconds(w http.ResponseWriter, r *http.Request, def int) (time.Duration, bool) {
	n := def
	if v := r.URL.Query().Get("seconds"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			debugError(w, http.StatusBadRequest, "invalid value for \"seconds\"")
			return 0, false
		}
	}
	d := time.Duration(n) * time.Second
	if dl, ok := r.Context().Deadline(); ok && time.Now().Add(d).After(dl) {
		debugError(w, http.StatusBadRequest, "profile duration exceeds the request's timeout")
		return 0, false
	}
	return d, true
}

// cpuProfile profiles the CPU for ?seconds=.
func cpuProfile(w http.ResponseWriter, r *http.Request) {
	d, ok := seconds(w, r, 30)
	if !ok {
		return
	}
	var buf bytes.Buffer // the header waits for a profile that started
	if err := pprof.StartCPUProfile(&buf); err != nil {
		debugError(w, http.StatusInternalServerError, "Could not enable CPU profiling: "+err.Error())
		return
	}
	sleep(r.Context(), d)
	pprof.StopCPUProfile()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="profile"`)
	w.Write(buf.Bytes())
}

// executionTrace traces the execution for ?seconds=.
func executionTrace(w http.ResponseWriter, r *http.Request) {
	d, ok := seconds(w, r, 1)
	if !ok {
		return
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		debugError(w, http.StatusInternalServerError, "Could not enable tracing: "+err.Error())
		return
	}
	sleep(r.Context(), d)
	trace.Stop()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="trace"`)
	w.Write(buf.Bytes())
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// symbols answers go tool pprof's symbol lookups: a GET tells that
// symbols are served; a POST of program counters ("0x1234+0x5678") gets
// their functions' names, one line each.
func symbols(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	var b bytes.Buffer
	b.WriteString("num_symbols: 1\n")
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		for word := range strings.SplitSeq(string(body), "+") {
			pc, err := strconv.ParseUint(strings.TrimSpace(word), 0, 64)
			if err != nil {
				continue
			}
			if f := runtime.FuncForPC(uintptr(pc)); f != nil {
				fmt.Fprintf(&b, "%#x %s\n", pc, f.Name())
			}
		}
	}
	w.Write(b.Bytes())
}

// debugError answers in plain text, as net/http/pprof does.
func debugError(w http.ResponseWriter, code int, msg string) {
	w.Header().Del("Content-Disposition")
	http.Error(w, msg, code)
}
