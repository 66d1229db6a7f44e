package crd

import (
	"bytes"
	"strings"
	"testing"
)

// Parse reads every definition of a YAML stream: documents separated by
// "---" lines (with a comment or trailing blanks, CRLF line ends too),
// skipping empty documents and those of other kinds.
func TestParseStream(t *testing.T) {
	def := func(name string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + name + "\n"
	}
	tests := []struct {
		name, in string
		want     []string
	}{
		{"one", def("a.example.com"), []string{"a.example.com"}},
		{"two", def("a.example.com") + "---\n" + def("b.example.com"), []string{"a.example.com", "b.example.com"}},
		{"leading and trailing separators", "---\n" + def("a.example.com") + "---\n", []string{"a.example.com"}},
		{"separator with a comment", def("a.example.com") + "--- # next\n" + def("b.example.com"), []string{"a.example.com", "b.example.com"}},
		{"separator with blanks", def("a.example.com") + "---  \t\n" + def("b.example.com"), []string{"a.example.com", "b.example.com"}},
		{"CRLF", strings.ReplaceAll(def("a.example.com")+"---\n"+def("b.example.com"), "\n", "\r\n"), []string{"a.example.com", "b.example.com"}},
		{"no final newline", def("a.example.com") + "---\n" + strings.TrimSuffix(def("b.example.com"), "\n"), []string{"a.example.com", "b.example.com"}},
		{"other kinds and empty documents", "---\n---\napiVersion: v1\nkind: ConfigMap\n---\n# only a comment\n---\n" + def("a.example.com"), []string{"a.example.com"}},
		{"not a separator", def("a.example.com") + "  description: |-\n    ----\n    ---x\n", []string{"a.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defs, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.in, err)
			}
			var got []string
			for _, d := range defs {
				got = append(got, d.Name)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("Parse(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// FuzzSplitYAML checks that the documents are b's bytes between its
// separator lines, in order, with nothing lost, and that Parse never
// panics.
func FuzzSplitYAML(f *testing.F) {
	for _, s := range []string{"", "---", "a: 1\n---\nb: 2\n", "--- # c\r\nx\r\n---\n", "----\n--- \n---x\n",
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.b.c\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		docs := splitYAML(b)
		off := 0
		for i, d := range docs {
			if !bytes.HasPrefix(b[off:], d) {
				t.Fatalf("document %d %q is not the input's bytes at %d", i, d, off)
			}
			for line := range bytes.Lines(d) {
				if isSeparator(line) {
					t.Fatalf("document %d %q holds a separator", i, d)
				}
			}
			off += len(d)
			if i < len(docs)-1 {
				line := b[off:]
				if j := bytes.IndexByte(line, '\n'); j >= 0 {
					line = line[:j+1]
				}
				if !isSeparator(line) {
					t.Fatalf("%q between documents %d and %d is not a separator", line, i, i+1)
				}
				off += len(line)
			}
		}
		if off != len(b) {
			t.Fatalf("documents end at %d of %d bytes", off, len(b))
		}
		Parse(b) // must not panic
	})
}
