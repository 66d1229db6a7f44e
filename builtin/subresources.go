package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"
	kubeletclient "k8s.io/kubernetes/pkg/kubelet/client"
	"k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	nodeutil "k8s.io/kubernetes/pkg/util/node"

	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// The subresources kube-apiserver serves beyond status and scale: those
// that reach a kubelet (log, exec, attach, portforward, the proxies)
// answer as a cluster whose kubelets nobody can reach (a Pod on no node,
// a Node without addresses: the cluster's own answers, recorded on
// v1.37.1), and those that are only writes of the store (binding,
// eviction, ephemeralcontainers, resize) do what the cluster does.
// serviceaccounts/token, which needs the cluster's token signer, is a
// 405.

// connect are the verbs of the subresources kube-apiserver connects to a
// kubelet (exec, attach, portforward), and proxy those of the proxies.
var (
	connect = []string{"create", "get"}
	proxy   = []string{"create", "delete", "get", "patch", "update"}
)

// subresources returns the handled subresources of k's resource r.
func (k *kind) subresources(r *server.Resource) []server.Subresource {
	switch {
	case k.Group == "" && k.Kind == "Pod":
		return []server.Subresource{
			{Name: "attach", Kind: "PodAttachOptions", Verbs: connect, Serve: podStream("attach")},
			{Name: "binding", Kind: "Binding", Verbs: []string{"create"}, Serve: bind(r)},
			{Name: "eviction", Group: "policy", Version: "v1", Kind: "Eviction", Verbs: []string{"create"}, Serve: evict(r)},
			{Name: "exec", Kind: "PodExecOptions", Verbs: connect, Serve: podStream("exec")},
			{Name: "log", Verbs: []string{"get"}, Serve: podLog},
			{Name: "portforward", Kind: "PodPortForwardOptions", Verbs: connect, Serve: podStream("portforward")},
			{Name: "proxy", Kind: "PodProxyOptions", Verbs: proxy, Path: true, Serve: podProxy},
		}
	case k.Group == "" && k.Kind == "Node":
		return []server.Subresource{{Name: "proxy", Kind: "NodeProxyOptions", Verbs: proxy, Path: true, Serve: nodeProxy}}
	case k.Group == "" && k.Kind == "Service":
		return []server.Subresource{{Name: "proxy", Kind: "ServiceProxyOptions", Verbs: proxy, Path: true, Serve: serviceProxy}}
	case k.Group == "" && k.Kind == "ServiceAccount":
		return []server.Subresource{{Name: "token", Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest",
			Verbs: []string{"create"}, Serve: token}}
	}
	return nil
}

// objectSubresources are the subresources of k that update the object
// itself, each with its registry strategy.
func (k *kind) objectSubresources() map[string]statusStrategy {
	if k.Group == "" && k.Kind == "Pod" {
		return map[string]statusStrategy{"ephemeralcontainers": pod.EphemeralContainersStrategy, "resize": pod.ResizeStrategy}
	}
	if k.Group == "certificates.k8s.io" && k.Kind == "CertificateSigningRequest" {
		// Approval writes status.conditions alone (the strategy keeps the
		// rest); its approve and deny permissions are the authorizer's.
		return map[string]statusStrategy{"approval": certificates.ApprovalStrategy}
	}
	return nil
}

var podsResource = status.GroupResource{Resource: "pods"}

// podGetter gives Kubernetes' location functions the Pods of a store,
// in the internal form.
type podGetter struct {
	st        store.Backend[server.Object]
	namespace string
}

func (g podGetter) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	o, err := g.st.Get(ctx, g.namespace, name, rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		return nil, err
	}
	return podKind.internal(o.(*Object))
}

// podKind is the Pod row of the table.
var podKind = func() *kind {
	for _, k := range all {
		if k.Group == "" && k.Kind == "Pod" {
			return k
		}
	}
	panic("builtin: no Pod kind")
}()

// nodes answers where a Node's kubelet is, from the server's Nodes: as
// kube-apiserver's NodeConnectionInfoGetter finds none for a Node
// without addresses, and here no kubelet answers at any address.
type nodes struct{ s *server.Server }

func (n nodes) GetConnectionInfo(ctx context.Context, name types.NodeName) (*kubeletclient.ConnectionInfo, error) {
	node, err := n.get(ctx, string(name))
	if err != nil {
		// kube-apiserver 1.37.1 names the missing Node a pod (recorded).
		if status.IsNotFound(err) {
			return nil, status.NewNotFound(podsResource, string(name))
		}
		return nil, err
	}
	if err := nodeAddress(node); err != nil {
		return nil, err
	}
	return nil, noKubelet(string(name))
}

func (n nodes) get(ctx context.Context, name string) (*corev1.Node, error) {
	for _, r := range n.s.Resources() {
		if r.Group == "" && r.Plural == "nodes" {
			o, err := n.s.StoreOf(r).Get(ctx, "", name, rv.Read{Semantics: rv.MostRecent})
			if err != nil {
				return nil, err
			}
			return o.(*Object).Value.(*corev1.Node), nil
		}
	}
	return nil, status.NewNotFound(status.GroupResource{Resource: "nodes"}, name)
}

