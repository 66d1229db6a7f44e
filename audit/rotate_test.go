package audit_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apisem/apisem/audit"
)

const mb = 1 << 20

// files lists dir's files with their sizes.
func files(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = fi.Size()
	}
	return out
}

// A FileWriter rotates as lumberjack does for kube-apiserver: a write
// that would pass MaxSize megabytes renames the file to
// <name>-<time><ext> first; a write larger than MaxSize is refused.
func TestFileWriterRotates(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 27, 10, 46, 38, 37_000_000, time.UTC)
	w := &audit.FileWriter{Path: filepath.Join(dir, "logs", "audit.log"), MaxSize: 1,
		Now: func() time.Time { return now }}
	defer w.Close()
	half := bytes.Repeat([]byte("a"), mb/2)
	for i := 0; i < 2; i++ { // exactly 1 MiB: no rotation yet
		if _, err := w.Write(half); err != nil {
			t.Fatal(err)
		}
	}
	if got := files(t, filepath.Join(dir, "logs")); len(got) != 1 || got["audit.log"] != mb {
		t.Fatalf("after 1 MiB: %v", got)
	}
	if _, err := w.Write([]byte("b\n")); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"audit.log": 2, "audit-2026-11-27T10-46-38.037.log": mb}
	if got := files(t, filepath.Join(dir, "logs")); !mapsEqual(got, want) {
		t.Errorf("after rotation: %v, want %v", got, want)
	}
	if _, err := w.Write(make([]byte, mb+1)); err == nil {
		t.Error("a write larger than MaxSize was accepted")
	}
	fi, err := os.Stat(w.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, audit.ErrClosed) {
		t.Errorf("Write after Close = %v, want ErrClosed", err)
	}
}

// An existing file is appended to, and counts towards MaxSize.
func TestFileWriterAppends(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	if err := os.WriteFile(path, bytes.Repeat([]byte("a"), mb-1), 0o600); err != nil {
		t.Fatal(err)
	}
	w := &audit.FileWriter{Path: path, MaxSize: 1, Now: func() time.Time { return time.Unix(0, 0) }}
	defer w.Close()
	if err := w.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 1 || got["audit.log"] != mb {
		t.Fatalf("appending: %v", got)
	}
	if _, err := w.Write([]byte("c")); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 2 || got["audit.log"] != 1 || got["audit-1970-01-01T00-00-00.000.log"] != mb {
		t.Fatalf("rotating an appended file: %v", got)
	}
}

// MaxBackups keeps the newest backups; MaxAge removes those older than
// its days by the time in their names; other files are left alone.
func TestFileWriterRemovesOldBackups(t *testing.T) {
	for _, tc := range []struct {
		name               string
		maxBackups, maxAge int
		want               []string
	}{
		{"all kept", 0, 0, []string{"audit-2026-11-01T00-00-00.000.log", "audit-2026-11-21T00-00-00.000.log", "audit-2026-11-26T00-00-00.000.log", "audit-2026-11-27T12-00-00.000.log"}},
		{"maxbackup 2", 2, 0, []string{"audit-2026-11-26T00-00-00.000.log", "audit-2026-11-27T12-00-00.000.log"}},
		{"maxage 7", 0, 7, []string{"audit-2026-11-21T00-00-00.000.log", "audit-2026-11-26T00-00-00.000.log", "audit-2026-11-27T12-00-00.000.log"}},
		{"both", 1, 7, []string{"audit-2026-11-27T12-00-00.000.log"}},
	} {
		dir := t.TempDir()
		for _, n := range []string{"audit-2026-11-01T00-00-00.000.log", "audit-2026-11-21T00-00-00.000.log",
			"audit-2026-11-26T00-00-00.000.log", "audit-notatime.log", "other-2020-01-01T00-00-00.000.log"} {
			if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		w := &audit.FileWriter{Path: filepath.Join(dir, "audit.log"), MaxSize: 1, MaxBackups: tc.maxBackups, MaxAge: tc.maxAge,
			Now: func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }}
		for _, n := range []int{mb, 1} { // the second write rotates
			if _, err := w.Write(make([]byte, n)); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		var got []string
		for n := range files(t, dir) {
			if n != "audit.log" && n != "audit-notatime.log" && n != "other-2020-01-01T00-00-00.000.log" {
				got = append(got, n)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: backups %v, want %v", tc.name, got, tc.want)
		}
		if fs := files(t, dir); fs["audit-notatime.log"] != 0 || len(fs) != len(tc.want)+3 {
			t.Errorf("%s: files %v", tc.name, fs)
		}
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
