package embedded

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// Only loopback http URLs are accepted for the client listener.
func TestLoopbackURL(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want string // the URL, or the error's start
	}{
		{"", "http://127.0.0.1:0"},
		{"http://127.0.0.1:2379", "http://127.0.0.1:2379"},
		{"http://[::1]:0", "http://[::1]:0"},
		{"http://127.1.2.3:0", "http://127.1.2.3:0"},
		{"http://0.0.0.0:2379", "embedded etcd client URL \"http://0.0.0.0:2379\": the embedded etcd listens on loopback addresses only"},
		{"http://10.0.0.1:2379", "embedded etcd client URL \"http://10.0.0.1:2379\": the embedded etcd listens on loopback addresses only"},
		{"http://localhost:2379", "embedded etcd client URL \"http://localhost:2379\": the embedded etcd listens on loopback addresses only"},
		{"http://:2379", "embedded etcd client URL \"http://:2379\": the embedded etcd listens on loopback addresses only"},
		{"https://127.0.0.1:2379", "embedded etcd client URL \"https://127.0.0.1:2379\": want http://<loopback address>:<port>"},
		{"http://127.0.0.1", "embedded etcd client URL \"http://127.0.0.1\": want http://<loopback address>:<port>"},
		{"http://127.0.0.1:2379/x", "embedded etcd client URL \"http://127.0.0.1:2379/x\": want http://<loopback address>:<port>"},
		{"unix:///tmp/etcd.sock", "embedded etcd client URL \"unix:///tmp/etcd.sock\": want http://<loopback address>:<port>"},
	} {
		u, err := loopbackURL(tc.raw)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = u.String()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("loopbackURL(%q) = %q; want %q", tc.raw, got, tc.want)
		}
	}
}

func TestStartRefusesMissingDir(t *testing.T) {
	if _, err := Start(Options{}); err == nil || err.Error() != "embedded etcd: no data directory" {
		t.Errorf("Start without Dir: %v", err)
	}
}

// A directory is one etcd's at a time: a second one on it fails to start
// (etcd's own lock would make it wait without end); once the first is
// closed, the directory can be used again.
func TestDirInUse(t *testing.T) {
	dir := t.TempDir()
	e, err := Start(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(Options{Dir: dir})
	if want := "embedded etcd: the data directory " + dir + " is in use by another process"; err == nil || err.Error() != want {
		t.Errorf("second Start: %v; want %s", err, want)
	}
	e.Close()
	e.Close() // twice is fine
	e, err = Start(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
}

// etcd reports its own listeners closing as errors; Close keeps them out
// of the log, which has only etcd's real errors.
func TestCloseIsQuiet(t *testing.T) {
	core, logs := observer.New(zapcore.ErrorLevel)
	e, err := Start(Options{Dir: t.TempDir(), Logger: zap.New(core)})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	for _, l := range logs.All() {
		t.Errorf("logged: %s %v", l.Message, l.ContextMap())
	}
}
