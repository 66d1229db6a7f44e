// Package demo is the example Kubernetes-compatible API server: package
// server (the library's HTTP layer) serving core v1 Namespaces,
// ConfigMaps, Secrets and Events and the custom resource
// widgets.example.apisem.dev/v1 (package api), with Kubernetes' namespace
// lifecycle (package namespace).
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
// Package namespace gives the server a cluster's namespaces: deleting a
// namespace is two-phase (it turns Terminating, a controller goroutine
// deletes its contents, waits for objects held by finalizers, then
// removes the namespace); creating content in a namespace that is
// missing or terminating is refused, and so is deleting default,
// kube-system or kube-public. New does not create the system namespaces
// (tests start from an empty server); Namespaces().CreateSystemNamespaces
// does.
//
// The tests of this package drive the whole library through HTTP: the
// golden transcript in testdata and the client-go tests of
// examples/interop are what keep its behaviour identical to a cluster's.
package demo
