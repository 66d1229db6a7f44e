package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

var emptyGVK schema.GroupVersionKind

// scheme is Kubernetes' own scheme of its built-in types, filled by the
// install packages of every group (imported in kinds.go): it holds
// their defaulting functions and their conversions to the internal
// types that validation and the printers take.
var scheme = legacyscheme.Scheme

// toMetaV1 returns m as Kubernetes' ObjectMeta.
func toMetaV1(m *meta.ObjectMeta) (metav1.ObjectMeta, error) {
	var out metav1.ObjectMeta
	b, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

// fromMetaV1 returns Kubernetes' ObjectMeta m as ours.
func fromMetaV1(m *metav1.ObjectMeta) (meta.ObjectMeta, error) {
	var out meta.ObjectMeta
	b, err := json.Marshal(m)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

// objectMetaOf returns the ObjectMeta inside a Kubernetes object.
func objectMetaOf(v runtime.Object) *metav1.ObjectMeta {
	a, ok := v.(metav1.ObjectMetaAccessor)
	if !ok {
		return nil
	}
	m, _ := a.GetObjectMeta().(*metav1.ObjectMeta)
	return m
}

// versioned returns a copy of o's Value with o's metadata: the object
// as a client sends it.
func versioned(o *Object) (runtime.Object, error) {
	v := o.Value.DeepCopyObject()
	m, err := toMetaV1(&o.ObjectMeta)
	if err != nil {
		return nil, err
	}
	*objectMetaOf(v) = m
	return v, nil
}

// setVersioned makes v, a versioned object with its metadata, o's
// Value and metadata.
func setVersioned(o *Object, v runtime.Object) error {
	m, err := fromMetaV1(objectMetaOf(v))
	if err != nil {
		return err
	}
	clearMeta(v)
	o.ObjectMeta, o.Value = m, v
	return nil
}

// internal returns o in Kubernetes' internal form of kind k, the form
// its strategies, validation and printers take.
func (k *kind) internal(o *Object) (runtime.Object, error) {
	v, err := versioned(o)
	if err != nil {
		return nil, err
	}
	in, err := scheme.New(k.internalGVK())
	if err != nil {
		return nil, err
	}
	if err := scheme.Convert(v, in, nil); err != nil {
		return nil, fmt.Errorf("builtin: converting %s to its internal form: %w", k.Kind, err)
	}
	return in, nil
}

// setInternal makes in, an object of k's internal type, o's Value and
// metadata.
func (k *kind) setInternal(o *Object, in runtime.Object) error {
	v := k.newValue()
	if err := scheme.Convert(in, v, nil); err != nil {
		return fmt.Errorf("builtin: converting %s from its internal form: %w", k.Kind, err)
	}
	return setVersioned(o, v)
}

// setInternalDefaulted is setInternal with the kind's defaults applied
// again to the prepared object: kube-apiserver's storage decodes the
// object it writes (and every object it reads) with defaulting, so a
// default that reads what the strategy set holds in its answers and
// stays in later writes (a Job's labels, copied from its template's
// once the strategy has given it the generated selector's).
func (k *kind) setInternalDefaulted(o *Object, in runtime.Object) error {
	v := k.newValue()
	if err := scheme.Convert(in, v, nil); err != nil {
		return fmt.Errorf("builtin: converting %s from its internal form: %w", k.Kind, err)
	}
	scheme.Default(v)
	return setVersioned(o, v)
}

// context is the context kube-apiserver calls a strategy with for a
// write (verb "create" or "update") of o: the namespace, the writer when
// the server knows one, and the request info declarative validation
// reads the subresource from.
func (k *kind) context(o *Object, verb, subresource string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), o.Namespace)
	if u := o.user; u.Name != "" {
		ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: u.Name, UID: u.UID, Groups: u.Groups, Extra: u.Extra})
	}
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: verb,
		APIPrefix: "apis", APIGroup: k.Group, APIVersion: k.Version,
		Namespace: o.Namespace, Resource: k.Plural, Subresource: subresource, Name: o.Name,
	})
}

