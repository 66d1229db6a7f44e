package crd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// Load reads the CustomResourceDefinitions of the .yaml, .yml and .json
// files in dir (not in its subdirectories), in file name order. A YAML
// file may hold several documents separated by "---" lines; documents of
// other kinds are skipped, as envtest skips them, and so are empty ones.
// Definitions must be apiextensions.k8s.io/v1.
func Load(dir string) ([]*CustomResourceDefinition, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*CustomResourceDefinition
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		defs, err := Parse(b)
		if err != nil {
			return nil, fmt.Errorf("crd: %s: %w", path, err)
		}
		out = append(out, defs...)
	}
	return out, nil
}

// Parse reads the CustomResourceDefinitions in b, YAML (one or more
// documents) or JSON, skipping documents of other kinds.
func Parse(b []byte) ([]*CustomResourceDefinition, error) {
	var out []*CustomResourceDefinition
	for i, doc := range splitYAML(b) {
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
			continue
		}
		var tm meta.TypeMeta
		if err := kjson.UnmarshalCaseSensitivePreserveInts(j, &tm); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if tm.Kind != Kind {
			continue
		}
		if tm.APIVersion != Group+"/"+Version {
			return nil, fmt.Errorf("document %d: %s %s is not supported; use %s/%s", i+1, tm.APIVersion, Kind, Group, Version)
		}
		d := &CustomResourceDefinition{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(j, d); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// splitYAML splits a YAML stream at its "---" document separators. The
// documents are b's own bytes, not copies: the YAML of a large definition
// is read once.
func splitYAML(b []byte) [][]byte {
	var docs [][]byte
	start, off := 0, 0
	for line := range bytes.Lines(b) {
		if isSeparator(line) {
			docs = append(docs, b[start:off:off])
			start = off + len(line)
		}
		off += len(line)
	}
	return append(docs, b[start:])
}

// isSeparator reports whether line is a "---" line, which may have a
// comment or trailing blanks.
func isSeparator(line []byte) bool {
	t := bytes.TrimRight(line, " \t\r\n")
	return bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- "))
}

// Install creates defs, as POSTs to customresourcedefinitions would
// (defaulting, validation), and waits until every one is established:
// its resources are then served. It fails on the first definition that
// is invalid or whose names conflict.
func (c *Controller) Install(ctx context.Context, defs ...*CustomResourceDefinition) error {
	for _, d := range defs {
		if _, err := c.s.Create(ctx, c.defs, d); err != nil {
			return err
		}
	}
	for _, d := range defs {
		if _, err := c.waitEstablished(ctx, d.Name); err != nil { // no copy of the answer, unused
			return err
		}
	}
	return nil
}

// WaitEstablished waits until the named definition is established and
// returns it as it then is. It fails when the definition's names are
// refused (NamesAccepted False), when it is deleted, or when ctx is done.
func (c *Controller) WaitEstablished(ctx context.Context, name string) (*CustomResourceDefinition, error) {
	d, err := c.waitEstablished(ctx, name)
	if err != nil {
		return nil, err
	}
	return d.DeepCopy(), nil
}

// waitEstablished is WaitEstablished answering with the stored
// definition itself, which the caller must not change.
func (c *Controller) waitEstablished(ctx context.Context, name string) (*CustomResourceDefinition, error) {
	st := c.s.Store()
	for {
		rev := st.Revision()
		// Read the stored version, uncopied.
		o, err := c.store().View(ctx, "", name, rv.Read{Semantics: rv.MostRecent})
		if err != nil {
			return nil, err
		}
		d := o.(*CustomResourceDefinition)
		if d.IsEstablished() {
			return d, nil
		}
		if cond := d.Status.condition(NamesAccepted); cond != nil && cond.Status == "False" {
			return nil, status.NewConflict(status.GroupResource{Group: Group, Resource: Plural}, name, cond.Message)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-st.Changed(rev):
		}
	}
}
