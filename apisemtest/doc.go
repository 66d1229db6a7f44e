// Package apisemtest starts an apisem API server for a controller's
// tests, in one call, in place of controller-runtime's envtest (which
// starts kube-apiserver and etcd):
//
//	env := apisemtest.Start(t, apisemtest.Options{CRDDirectoryPaths: []string{"config/crd"}})
//	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{...})
//
// The server runs on a loopback listener until the test ends. It has what
// a test expects of a cluster: the namespaces default, kube-system,
// kube-public and kube-node-lease, with Kubernetes' namespace lifecycle
// (package namespace); the objects kube-apiserver makes at start
// (builtin.Bootstrap: the Service default/kubernetes on 10.96.0.1 with
// its targetPort the server's port, the bootstrap RBAC roles and
// bindings such as cluster-admin, the system PriorityClasses, the API
// Priority and Fairness configuration); a garbage collector for
// ownerReferences (package gc); CustomResourceDefinitions, those of Options installed and
// Established before Start returns, their x-kubernetes-validations rules
// evaluated by Kubernetes' own CEL code (module crd/cel);
// MutatingAdmissionPolicies and ValidatingAdmissionPolicies and their
// bindings applied to every write, built-in and custom, by Kubernetes'
// own dispatchers (builtin.MutatingPolicies, builtin.Policies), from the
// write that creates them on, the mutating ones first, after
// kube-apiserver's default mutating admission plugins less
// ServiceAccount, which envtest disables (builtin.Plugins: a Pod gets its
// priority and the 300 s not-ready and unreachable tolerations, a new
// Node the not-ready taint, and no service account). There is no
// scheduler and no kubelet: a Pod stays Pending, as with envtest.
//
// # Built-in kinds
//
// Kubernetes' built-in kinds (Deployments, Services, Leases, RBAC, ...)
// are served by default, with Kubernetes' own defaulting, validation,
// printers and OpenAPI (module github.com/apisem/apisem/builtin);
// Options.Groups picks the groups, Options.Resources replaces them with
// a test's own resources. A module that imports apisemtest compiles
// k8s.io/kubernetes, and needs the replace directives of builtin's
// go.mod, which pin every k8s.io/* module to the version it tracks.
//
// # What envtest does not give
//
// Each Start is a fresh server in memory, in milliseconds, so each test
// (or subtest) may have its own. Environment.Server reaches what a client
// cannot: ExpireWatches ends the open watches with 410 Gone, Compact
// makes a watch or list that resumes from an older resourceVersion get
// 410 Gone too (together: a reflector's relist), and
// Environment.FailWrites makes chosen writes fail with the error of the
// test's choice (a controller's retry), without touching the network.
package apisemtest
