package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// FileWriter appends to a file and rotates it by size, with the semantics
// of kube-apiserver's --audit-log-path, --audit-log-maxsize,
// --audit-log-maxbackup and --audit-log-maxage (which kube-apiserver gets
// from gopkg.in/natefinch/lumberjack.v2): a write that would take the file
// past MaxSize megabytes first renames it to
// <name>-<UTC time as 2006-01-02T15-04-05.000><ext> in the same directory
// and starts a new one; then the backups beyond MaxBackups, and those
// older than MaxAge days by the time in their names, are removed. Unlike
// lumberjack it starts no goroutine: the old backups are removed by the
// write that rotates, so nothing runs after Close.
//
// The zero value needs Path; FileWriter is safe for concurrent use. The
// file and its directory are created as kube-apiserver creates them (0600,
// 0700).
type FileWriter struct {
	// Path is the file (--audit-log-path).
	Path string
	// MaxSize is the size in megabytes (2^20 bytes) past which the file
	// is rotated (--audit-log-maxsize); 0 means 100.
	MaxSize int
	// MaxBackups is how many rotated files are kept
	// (--audit-log-maxbackup); 0 means all.
	MaxBackups int
	// MaxAge is how many days rotated files are kept, by the time in
	// their names (--audit-log-maxage); 0 means for ever.
	MaxAge int
	// Now is the clock of the backups' names; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex // guards file, size and closed
	file   *os.File   // open for appending; nil before the first write
	size   int64      // of file
	closed bool
}

const (
	megabyte         = 1 << 20
	defaultMaxSizeMB = 100
	backupTimeFormat = "2006-01-02T15-04-05.000"
	logFileMode      = 0o600
	logDirectoryMode = 0o700
)

// ErrClosed is returned by the writes to a closed FileWriter.
var ErrClosed = errors.New("audit: write to a closed FileWriter")

func (w *FileWriter) maxBytes() int64 {
	if w.MaxSize > 0 {
		return int64(w.MaxSize) * megabyte
	}
	return defaultMaxSizeMB * megabyte
}

func (w *FileWriter) now() time.Time {
	if w.Now != nil {
		return w.Now()
	}
	return time.Now()
}

// Open creates the file (and its directory) if missing, so that a bad
// path is found at start, as kube-apiserver finds it. Writes open the file
// too, so Open is optional.
func (w *FileWriter) Open() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if w.file != nil {
		return nil
	}
	return w.openExisting()
}

// Write appends p to the file, rotating it first if p would take it past
// MaxSize. A single p larger than MaxSize is refused.
func (w *FileWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	if int64(len(p)) > w.maxBytes() {
		return 0, fmt.Errorf("audit: a write of %d bytes exceeds the log's maximum size of %d bytes", len(p), w.maxBytes())
	}
	if w.file == nil {
		if err := w.openExisting(); err != nil {
			return 0, err
		}
	}
	if w.size+int64(len(p)) > w.maxBytes() {
		if err := w.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := w.file.Write(p)
	w.size += int64(n)
	return n, err
}

// Close closes the file; later writes fail.
func (w *FileWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	f := w.file
	w.file, w.closed = nil, true
	if f == nil {
		return nil
	}
	return f.Close()
}

// openExisting opens the file for appending, creating it and its
// directory if missing. w.mu must be held.
func (w *FileWriter) openExisting() error {
	if err := os.MkdirAll(filepath.Dir(w.Path), logDirectoryMode); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	f, err := os.OpenFile(w.Path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, logFileMode)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	w.file, w.size = f, st.Size()
	return nil
}

// rotate renames the file to its backup name, opens a new one with the
// old one's mode, and removes the backups past MaxBackups and MaxAge (a
// backup that cannot be removed is left, and tried again at the next
// rotation, as lumberjack does). w.mu must be held.
func (w *FileWriter) rotate() error {
	mode := fs.FileMode(logFileMode)
	if st, err := w.file.Stat(); err == nil {
		mode = st.Mode().Perm()
	}
	if err := w.file.Close(); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	w.file = nil
	now := w.now().UTC()
	if err := os.Rename(w.Path, w.backupName(now)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit: rotating the log: %w", err)
	}
	f, err := os.OpenFile(w.Path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	w.file, w.size = f, 0
	_ = w.removeOld(now)
	return nil
}

// backupName is the name the file gets when rotated at t.
func (w *FileWriter) backupName(t time.Time) string {
	dir, base := filepath.Split(w.Path)
	ext := filepath.Ext(base)
	return filepath.Join(dir, strings.TrimSuffix(base, ext)+"-"+t.Format(backupTimeFormat)+ext)
}

// backup is a rotated file and the time in its name.
type backup struct {
	name string
	t    time.Time
}

// removeOld removes the backups beyond MaxBackups, newest kept, and those
// older than MaxAge days.
func (w *FileWriter) removeOld(now time.Time) error {
	if w.MaxBackups <= 0 && w.MaxAge <= 0 {
		return nil
	}
	dir, base := filepath.Split(w.Path)
	if dir == "" {
		dir = "."
	}
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	var backups []backup
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasPrefix(n, prefix) || !strings.HasSuffix(n, ext) || len(n) < len(prefix)+len(ext) {
			continue
		}
		t, err := time.Parse(backupTimeFormat, n[len(prefix):len(n)-len(ext)])
		if err != nil {
			continue // not a backup of ours
		}
		backups = append(backups, backup{filepath.Join(dir, n), t})
	}
	slices.SortFunc(backups, func(a, b backup) int { return b.t.Compare(a.t) }) // newest first
	var errs []error
	for i, b := range backups {
		tooMany := w.MaxBackups > 0 && i >= w.MaxBackups
		tooOld := w.MaxAge > 0 && b.t.Before(now.Add(-time.Duration(w.MaxAge)*24*time.Hour))
		if tooMany || tooOld {
			if err := os.Remove(b.name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
