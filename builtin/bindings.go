package builtin

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// bindingKind is the kind of the core bindings resource, which
// kube-apiserver serves beside pods/binding (its older form): it keeps
// no objects, so it is not a row of the table (it has no strategy).
var bindingKind = &kind{Version: "v1", Kind: "Binding", Plural: "bindings", Namespaced: true}

// bindingsResource is the resource of POST /api/v1/namespaces/<ns>/bindings,
// which binds the Pod a Binding names, as pods/<name>/binding does.
func bindingsResource(defs *definitions) (*server.Resource, error) {
	k := bindingKind
	r := &server.Resource{
		Version: k.Version, Kind: k.Kind, ListKind: k.Kind + "List", Plural: k.Plural, Singular: "binding",
		Namespaced:  true,
		Verbs:       []string{"create"},
		New:         func() server.Object { return &Object{Value: k.newValue()} },
		DecodeProto: k.decodeProto,
		CheckTypes:  k.checkTypes,
	}
	r.Create = func(ctx context.Context, req server.CreateRequest) (server.Object, error) {
		return nil, createBinding(ctx, r, req)
	}
	if err := defs.describe(k, r); err != nil {
		return nil, err
	}
	return r, nil
}

// createBinding is kube-apiserver's LegacyBindingREST: the Binding's
// name is the Pod's. Its uid is never a precondition here: the server
// drops a created object's uid, as the create handler does (only
// pods/binding keeps it). The Binding is put to admission as a create
// of res, bindings.
func createBinding(ctx context.Context, res *server.Resource, req server.CreateRequest) error {
	o := req.Object.(*Object)
	a := createAttributes(ctx, res, "", req.Namespace, o.Name, req.DryRun)
	if err := req.Server.AdmitMutating(ctx, a, o, nil); err != nil {
		return err
	}
	var pods store.Backend[server.Object]
	for _, r := range req.Server.Resources() {
		if r.Group == "" && r.Plural == "pods" {
			pods = req.Server.StoreOf(r)
		}
	}
	if pods == nil {
		return status.NewNotFound(podsResource, o.Name)
	}
	return assignPod(ctx, pods, req.Namespace, bindingOf(o), req.DryRun, func() error { return req.Server.AdmitValidating(ctx, a, o, nil) })
}

// bindingOf returns the Binding o holds with the metadata the binding
// registry reads: the name, and the uid, resourceVersion and
// annotations it applies to the Pod.
func bindingOf(o *Object) *corev1.Binding {
	b := *o.Value.(*corev1.Binding)
	b.ObjectMeta = metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, UID: types.UID(o.UID),
		ResourceVersion: o.ResourceVersion, Annotations: o.Annotations}
	return &b
}

// assignPod binds the Pod b names to b's node, as kube-apiserver's
// BindingREST: it sets spec.nodeName, b's annotations and the
// PodScheduled condition, once; b's uid and resourceVersion, when set,
// are preconditions. A dry run changes nothing. validate is the
// validating phase of admission, which comes after the Binding's
// validation. Both forms of binding (bindings, pods/binding) end here.
func assignPod(ctx context.Context, pods store.Backend[server.Object], namespace string, b *corev1.Binding, dryRun bool, validate func() error) error {
	if b.Target.Name == "" {
		// kube-apiserver's aggregate of ValidatePodBinding: a 500.
		return status.New(http.StatusInternalServerError, status.ReasonUnknown, "target.name: Required value", nil)
	}
	if err := validate(); err != nil {
		return err
	}
	// The checks of the storage's key, in its order.
	switch {
	case namespace == "":
		return status.NewBadRequest("Namespace parameter required.")
	case b.Name == "":
		return status.NewBadRequest("Name parameter required.")
	}
	if msgs := path.IsValidPathSegmentName(b.Name); len(msgs) > 0 {
		return status.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", b.Name, strings.Join(msgs, ";")))
	}
	var pre store.Preconditions
	if b.UID != "" {
		u := string(b.UID)
		pre.UID = &u
	}
	if b.ResourceVersion != "" {
		pre.ResourceVersion = &b.ResourceVersion
	}
	bindingResource := status.GroupResource{Resource: "pods/binding"}
	_, err := pods.GuaranteedUpdate(ctx, namespace, b.Name, store.UpdateOptions{Preconditions: pre, DryRun: dryRun},
		func(cur server.Object) (server.Object, error) {
			o := cur.DeepCopyObject().(*Object)
			p := o.Value.(*corev1.Pod)
			switch {
			case o.DeletionTimestamp != nil:
				return nil, status.NewConflict(bindingResource, b.Name, fmt.Sprintf("pod %s is being deleted, cannot be assigned to a host", b.Name))
			case p.Spec.NodeName != "":
				return nil, status.NewConflict(bindingResource, b.Name, fmt.Sprintf("pod %s is already assigned to node %q", b.Name, p.Spec.NodeName))
			}
			p.Spec.NodeName = b.Target.Name
			for k, v := range b.Annotations {
				if o.Annotations == nil {
					o.Annotations = map[string]string{}
				}
				o.Annotations[k] = v
			}
			setScheduled(p)
			return o, nil
		})
	return err
}
