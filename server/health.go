package server

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Health endpoints, as kube-apiserver serves them
// (k8s.io/apiserver/pkg/server/healthz): /healthz, /livez and /readyz
// answer "ok" when every check passes; with ?verbose they list the checks,
// "[+]<name> ok" each, then "<endpoint> check passed"; ?exclude=<name>
// skips a check. A failing check makes the answer a 500 that lists the
// checks, the failed ones as "[-]<name> failed: reason withheld".
// /<endpoint>/<check> runs one check.

// healthCheck is one named check of a health endpoint.
type healthCheck struct {
	name  string
	check func(s *Server) bool
}

func pingCheck(*Server) bool { return true }

// healthChecks are the checks of each endpoint: the server is alive while
// it answers, and ready until it shuts down.
var healthChecks = map[string][]healthCheck{
	"healthz": {{"ping", pingCheck}},
	"livez":   {{"ping", pingCheck}},
	"readyz":  {{"ping", pingCheck}, {"shutdown", func(s *Server) bool { return !s.closing.Load() }}},
}

// isHealthPath reports whether segs address a health endpoint, which is
// served during shutdown too (readyz then fails).
func isHealthPath(segs []string) bool {
	return len(segs) > 0 && len(segs) <= 2 && healthChecks[segs[0]] != nil
}

func (s *Server) serveHealth(w http.ResponseWriter, r *http.Request, segs []string) {
	checks := healthChecks[segs[0]]
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	if len(segs) == 2 {
		for _, c := range checks {
			if c.name == segs[1] {
				if !c.check(s) {
					w.WriteHeader(http.StatusInternalServerError)
					w.Write([]byte("internal server error: " + c.name + " check failed\n"))
					return
				}
				w.Write([]byte("ok"))
				return
			}
		}
		s.writeError(w, r, nil, errNotFound())
		return
	}
	q := r.URL.Query()
	excluded := map[string]bool{}
	for _, n := range q["exclude"] {
		excluded[n] = true
	}
	var out strings.Builder
	failed := false
	for _, c := range checks {
		switch {
		case excluded[c.name]:
			delete(excluded, c.name)
			out.WriteString("[+]" + c.name + " excluded: ok\n")
		case c.check(s):
			out.WriteString("[+]" + c.name + " ok\n")
		default:
			failed = true
			out.WriteString("[-]" + c.name + " failed: reason withheld\n")
		}
	}
	if len(excluded) > 0 {
		var names []string
		for _, n := range slices.Sorted(maps.Keys(excluded)) {
			names = append(names, strconv.Quote(n))
		}
		out.WriteString("warn: some health checks cannot be excluded: no matches for " + strings.Join(names, ",") + "\n")
	}
	if failed {
		// http.Error's form: the text and a newline.
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(out.String() + segs[0] + " check failed\n"))
		return
	}
	if _, verbose := q["verbose"]; !verbose {
		w.Write([]byte("ok"))
		return
	}
	w.Write([]byte(out.String() + segs[0] + " check passed\n"))
}
