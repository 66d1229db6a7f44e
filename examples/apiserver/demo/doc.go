// Package demo is the example Kubernetes-compatible API server: package
// server (the library's HTTP layer) serving core v1 Namespaces,
// ConfigMaps, Secrets and Events and the custom resource
// widgets.example.apisem.dev/v1 (package api), plus what is this server's
// own: Kubernetes' namespace lifecycle.
//
// # Usage
//
//	s, err := demo.New(demo.Options{})
//	if err != nil { ... }
//	ts := httptest.NewServer(s)          // or s.ListenAndServe()
//	defer ts.Close()
//	defer s.Shutdown(context.Background()) // ends watches first
//	cfg := &rest.Config{Host: ts.URL}    // client-go
//
// New takes well under a millisecond for an empty server, so a test can
// start one per case.
//
// # Namespaces
//
// Deleting a namespace is two-phase, as in Kubernetes: the namespace turns
// Terminating (through server.Resource.Delete), a controller goroutine
// deletes its contents, waits for objects held by finalizers, then
// removes the namespace. Creating content in a namespace that is missing
// or terminating is refused (a server.Admission), as Kubernetes'
// NamespaceLifecycle admission does.
//
// The tests of this package drive the whole library through HTTP: the
// golden transcript in testdata and the client-go tests of
// examples/interop are what keep its behaviour identical to a cluster's.
package demo