// fieldErrors maps Kubernetes' field errors of a write of in (old on
// update) to ours, with the same cause types, fields and messages. It
// leaves out the errors of Kubernetes' generic metadata validation
// (k8s.io/apimachinery/pkg/api/validation ValidateObjectMeta and
// ValidateObjectMetaUpdate, which strategies and rest.ValidateCreate
// call), since the server checks metadata with the same rules and
// messages before the resource's validation: the errors a kind's own
// rules give under metadata (a Node's metadata.taints) stay.
func (k *kind) fieldErrors(list field.ErrorList, in, old runtime.Object) []status.FieldError {
	if len(list) == 0 {
		return nil
	}
	generic := map[string]bool{}
	if m, err := apimeta.Accessor(in); err == nil {
		p := field.NewPath("metadata")
		errs := genericvalidation.ValidateObjectMetaAccessor(m, k.Namespaced, k.Names.theirs(), p)
		errs = append(errs, genericvalidation.ValidateObjectMetaAccessor(m, k.Namespaced, path.ValidatePathSegmentName, p)...)
		if old != nil {
			if om, err := apimeta.Accessor(old); err == nil {
				errs = append(errs, genericvalidation.ValidateObjectMetaAccessorUpdate(m, om, p)...)
			}
		}
		for _, e := range errs {
			generic[e.Error()] = true
		}
	}
	var out []status.FieldError
	for _, e := range list {
		if !generic[e.Error()] {
			out = append(out, fieldError(e))
		}
	}
	return out
}

// fieldError is e as a status.FieldError that renders exactly as
// e.ErrorBody does. (Our status package prints the type texts of every
// type but FieldValueTooShort and FieldValueTooFew, which declarative
// validation may use: those print as their cause type.)
func fieldError(e *field.Error) status.FieldError {
	fe := status.FieldError{Type: status.CauseType(e.Type), Field: e.Field, Detail: e.Detail}
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeInternal:
		return fe // no value is printed
	}
	// The value as ErrorBody prints it: between the type and the detail.
	text := strings.TrimPrefix(e.ErrorBody(), e.Type.String())
	if e.Detail != "" {
		text = strings.TrimSuffix(text, ": "+e.Detail)
	}
	if text, ok := strings.CutPrefix(text, ": "); ok {
		fe.BadValue = printed(text)
	} else {
		fe.BadValue = status.OmitValue
	}
	return fe
}

// printed is a value already printed as Kubernetes prints it.
type printed string

func (p printed) String() string { return string(p) }

// checkTypes is server.Resource.CheckTypes of k: kube-apiserver decodes a
// body into the type its apiVersion and kind name (the endpoint's where
// it names none) and converts that to k's internal type (see
// wrongKind). A body of k's kind is left to the server's checks.
func (k *kind) checkTypes(apiVersion, kindName string) error {
	gvk := schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: kindName}
	if apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return nil // the server's check refuses it
		}
		gvk.Group, gvk.Version = gv.Group, gv.Version
	}
	if gvk.Kind == "" {
		gvk.Kind = k.Kind
	}
	return wrongKind(gvk, schema.GroupKind{Group: k.Group, Kind: k.Kind})
}

// wrongKind is kube-apiserver's 400 for a body of gvk sent to an
// endpoint of the kind want: a kind its scheme does not hold, or one
// that does not convert to want's internal type, is "<Kind> in version
// "<version>" cannot be handled as a <want's Kind>: " and the scheme's
// error; nil for a body of want's kind or one that converts.
func wrongKind(gvk schema.GroupVersionKind, want schema.GroupKind) error {
	in, err := scheme.New(gvk)
	if err != nil {
		return cannotHandle(gvk, want.Kind, err)
	}
	if gvk.Kind == want.Kind {
		return nil
	}
	out, err := scheme.New(want.WithVersion(runtime.APIVersionInternal))
	if err != nil {
		return nil
	}
	if err := scheme.Convert(in, out, nil); err != nil {
		return cannotHandle(gvk, want.Kind, err)
	}
	return nil
}

// cannotHandle is the 400 of a body of gvk that the decoding of a kind
// failed on with err.
func cannotHandle(gvk schema.GroupVersionKind, kind string, err error) error {
	return status.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, kind, err))
}
