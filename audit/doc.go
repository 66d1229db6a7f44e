// Package audit is Kubernetes' audit log for a server of package server:
// audit.k8s.io/v1 Events written as JSON lines, to a file with rotation or
// any writer, as a Policy decides, as kube-apiserver's --audit-policy-file
// and --audit-log-path do.
//
// # Usage
//
// Read the policy, choose the backend, and give the filter to the server
// as its audit hook, where kube-apiserver audits: after authentication,
// before the in-flight limits and authorization, so that the requests
// they refuse are recorded too.
//
//	policy, err := audit.LoadPolicy("audit-policy.yaml")
//	...
//	log := &audit.FileWriter{Path: "/var/log/apisem/audit.log", MaxSize: 100, MaxBackups: 10}
//	f, err := audit.New(audit.Options{Policy: policy, Backend: audit.NewLogBackend(log)})
//	...
//	srv, err := server.New(server.Options{..., Hooks: server.HookOptions{Audit: f.Wrap}})
//
// # Events
//
// A request the policy records at Metadata level or above gives one
// event per stage the policy keeps: RequestReceived when the filter
// receives it; ResponseStarted when a watch's headers are sent;
// ResponseComplete when the answer is sent; Panic instead of
// ResponseComplete when the handler panicked; a request no authenticator
// accepted gives one event, ResponseStarted with the 401, as in
// kube-apiserver. Each has the request's
// audit ID (also the Audit-Id header of the answer; a client may send its
// own, as the aggregator does), URI, verb, user, source addresses, user
// agent, objectRef (what a resource request addresses, with the name,
// namespace, uid and resourceVersion of a created or updated object), the
// response's code and, for a Status answer, its status, message, reason
// and details; and the annotations the server adds: the authorizer's
// decision (authorization.k8s.io/decision, allow or forbid) and reason
// (authorization.k8s.io/reason), and those admission adds
// (server.AddAuditAnnotation: a ValidatingAdmissionPolicy's
// auditAnnotations and Audit action, in the ResponseComplete event). At Request level the request's body is
// recorded (requestObject), at RequestResponse level the response's too
// (responseObject), for resource requests only, as kube-apiserver does.
// TestRecorded checks a run of requests against the events kube-apiserver
// 1.37 wrote for the same requests under the same policy
// (testdata/record.sh).
//
// # Policies
//
// A Policy's rules are tried in order and the first that matches decides
// the level; none matching means None. Rules match users, groups, verbs,
// resources ("pods", "pods/log", "pods/*", "*/scale", "*", with
// resourceNames), namespaces and non-resource URLs ("/healthz*"), and add
// omitStages and omitManagedFields to the policy's. ParsePolicy refuses
// an invalid policy with kube-apiserver's messages.
//
// # Backends
//
// A Backend is one method; LogBackend writes a line per event, in the
// request's goroutine (kube-apiserver's blocking mode). FileWriter is the
// rotating file of --audit-log-maxsize, --audit-log-maxbackup and
// --audit-log-maxage, without lumberjack's background goroutine.
//
// # Differences from kube-apiserver
//
// Kept on purpose or not done, each with its reason:
//
//   - Bodies are recorded as sent, compacted (YAML converted to JSON),
//     not decoded and re-encoded: the filter sits outside the handler, as
//     kube-apiserver's does, and does not decode a second time. A body in
//     protobuf is not recorded; nor is one larger than
//     Options.MaxBodyBytes, which kube-apiserver does not bound; with
//     omitManagedFields the object is re-encoded, its members in name
//     order.
//   - Requests the deadline filter refuses (a bad ?timeout=, 400) are
//     not recorded: they never reach the hook.
//   - The server has no impersonation, so impersonatedUser is never set;
//     a server without an authenticator records an empty user.
//   - requestReceivedTimestamp is when the filter receives the request,
//     just after authentication, not when the server does.
//   - At most 32 addresses of X-Forwarded-For are recorded.
//
// No webhook backend, no batching, no --audit-log-compress and no
// legacy text format.
package audit
