// Package builtin serves the built-in kinds of Kubernetes v1.37
// (Deployments, Pods, Services, Leases, RBAC, ...) on an apisem server,
// with kube-apiserver's own defaulting, validation, printing and
// schemas: it calls Kubernetes' code (k8s.io/kubernetes v1.37.2 and the
// k8s.io/api types) as a library rather than rewriting it. It is a
// nested module so that servers that do not serve these kinds do not
// compile Kubernetes.
//
// # Usage
//
//	res, err := builtin.Resources(builtin.Options{})   // every group
//	if err != nil { ... }
//	s, err := server.New(server.Options{Resources: res})
//
// Options.Groups chooses the API groups served ("" is the core group,
// "apps", "batch", "coordination.k8s.io", ...; Groups lists them); the
// zero Options serves them all.
//
// Namespaces are not among the resources: package namespace serves them
// with their lifecycle (the system namespaces, Terminating, the
// controller that empties a deleted namespace) and the NamespaceLifecycle
// admission that refuses content in a missing or terminating namespace.
// A server that wants a cluster's behaviour serves both:
//
//	l := namespace.New(namespace.Options{})
//	opts := server.Options{Resources: append(res, l.Resource())}
//	opts.Admission = l.Admission(opts.Admission)
//	s, err := server.New(opts)
//	l.Bind(s)  // then l.CreateSystemNamespaces(ctx) and go l.Run(ctx)
//
// Without it, namespaced objects may be written in any namespace, named
// or not, as in a server without that admission plugin.
//
// # How a kind is served
//
// Each kind is one row of a table (group, version, kind, plural, short
// names, categories, scope, kube-apiserver's registry strategies, the
// scale subresource's path): adding a kind is one line. Its objects are
// *Object values: the k8s.io/api object (a *appsv1.Deployment) with its
// metadata kept in apisem's meta.ObjectMeta, which the store and the
// server's metadata rules use. So an object is decoded with its Go
// type's own rules (a field of the wrong type is the cluster's 400 "...
// cannot be handled as a Deployment: json: cannot unmarshal ...",
// unknown fields are reported by field validation and dropped), and
// written in JSON and protobuf exactly as kube-apiserver writes it,
// members in the Go type's order.
//
// The server's hooks of each resource call Kubernetes' code in the
// order kube-apiserver's request handling does:
//
//   - Default: the scheme's defaulting (SetObjectDefaults_Deployment and
//     the like, registered in legacyscheme by the groups' install
//     packages), as the decoding of a request body applies it;
//   - Prepare: the kind's registry strategy (pkg/registry/<group>/<kind>)
//     PrepareForCreate or PrepareForUpdate, in the internal form the
//     strategies take: status reset on create, generation, a Pod's
//     Pending phase and QoS class, a Job's selector, dropped disabled
//     fields; for a Service first the cluster IP and node ports the
//     Service registry allocates (ServiceAllocator: held when the write
//     is stored, as Resource.ToStorage, and freed by its deletion), and
//     on update the allocated values the update leaves out;
//   - Validate: rest.ValidateCreate or rest.ValidateUpdate with that
//     strategy (ValidateDeployment, ValidatePodCreate, ... and
//     declarative validation), each field.Error mapped to a
//     status.FieldError with the same cause type, field and message.
//     The errors of Kubernetes' generic metadata validation are left
//     out, since the server gives them first with the same text;
//   - Warnings: the strategy's WarningsOnCreate and WarningsOnUpdate;
//   - RequireResourceVersion and CreateOnUpdate: the strategy's
//     AllowUnconditionalUpdate and AllowCreateOnUpdate, so an update
//     without resourceVersion is refused, and a PUT of a missing object
//     creates it (a Lease, an Event, a RoleBinding) or is a 404 (a
//     ConfigMap, a Pod), as kube-apiserver's registry decides;
//   - Columns: the cells of kube-apiserver's server-side printers
//     (pkg/printers/internalversion), so kubectl get prints a cluster's
//     columns and values (NAME READY STATUS RESTARTS AGE for pods);
//   - Schema, Definitions and PatchSchema: Kubernetes' generated OpenAPI
//     definitions (pkg/generated/openapi), published in /openapi/v2 and
//     /openapi/v3 (kubectl explain), typing server-side apply, and giving
//     strategic merge patch its merge keys.
//
// A write of the status subresource uses the kind's status strategy,
// also when it changes nothing (an Object is a server.WriteObserver: the
// server tells it the write's subresource); the scale subresource
// (Deployments, ReplicaSets, StatefulSets, ReplicationControllers) reads
// and sets spec.replicas through the main strategy. A Pod's
// ephemeralcontainers and resize, and a CertificateSigningRequest's
// approval (status.conditions alone), use the strategies of those
// subresources. Kinds served in two versions (HorizontalPodAutoscalers,
// Events) are stored in the version kube-apiserver stores them in: a
// write through the other is converted before it is stored
// (server.Resource.ToStorage), and a read through it converted back; on
// etcd (package serverstore) each value names that version
// (server.Resource.StoredAs), as kube-apiserver's do; field selectors
// take each version's field labels (regarding.name of events.k8s.io
// Events is involvedObject.name of core ones); a write through one version
// keeps the managedFields entries of the other converted
// (server.Resource.ConvertTo), so an HPA update through v1 that changes
// nothing writes nothing, while an Event's entries of the other group are
// dropped, as kube-apiserver cannot convert them. On etcd every kind is kept
// under kube-apiserver's key (server.Resource.EtcdPrefix): the resource
// alone whatever the group (/registry/deployments/<namespace>/<name>),
// or its storage factory's special path (services/specs,
// services/endpoints, minions, controllers, ingress), so that a
// kube-apiserver on the same etcd sees the objects; objects an earlier
// version kept under /registry/<group>/<resource> move there at start
// (package etcdstore). examples/server records the keys of
// kube-apiserver v1.37.1 and compares them with the server's.
//
// A Binding posted to pods/<name>/binding, or to the bindings resource
// (POST /api/v1/namespaces/<ns>/bindings, its older form, which keeps
// no objects: server.Resource.Create), binds the Pod to a node as
// kube-apiserver's binding registry does. Bindings and a Pod's evictions
// are put to admission (server.Options.Admission, Policies) as a
// cluster's: creates of pods/binding, bindings or pods/eviction, of a
// Binding or a policy/v1 Eviction, the mutating phase on the decoded
// object and the validating phase once the registry's own checks pass.
//
// The review APIs keep no objects either: authorization.k8s.io's
// SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview
// and SelfSubjectRulesReview, and authentication.k8s.io's
// SelfSubjectReview and TokenReview answer 201 with the review, checked
// by Kubernetes' own validation and its status filled from the request's
// user and the server's authorizer and authenticator
// (server.Options.Security), as kube-apiserver's registries fill it: so
// `kubectl auth can-i` and `kubectl auth whoami` work. A server without
// an authorizer allows everything, and its reviews say so; an
// auth.Authorizer cannot list what it allows, so a rules review on a
// server with one is incomplete, as on a cluster with a webhook
// authorizer. Reviews are not put to admission.
//
// The differential test writes valid and invalid objects of 46 kinds to
// the server over HTTP and gives the same input to Kubernetes' own
// rest.BeforeCreate and rest.BeforeUpdate: the stored objects, status
// codes, messages and causes are the same. The resources and their
// discovery are those a kube-apiserver v1.37.1 serves by default,
// recorded from one (TestDiscoveryMatchesReference compares them).
//
// # Admission policies
//
// Policies enforces the ValidatingAdmissionPolicies and
// ValidatingAdmissionPolicyBindings of a server on every write of every
// resource it serves, built-in or custom, with kube-apiserver's own
// ValidatingAdmissionPolicy plugin code
// (k8s.io/apiserver/pkg/admission/plugin/policy/validating: its
// dispatcher, matcher and CEL compiler), in admission's validating phase:
//
//	p := builtin.NewPolicies(builtin.PolicyOptions{})  // Authorizer: for the CEL authorizer
//	opts.Admission = p.Admission(opts.Admission)
//	s, err := server.New(opts)
//	p.Bind(s)
//
// A write (create, update, patch, apply, deletion, and the writes of
// subresources, a scale's object being its autoscaling/v1 Scale, an
// eviction's its policy/v1 Eviction, a binding's its Binding) is
// matched against each bound policy's matchConstraints and each
// binding's matchResources (resourceRules, excludeResourceRules,
// namespaceSelector, objectSelector, matchPolicy Equivalent across the
// versions of a built-in kind's storage: an autoscaling/v1 HPA is
// converted for a policy of autoscaling/v2 ones); matchConditions,
// variables, validations and auditAnnotations are evaluated with the
// binding's parameters (paramKind and paramRef, by name or selector, read
// from the server's objects; parameterNotFoundAction), and failurePolicy
// answers errors. By the binding's validationActions, a failed validation
// is the cluster's 422 (or 403 and the others of its reason) "<resource>
// \"<name>\" is forbidden: ValidatingAdmissionPolicy '<policy>' with
// binding '<binding>' denied request: <message>", a Warn the cluster's
// Warning header, and an Audit the annotation
// validation.policy.admission.k8s.io/validation_failure (a JSON list of
// the failures) of the request's audit event, where the values of
// auditAnnotations are too, as "<policy>/<key>" (server.AddAuditAnnotation;
// a denied write's included). TestRecordedPolicies replays a transcript
// recorded from kube-apiserver 1.37.1 (testdata/reference/policies.json),
// TestRecordedAdmitAudit the audit events of such writes
// (admitaudit-audit.json). Policies are never applied to policies and bindings themselves, as in
// kube-apiserver.
//
// It differs from a cluster in these:
//
//   - A cluster applies a policy or binding once its informers have seen
//     it and its policy source has compiled it, up to a second or so
//     after the write (the source refreshes every second); here the
//     write that follows sees it, as Policies reads the policies,
//     bindings, parameters and Namespaces from the server's storage at
//     each write (compiling a policy once per resourceVersion). A test
//     that passes here may need to wait for the policy on a cluster.
//   - When several policies deny one write, the message names the first
//     by policy name; a cluster names one of them in no set order.
//   - The CEL authorizer variable asks PolicyOptions.Authorizer, and
//     without one allows every check; request.userInfo is the
//     request's user, empty without an authenticator (a cluster's
//     anonymous user is system:anonymous); request.options has no
//     fieldManager.
//   - matchPolicy Equivalent does not convert between the versions of a
//     custom resource: each version is matched on its own.
//   - No controller fills a policy's status.typeChecking, as on a
//     kube-apiserver without kube-controller-manager (envtest's).
//
// MutatingPolicies applies the MutatingAdmissionPolicies and
// MutatingAdmissionPolicyBindings (admissionregistration.k8s.io/v1,
// which kube-apiserver 1.37 serves and applies by default) the same way,
// with kube-apiserver's own MutatingAdmissionPolicy plugin code
// (k8s.io/apiserver/pkg/admission/plugin/policy/mutating: its
// dispatcher, and its patchers for ApplyConfiguration, merged by
// structured-merge-diff, and JSONPatch), in admission's mutating phase,
// so ahead of the kind's validation and of every validating policy:
//
//	m := builtin.NewMutatingPolicies(builtin.PolicyOptions{})
//	opts.Admission = m.Admission(p.Admission(opts.Admission))
//	s, err := server.New(opts)
//	m.Bind(s)
//
// A create or update (POST, PUT, PATCH, server-side apply, dry runs,
// the status and scale subresources) is matched as for the validating
// policies; matchConditions and variables are evaluated with the
// binding's parameters, then each mutation in order; failurePolicy
// answers errors (Fail: the cluster's 403 "policy '<policy>' with
// binding '<binding>' denied request: ..."), and a policy whose
// reinvocationPolicy is IfNeeded runs once more when a later policy
// changed the object. An ApplyConfiguration is typed by the schema the
// server publishes for the kind (Kubernetes' definitions for a built-in
// kind, the resource's schema for a custom one), as the plugin types it
// by kube-apiserver's /openapi/v3. The fields a policy sets are owned by
// no field manager, as on a cluster. TestRecordedMutatingPolicies
// replays a transcript recorded from kube-apiserver 1.37.1
// (testdata/reference/mutating.json, record-mutating.go), and
// apisemtest's TestRecordedMutatingCustomResource one of a custom
// resource whose list keyed by name a policy merges into. Its
// differences from a cluster are those of Policies above (when a policy
// applies, the authorizer, matchPolicy across a custom resource's
// versions), and:
//
//   - The policies run in the order of their names (each one's
//     bindings by theirs); a cluster runs them in the order of a Go map,
//     which may change when a policy or binding does. Two policies that
//     set one field, or a policy whose reinvocationPolicy is Never that
//     reads what a later one sets, can end differently there from one
//     refresh to the next.
//   - Reinvocation reruns the policies only: a Server.Admission.Mutate
//     hook after them is not run again (on a cluster the mutating
//     webhooks and built-in plugins are).
//   - A resource whose schema the server derives from its Go type
//     (server.Resource.New without Schema) is merged as one without a
//     schema, every field atomic.
//   - A write of the scale subresource takes back only the Scale's
//     spec.replicas from a policy. As on kube-apiserver 1.37.1, a
//     Scale is mutated by a JSONPatch only: an ApplyConfiguration of one
//     fails, its type being in no group version's document of the
//     cluster; and a policy of one version of a built-in kind (matched
//     under matchPolicy Equivalent) fails to mutate a write through
//     another with the cluster's "unknown conversion" error.
//
// # Differences from a cluster
//
//   - ValidatingAdmissionPolicies are enforced only on a server given
//     Policies (see "Admission policies" above), and there from the
//     write that creates or changes them on; the differences of that
//     enforcement are listed there. MutatingAdmissionPolicies are
//     applied only on a server given MutatingPolicies, with the
//     differences listed there too.
//   - Strategies that ask kube-apiserver's authorizer about the writer
//     are given none or one that allows everything, since the server
//     authorizes a request before it reaches them: a policy's paramKind
//     needs no "get" permission, a ResourceClaim's status.allocation no
//     resourceclaims/binding one, a PodCertificateRequest's status no
//     "sign" one. They see the request's user when the server has an
//     authenticator (a CertificateSigningRequest's spec.username);
//     without one a PodCertificateRequest's status cannot be changed
//     (Kubernetes' strategy answers that it cannot tell the user).
//   - A ResourceClaim or ResourceClaimTemplate asking for admin access
//     to devices is refused with the cluster's message for a namespace
//     without the label resource.kubernetes.io/admin-access, unless
//     Options.Namespaces gives the strategies the server's Namespaces
//     to read it from (a ServerNamespaces bound to the server).
//   - Services' cluster IPs come from 10.96.0.0/12 alone (single-stack
//     IPv4; a ServiceCIDR a client creates adds no range) and node ports
//     from 30000-32767, each at random unless named, refused with the
//     cluster's 422 when taken or out of range (see ServiceAllocator).
//     The cluster IPs are IPAddress objects and the node ports those the
//     stored Services hold only when the allocator is bound to the server
//     (Options.Allocator; apisemtest and examples/server bind one), else
//     they are kept in memory. A Service's values are freed by its
//     DELETE, deletecollection, garbage collection, its namespace's
//     deletion (the namespace controller deletes through the Service's
//     Resource.Delete, in memory and on etcd) and a type change; one
//     deleted by the removal of its last finalizer leaves its IPAddress
//     until an allocation that wants the IP finds it orphaned, as
//     kube-apiserver's repair loop would free it, 10 s after it was
//     made. 10.96.0.1 is never chosen at random: it is the cluster IP
//     of the Service default/kubernetes (see "Objects made at start"
//     below).
//   - The server's strategic merge patch ignores retainKeys markers
//     (package patch); the OpenAPI documents publish them
//     (DeploymentSpec.strategy), so kubectl's client-side merge keeps
//     them.
//   - A Pod's deletion is graceful, as kube-apiserver's: one bound to a
//     node stays, marked for spec.terminationGracePeriodSeconds (30 by
//     default), until a deletion with period 0 (its kubelet's; here no
//     kubelet comes, so a test deletes it so itself); one on no node or
//     finished is deleted at once, after a MODIFIED event with the mark.
//   - There is no kubelet: pods/log, exec, attach, portforward and the
//     node and pod proxies answer as a cluster whose kubelets cannot be
//     reached (a Pod on no node has an empty log; exec is the 400 "pod p
//     does not have a host assigned"), and where a cluster would reach
//     one (a Node with an address) they answer 503. services/proxy is
//     always the 503 of a Service without endpoints.
//     serviceaccounts/token answers 405: there is no token signer.
//   - The status write by which an eviction takes a disruption from its
//     PodDisruptionBudget is made as kube-apiserver's loopback client
//     makes it (user system:apiserver, field manager kube-apiserver, put
//     to admission) but is no request of its own: the audit log has no
//     event of it (server.Update).
//   - There is no controller and no scheduler: a Pod stays Pending, a
//     Deployment makes no ReplicaSet, a PodDisruptionBudget's status
//     stays as written (an eviction it selects answers 429 until a test
//     writes it).
//
// # Objects made at start
//
// Bootstrap makes on a server the objects a kube-apiserver makes itself
// when it starts, which a cluster's clients find there (kubectl get on a
// fresh cluster, an operator's test reading cluster-admin or the
// kubernetes Service), from Kubernetes' own definitions: the Service
// default/kubernetes (10.96.0.1, port https 443), the bootstrap RBAC
// ClusterRoles, ClusterRoleBindings, Roles and RoleBindings
// (bootstrappolicy), the PriorityClasses system-node-critical and
// system-cluster-critical, and the API Priority and Fairness FlowSchemas
// and PriorityLevelConfigurations, mandatory and suggested. Called at
// every start of a server on etcd, it reconciles them as kube-apiserver
// does (RBAC's autoupdate annotation, APF's autoupdate-spec), with
// Kubernetes' own reconcilers. TestBootstrapMatchesReference compares the
// objects with those kube-apiserver v1.37.1 held after its start
// (testdata/reference/bootstrap.json). apisemtest and examples/server
// call it.
//
// # Cost
//
// Building the resources converts Kubernetes' OpenAPI definitions and
// takes a few milliseconds (BenchmarkResources); Bootstrap on a fresh
// server a few more (BenchmarkBootstrap: the objects are made once per
// process and copied into each fresh server's stores); each write
// converts the object to the internal form a few times. Compiling the module compiles
// a part of k8s.io/kubernetes: its API types, validation, registry
// strategies and printers, not its storage, controllers or control
// plane.
package builtin
