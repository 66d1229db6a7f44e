package audit_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apisem/apisem/audit"
	"github.com/apisem/apisem/server"
)

// Audit a server: a policy that records writes with their bodies and
// reads as metadata, and events as JSON lines on standard output.
func Example() {
	policy, err := audit.ParsePolicy([]byte(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Request
  verbs: [create, update, patch, delete]
- level: Metadata
`))
	if err != nil {
		panic(err)
	}
	f, err := audit.New(audit.Options{Policy: policy, Backend: audit.NewLogBackend(os.Stdout),
		// A fixed clock and ID keep the output the same from run to run.
		Now:   func() time.Time { return time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC) },
		NewID: func() string { return "0b9ae3c2-8b1e-4d1c-9a0e-3f7d0e0c5a11" }})
	if err != nil {
		panic(err)
	}
	s, err := server.New(server.Options{
		Resources: []*server.Resource{configMaps},
		Hooks:     server.HookOptions{Audit: f.Wrap},
	})
	if err != nil {
		panic(err)
	}
	defer s.Shutdown(context.Background())

	r := httptest.NewRequest("POST", "/api/v1/namespaces/default/configmaps",
		strings.NewReader(`{"metadata":{"name":"a"},"data":{"k":"v"}}`))
	r.Header.Set("Content-Type", "application/json")
	s.ServeHTTP(httptest.NewRecorder(), r)
	s.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps/b", nil))
	// Output:
	// {"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"0b9ae3c2-8b1e-4d1c-9a0e-3f7d0e0c5a11","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/configmaps","verb":"create","user":{},"sourceIPs":["192.0.2.1"],"objectRef":{"resource":"configmaps","namespace":"default","name":"a","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201},"requestObject":{"metadata":{"name":"a"},"data":{"k":"v"}},"requestReceivedTimestamp":"2026-11-27T10:00:00.000000Z","stageTimestamp":"2026-11-27T10:00:00.000000Z"}
	// {"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"0b9ae3c2-8b1e-4d1c-9a0e-3f7d0e0c5a11","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/default/configmaps/b","verb":"get","user":{},"sourceIPs":["192.0.2.1"],"objectRef":{"resource":"configmaps","namespace":"default","name":"b","apiVersion":"v1"},"responseStatus":{"metadata":{},"status":"Failure","message":"configmaps \"b\" not found","reason":"NotFound","details":{"name":"b","kind":"configmaps"},"code":404},"requestReceivedTimestamp":"2026-11-27T10:00:00.000000Z","stageTimestamp":"2026-11-27T10:00:00.000000Z"}
}

// A policy file kube-apiserver would refuse is refused with its message.
func ExampleParsePolicy() {
	_, err := audit.ParsePolicy([]byte(`
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  nonResourceURLs: ["healthz"]
`))
	fmt.Println(err)
	// Output:
	// rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character
}

// A FileWriter rotates the log past MaxSize megabytes, as
// kube-apiserver's --audit-log-maxsize, keeping MaxBackups old files.
func ExampleFileWriter() {
	dir, err := os.MkdirTemp("", "audit")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	now := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	w := &audit.FileWriter{Path: filepath.Join(dir, "audit.log"), MaxSize: 1, MaxBackups: 1,
		Now: func() time.Time { now = now.Add(time.Minute); return now }}
	defer w.Close()
	line := append(bytes.Repeat([]byte("x"), 400<<10), '\n') // two lines fit in a file, not three
	for range 7 {
		if _, err := w.Write(line); err != nil {
			panic(err)
		}
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := e.Info()
		fmt.Println(e.Name(), fi.Size()/len64(line), "lines")
	}
	// Output:
	// audit-2026-11-27T10-03-00.000.log 2 lines
	// audit.log 1 lines
}

func len64(b []byte) int64 { return int64(len(b)) }
