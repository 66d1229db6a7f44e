package builtin

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/internal/recorded"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/store"
)

// allocServer starts a server of every built-in kind and namespaces, its
// Services' allocations bound to it, with the default ServiceCIDR, and
// returns it and its URL.
func allocServer(t *testing.T, a *ServiceAllocator, storage func(store.Options[server.Object]) (server.Storage, error)) (*server.Server, string) {
	t.Helper()
	res, err := Resources(Options{Allocator: a})
	if err != nil {
		t.Fatal(err)
	}
	l := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, l.Resource()), Storage: storage}
	opts.Admission = l.Admission(opts.Admission)
	s, url := servertest.New(t, opts)
	l.Bind(s)
	a.Bind(s)
	if err := a.CreateServiceCIDR(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s, url
}

var (
	// The values the recorded requests name; the others are the
	// server's random choice.
	namedIPs   = []string{"10.96.0.50", "10.96.0.60", "10.112.0.5", "10.96.0.0"}
	namedPorts = []string{"30080", "30090", "30100", "30101", "29999"}
	anyIP      = regexp.MustCompile(`10\.(?:9[6-9]|10[0-9]|11[01])\.\d+\.\d+`)
	anyPort    = regexp.MustCompile(`"(nodePort|healthCheckNodePort)":(\d+)`)
	condTime   = regexp.MustCompile(`"lastTransitionTime":"[^"]*"`)
)

// normalizeAllocated blanks the cluster IPs and node ports the server
// chose at random, as kube-apiserver does.
func normalizeAllocated(body string) string {
	body = condTime.ReplaceAllString(body, `"lastTransitionTime":"-"`)
	body = anyIP.ReplaceAllStringFunc(body, func(ip string) string {
		if slices.Contains(namedIPs, ip) {
			return ip
		}
		return "10.x.x.x"
	})
	return anyPort.ReplaceAllStringFunc(body, func(m string) string {
		sub := anyPort.FindStringSubmatch(m)
		if slices.Contains(namedPorts, sub[2]) {
			return m
		}
		return `"` + sub[1] + `":"-"`
	})
}

// TestRecordedServices replays testdata/reference/services.json,
// recorded from kube-apiserver 1.37.1 (record-services.go): Services
// that name their cluster IPs and node ports and that leave them to the
// server, collisions and values out of range (422, and the 500 of a
// health check node port), a dry run that holds nothing, the IPAddress
// of a cluster IP and the default ServiceCIDR, deletions and type
// changes that free what a Service held.
func TestRecordedServices(t *testing.T) {
	_, url := allocServer(t, NewServiceAllocator(), nil)
	b, err := os.ReadFile("testdata/reference/services.json")
	if err != nil {
		t.Fatal(err)
	}
	var steps []step
	if err := json.Unmarshal(b, &steps); err != nil {
		t.Fatal(err)
	}
	hdr := []string{"Accept", "application/json", "User-Agent", "recorded"}
	for _, s := range steps {
		h := hdr
		if s.Body != "" {
			h = append(slices.Clone(hdr), "Content-Type", s.ContentType)
		}
		r := servertest.Do(t, s.Method, url+s.Path, s.Body, h...)
		got := normalizeAllocated(recorded.Normalize(strings.TrimSuffix(r.Body, "\n")))
		want := normalizeAllocated(recorded.Normalize(string(s.Answer)))
		if r.Code != s.Code || got != want || !slices.Equal(r.Header.Values("Warning"), s.Warnings) {
			t.Errorf("%s: %s %s\n= %d %q\n  %s\nwant %d %q\n  %s", s.Name, s.Method, s.Path,
				r.Code, r.Header.Values("Warning"), got, s.Code, s.Warnings, want)
		}
	}
}
