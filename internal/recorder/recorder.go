package recorder

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
)

// Step is one request of a transcript and the reference's answer.
type Step struct {
	Name        string          `json:"name"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	ContentType string          `json:"contentType,omitempty"`
	Body        string          `json:"body,omitempty"`
	Code        int             `json:"code"`
	Warnings    []string        `json:"warnings,omitempty"`
	Answer      json.RawMessage `json:"answer"`
}

// The reference serves a self-signed certificate on loopback.
var client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

// Do sends s to the reference at $API and fills in its answer. A request
// that cannot be sent ends the program: a recording is all or nothing.
func Do(s *Step) {
	api := os.Getenv("API")
	if api == "" {
		log.Fatal("API is not set: it is the reference's address, such as https://127.0.0.1:6443")
	}
	req, err := http.NewRequest(s.Method, api+s.Path, strings.NewReader(s.Body))
	if err != nil {
		log.Fatal(err)
	}
	if s.Body != "" {
		req.Header.Set("Content-Type", s.ContentType)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "recorded")
	resp, err := client.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	s.Code, s.Warnings, s.Answer = resp.StatusCode, resp.Header.Values("Warning"), json.RawMessage(strings.TrimSuffix(string(b), "\n"))
}

// Post is a step that creates body (YAML) in collection, whose query, if
// any, is kept, as field manager "test".
func Post(name, collection, body string) Step {
	path := collection + "?fieldManager=test"
	if c, query, ok := strings.Cut(collection, "?"); ok {
		path = c + "?fieldManager=test&" + query
	}
	return Step{Name: name, Method: "POST", Path: path, ContentType: "application/yaml", Body: body}
}

// Patch is a step that merge-patches object with body as field manager
// "test".
func Patch(name, object, body string) Step {
	return Step{Name: name, Method: "PATCH", Path: object + "?fieldManager=test", ContentType: "application/merge-patch+json", Body: body}
}

// Get is a step that reads path.
func Get(name, path string) Step { return Step{Name: name, Method: "GET", Path: path} }

// Delete is a step that deletes path.
func Delete(name, path string) Step { return Step{Name: name, Method: "DELETE", Path: path} }

// Write writes items to file as a JSON array of one item a line, with
// HTML characters unescaped, as kube-apiserver writes them, so that a
// recording reads as the answers did.
func Write[T any](file string, items []T) {
	var b strings.Builder
	b.WriteString("[\n")
	for i, it := range items {
		var line strings.Builder
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(it); err != nil {
			log.Fatal(err)
		}
		b.WriteString(strings.TrimSuffix(line.String(), "\n"))
		if i < len(items)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
}