// nodeAddress is kube-apiserver's error for a Node without an address of
// its default preferred types, a 500 without reason.
func nodeAddress(node *corev1.Node) error {
	_, err := nodeutil.GetPreferredNodeAddress(node, []corev1.NodeAddressType{
		corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeExternalDNS, corev1.NodeExternalIP})
	if err != nil {
		return status.New(http.StatusInternalServerError, status.ReasonUnknown, err.Error(), nil)
	}
	return nil
}

// noKubelet is the answer where kube-apiserver would dial a kubelet.
func noKubelet(node string) error {
	return status.NewServiceUnavailable(fmt.Sprintf("no kubelet serves node %q: this server runs none", node))
}

// fromKube returns err, maybe a Kubernetes status error, as ours.
func fromKube(err error) error {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return err
	}
	st := se.Status()
	var d *status.Details
	if st.Details != nil {
		d = &status.Details{Name: st.Details.Name, Group: st.Details.Group, Kind: st.Details.Kind, UID: string(st.Details.UID),
			RetryAfterSeconds: st.Details.RetryAfterSeconds}
		for _, c := range st.Details.Causes {
			d.Causes = append(d.Causes, status.Cause{Type: status.CauseType(c.Type), Message: c.Message, Field: c.Field})
		}
	}
	return status.New(st.Code, status.Reason(st.Reason), st.Message, d)
}

// queryOptions decodes the request's query into opts, a versioned
// options type (PodLogOptions), and returns its internal form.
func queryOptions(r *http.Request, opts runtime.Object) (runtime.Object, error) {
	if err := runtime.NewParameterCodec(scheme).DecodeParameters(r.URL.Query(), corev1.SchemeGroupVersion, opts); err != nil {
		return nil, status.NewBadRequest(err.Error())
	}
	gvks, _, err := scheme.ObjectKinds(opts)
	if err != nil {
		return nil, err
	}
	in, err := scheme.New(schema.GroupVersionKind{Version: runtime.APIVersionInternal, Kind: gvks[0].Kind})
	if err != nil {
		return nil, err
	}
	return in, scheme.Convert(opts, in, nil)
}

