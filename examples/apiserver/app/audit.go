package app

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/apisem/apisem/audit"
	"github.com/apisem/apisem/server"
)

// Audit holds the audit log's flags, named and meant as kube-apiserver's.
type Audit struct {
	PolicyFile string
	LogPath    string
	MaxSize    int
	MaxBackup  int
	MaxAge     int
}

// Register adds the flags to fs.
func (a *Audit) Register(fs *flag.FlagSet) {
	fs.StringVar(&a.PolicyFile, "audit-policy-file", "", "the audit.k8s.io/v1 Policy (YAML or JSON) that decides which requests the audit log records, and how")
	fs.StringVar(&a.LogPath, "audit-log-path", "", "write the audit log to this file as JSON lines; '-' means standard output")
	fs.IntVar(&a.MaxSize, "audit-log-maxsize", 0, "size in megabytes past which the audit log is rotated (0: 100)")
	fs.IntVar(&a.MaxBackup, "audit-log-maxbackup", 0, "most rotated audit logs kept (0: all)")
	fs.IntVar(&a.MaxAge, "audit-log-maxage", 0, "most days rotated audit logs are kept, by the time in their names (0: for ever)")
}

// Apply sets opts.Hooks.Audit from the flags. The returned function
// closes the log; call it once the server has shut down. As
// kube-apiserver, it records nothing unless both -audit-policy-file and
// -audit-log-path are set, and says so if only one is.
func (a *Audit) Apply(opts *server.Options, log *slog.Logger) (closeLog func() error, err error) {
	noop := func() error { return nil }
	for _, f := range []struct {
		name string
		v    int
	}{{"maxage", a.MaxAge}, {"maxbackup", a.MaxBackup}, {"maxsize", a.MaxSize}} {
		if f.v < 0 {
			return noop, fmt.Errorf("-audit-log-%s %d can't be a negative number", f.name, f.v)
		}
	}
	switch {
	case a.PolicyFile == "" && a.LogPath == "":
		return noop, nil
	case a.PolicyFile == "":
		log.Warn("no audit policy file (-audit-policy-file): the audit log records nothing")
		return noop, nil
	case a.LogPath == "":
		log.Warn("no audit log (-audit-log-path): the audit policy is not used")
		return noop, nil
	}
	policy, err := audit.LoadPolicy(a.PolicyFile)
	if err != nil {
		return noop, err
	}
	var w io.Writer = os.Stdout
	if a.LogPath != "-" {
		fw := &audit.FileWriter{Path: a.LogPath, MaxSize: a.MaxSize, MaxBackups: a.MaxBackup, MaxAge: a.MaxAge}
		if err := fw.Open(); err != nil { // a bad path fails the start, not the first request
			return noop, err
		}
		w, closeLog = fw, fw.Close
	}
	f, err := audit.New(audit.Options{Policy: policy, Backend: audit.NewLogBackend(w), Logger: log})
	if err != nil {
		return noop, err
	}
	opts.Hooks.Audit = f.Wrap
	if closeLog == nil {
		closeLog = noop
	}
	return closeLog, nil
}
