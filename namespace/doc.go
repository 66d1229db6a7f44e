// Package namespace is Kubernetes' namespace lifecycle for a server of
// package server: the core v1 Namespace type with its JSON and protobuf
// forms, the namespaces resource as a cluster serves it, the
// NamespaceLifecycle admission, and the namespace controller that
// empties a deleted namespace and removes it.
//
// # Usage
//
//	l := namespace.New(namespace.Options{})
//	opts.Resources = append(opts.Resources, l.Resource())
//	opts.Admission = l.Admission(opts.Admission)
//	s, err := server.New(opts)
//	...
//	l.Bind(s)                             // before s serves
//	err = l.CreateSystemNamespaces(ctx)   // default, kube-system, ...
//	go l.Run(ctx)                         // the controller, until ctx ends
//
// # What a cluster does, and this package with it
//
//   - A new namespace is Active, with the spec.finalizers it names and
//     "kubernetes" after them, and the kubernetes.io/metadata.name label.
//     A write through the namespace itself cannot change spec.finalizers
//     or status: status is the status subresource's, so such a write
//     changes nothing (no new resourceVersion, no managedFields entry);
//     spec.finalizers are the finalize subresource's (PUT
//     namespaces/<name>/finalize), and taking the last of a terminating
//     namespace removes it.
//   - DELETE is two-phase: the namespace turns Terminating
//     (deletionTimestamp set, phase Terminating) and the controller
//     deletes every object in it, of every namespaced resource the server
//     serves at the time (custom resources included), as a DELETE would
//     (through server.Resource.Delete where the resource has one: a
//     Service frees its cluster IP, a Pod's deletion is graceful),
//     reports what is left in the NamespaceContentRemaining and
//     NamespaceFinalizersRemaining conditions, and once nothing is left
//     removes "kubernetes" from spec.finalizers, which lets the namespace
//     go when metadata.finalizers are gone too.
//   - There is no deletecollection of namespaces (405).
//   - Admission refuses content in a namespace that does not exist (404)
//     or is terminating (403), and the deletion of default, kube-system
//     and kube-public (403 `namespaces "default" is forbidden: this
//     namespace may not be deleted`), as k8s.io/apiserver's
//     NamespaceLifecycle plugin. Like that plugin, which reads its
//     informer's cache, it reads the namespace from the store's replica
//     (on etcd, no etcd read per create), and consistently only when the
//     replica lacks it or has it Active though this server deleted it in
//     the last 30 seconds.
//
// # Concurrency
//
// Run is the controller's only goroutine, owned by its caller: it looks
// at the terminating namespaces after every write to the server's store
// and returns when its context is done.
package namespace