// podLog answers pods/log as a cluster without kubelets: a Pod on no
// node has no log yet (204), one on a node names its node's kubelet,
// which answers nothing here.
func podLog(w http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
	in, err := queryOptions(r, &corev1.PodLogOptions{})
	if err != nil {
		return err
	}
	opts := in.(*api.PodLogOptions)
	if errs := corevalidation.ValidatePodLogOptions(opts, false); len(errs) > 0 {
		var fes []status.FieldError
		for _, e := range errs {
			fes = append(fes, fieldError(e))
		}
		return status.NewInvalid(status.GroupKind{Kind: "PodLogOptions"}, req.Name, fes...)
	}
	loc, _, err := pod.LogLocation(r.Context(), podGetter{req.Store, req.Namespace}, nodes{req.Server}, req.Name, opts)
	if err != nil {
		return fromKube(err)
	}
	if loc != nil {
		return noKubelet("")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// podStream answers exec, attach and portforward: the cluster's 400 for
// a Pod on no node, its answer for a node without addresses.
func podStream(sub string) func(http.ResponseWriter, *http.Request, server.SubresourceRequest) error {
	return func(w http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
		ctx, g, n := r.Context(), podGetter{req.Store, req.Namespace}, nodes{req.Server}
		var err error
		switch sub {
		case "exec":
			var in runtime.Object
			if in, err = queryOptions(r, &corev1.PodExecOptions{}); err == nil {
				_, _, err = pod.ExecLocation(ctx, g, n, req.Name, in.(*api.PodExecOptions))
			}
		case "attach":
			var in runtime.Object
			if in, err = queryOptions(r, &corev1.PodAttachOptions{}); err == nil {
				_, _, err = pod.AttachLocation(ctx, g, n, req.Name, in.(*api.PodAttachOptions))
			}
		default:
			_, _, err = pod.PortForwardLocation(ctx, g, n, req.Name, &api.PodPortForwardOptions{})
		}
		if err != nil {
			return fromKube(err)
		}
		return noKubelet("")
	}
}

// podProxy answers pods/proxy: the cluster's 400 for a Pod without an
// address it may proxy to.
func podProxy(_ http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
	if _, _, err := pod.ResourceLocation(r.Context(), podGetter{req.Store, req.Namespace}, nil, req.Name); err != nil {
		return fromKube(err)
	}
	return status.NewServiceUnavailable(fmt.Sprintf("pod %q is not proxied to: this server proxies to no pod", req.Name))
}

// nodeProxy answers nodes/proxy: the Node's 404, or its kubelet's
// absence.
func nodeProxy(_ http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
	node, err := nodes{req.Server}.get(r.Context(), req.Name)
	if err != nil {
		return err
	}
	if err := nodeAddress(node); err != nil {
		return err
	}
	return noKubelet(req.Name)
}

// serviceProxy answers services/proxy as a cluster whose Services have
// no ready endpoints, which is what it answers for a missing Service too.
func serviceProxy(_ http.ResponseWriter, _ *http.Request, req server.SubresourceRequest) error {
	return status.NewServiceUnavailable(fmt.Sprintf("no endpoints available for service %q", req.Name))
}

// token answers serviceaccounts/token: the ServiceAccount's 404, else a
// 405, since there is no token signer a client could verify against.
func token(_ http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
	if _, err := req.Store.Get(r.Context(), req.Namespace, req.Name, rv.Read{Semantics: rv.MostRecent}); err != nil {
		return err
	}
	return status.NewMethodNotSupported(status.GroupResource{Resource: "serviceaccounts/token"}, "create")
}

// maxBody bounds the bodies the handled subresources read (Bindings and
// Evictions are small).
const maxBody = 1 << 20

// decodeBody reads the request's body (JSON, YAML or protobuf) into
// into, a versioned type.
func decodeBody(r *http.Request, into runtime.Object) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return status.NewBadRequest(err.Error())
	}
	if len(b) > maxBody {
		return status.NewRequestBodyTooLarge(maxBody)
	}
	obj, gvk, err := legacyscheme.Codecs.UniversalDeserializer().Decode(b, nil, into)
	var want schema.GroupKind
	if kinds, _, kerr := scheme.ObjectKinds(into); kerr == nil && len(kinds) > 0 {
		want = kinds[0].GroupKind()
	}
	switch {
	case err != nil && runtime.IsNotRegisteredError(err) && gvk != nil && want.Kind != "":
		return cannotHandle(*gvk, want.Kind, err)
	case err != nil:
		return status.NewBadRequest(err.Error())
	case obj != into && gvk != nil && want.Kind != "":
		// Another kind or version than into's: kube-apiserver converts
		// it to into's internal type (which fails for another kind),
		// and the handler takes that.
		if err := wrongKind(*gvk, want); err != nil {
			return err
		}
		internal, err := scheme.ConvertToVersion(obj, want.WithVersion(runtime.APIVersionInternal).GroupVersion())
		if err == nil {
			err = scheme.Convert(internal, into, nil)
		}
		if err != nil {
			return cannotHandle(*gvk, want.Kind, err)
		}
	}
	return nil
}

// writeSuccess writes the Status kube-apiserver answers a created
// binding or eviction with, and tells the audit log behind w (an
// AuditRecorder), whose event records it as kube-apiserver's does.
func writeSuccess(w http.ResponseWriter) error {
	for rw := w; rw != nil; {
		if rec, ok := rw.(server.AuditRecorder); ok {
			rec.AuditStatus(&status.Status{Status: status.StatusSuccess, Code: http.StatusCreated})
			break
		}
		u, ok := rw.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		rw = u.Unwrap()
	}
	b, err := json.Marshal(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status: metav1.StatusSuccess, Code: http.StatusCreated})
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, err = w.Write(b)
	return err
}

// bind assigns a Pod to a node, as kube-apiserver's BindingREST
// (assignPod); dryRun=All changes nothing. The Binding is put to
// admission as a create of pods/binding, the validating phase once
// the binding's own checks have passed.
func bind(pods *server.Resource) func(http.ResponseWriter, *http.Request, server.SubresourceRequest) error {
	return func(w http.ResponseWriter, r *http.Request, req server.SubresourceRequest) error {
		ctx := r.Context()
		dryRun, err := negotiation.ParseDryRun(r.URL.Query()["dryRun"], negotiation.CreateOptions)
		if err != nil {
			return err
		}
		var b corev1.Binding
		if err := decodeBody(r, &b); err != nil {
			return err
		}
		a, obj, err := admitSubresource(ctx, req, pods, "binding", dryRun, &b)
		if err != nil {
			return err
		}
		if obj.Name != req.Name {
			return status.NewBadRequest("name in URL does not match name in Binding object")
		}
		validate := func() error { return req.Server.AdmitValidating(ctx, a, obj, nil) }
		if err := assignPod(ctx, req.Store, req.Namespace, bindingOf(obj), dryRun, validate); err != nil {
			return err
		}
		return writeSuccess(w)
	}
}

// setScheduled sets the PodScheduled condition True, as the binding
// registry does (podutil.UpdatePodCondition: the transition time moves
// only when the status changes).
func setScheduled(p *corev1.Pod) {
	now := metav1.Now()
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		if c.Type == corev1.PodScheduled {
			if c.Status != corev1.ConditionTrue {
				c.Status, c.LastTransitionTime = corev1.ConditionTrue, now
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now})
}
