package app

import (
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apisem/apisem/server"
)

// The audit flags, as kube-apiserver's: nothing without both a policy and
// a path, negative sizes refused, and with both, a log of JSON lines.
func TestAuditFlags(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "logs", "audit.log")
	parse := func(args ...string) Audit {
		var c Config
		fs := flag.NewFlagSet("apiserver", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.Register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return c.Audit
	}
	quiet := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		args    []string
		wantErr string
		audited bool
	}{
		{nil, "", false},
		{[]string{"-audit-log-path", logPath}, "", false},
		{[]string{"-audit-policy-file", policy}, "", false},
		{[]string{"-audit-policy-file", policy, "-audit-log-path", logPath, "-audit-log-maxsize=-1"}, "-audit-log-maxsize -1 can't be a negative number", false},
		{[]string{"-audit-policy-file", filepath.Join(dir, "missing"), "-audit-log-path", logPath}, "failed to read file path", false},
		{[]string{"-audit-policy-file", policy, "-audit-log-path", logPath, "-audit-log-maxsize=1", "-audit-log-maxbackup=2", "-audit-log-maxage=3"}, "", true},
	} {
		a := parse(tc.args...)
		var opts server.Options
		closeLog, err := a.Apply(&opts, quiet)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case (opts.Hooks.Audit != nil) != tc.audited:
			t.Errorf("%q: audited %v, want %v", tc.args, opts.Hooks.Audit != nil, tc.audited)
		}
		if !tc.audited {
			closeLog()
			continue
		}
		s, err := server.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/version", nil))
		s.Shutdown(context.Background())
		if err := closeLog(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 2 ||
			!strings.Contains(lines[1], `"stage":"ResponseComplete","requestURI":"/version","verb":"get"`) {
			t.Errorf("%q: the log is\n%s", tc.args, b)
		}
	}
}
