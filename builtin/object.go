package builtin

import (
	"bytes"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// Object is an object of a built-in kind as the server keeps it: the
// k8s.io/api value (a *appsv1.Deployment, say) with its metadata held
// in meta.ObjectMeta, the one the server's store and validation read.
//
// Value's own ObjectMeta and TypeMeta are kept empty: the metadata is
// ObjectMeta's alone, and the JSON of an Object is Value's JSON with
// ObjectMeta's in its metadata member. So an Object is written as
// kube-apiserver writes the typed object, its members in the Go type's
// order (metadata, spec, status), and read with the type's own decoding:
// a member of the wrong type is the cluster's 400, an unknown one is
// reported by field validation and dropped.
type Object struct {
	meta.TypeMeta
	meta.ObjectMeta
	// Value is the object of package k8s.io/api, without its metadata.
	Value runtime.Object

	// subresource is that of the write the object is the new object of
	// ("status", "scale" or ""), as the server told ObserveWrite: the
	// hooks choose the status strategy by it. Copies leave it out.
	subresource string
	// user is the writer, as the server told ObserveWrite (the zero
	// User without an authenticator): strategies read it (a
	// CertificateSigningRequest's spec.username). Copies leave it out.
	user auth.User
	// dryRun is the write's (ObserveWrite), alloc what a Service's
	// allocation made for it (ServiceAllocator.service). Copies leave
	// them out.
	dryRun bool
	alloc  *serviceAlloc
}

var (
	_ server.Object        = (*Object)(nil)
	_ server.WriteObserver = (*Object)(nil)
	_ json.Marshaler       = (*Object)(nil)
	_ json.Unmarshaler     = (*Object)(nil)
)

// Types returns the object's kind and apiVersion.
func (o *Object) Types() *meta.TypeMeta { return &o.TypeMeta }

// ObserveWrite keeps the subresource and the user of the write o is the
// new object of, for the resource's hooks.
func (o *Object) ObserveWrite(attrs server.Attributes) {
	o.subresource, o.user, o.dryRun = attrs.Subresource, attrs.User, attrs.DryRun
}

// DeepCopyObject returns a copy of o that shares no memory with it.
func (o *Object) DeepCopyObject() server.Object {
	c := &Object{TypeMeta: o.TypeMeta, ObjectMeta: *o.ObjectMeta.DeepCopy()}
	if o.Value != nil {
		c.Value = o.Value.DeepCopyObject()
	}
	return c
}

// emptyMetaPrefix starts the JSON of every k8s.io/api object whose
// TypeMeta and ObjectMeta are empty: the typed objects' metadata is
// their first member after the inline TypeMeta.
var emptyMetaPrefix = func() []byte {
	b, err := json.Marshal(struct {
		M metav1.ObjectMeta `json:"metadata"`
	}{})
	if err != nil {
		panic(err)
	}
	return b[:len(b)-1] // without the closing brace
}()

// MarshalJSON writes Value's JSON with the object's kind, apiVersion
// (when set) and metadata.
func (o *Object) MarshalJSON() ([]byte, error) {
	return o.appendJSON(nil)
}

func (o *Object) appendJSON(dst []byte) ([]byte, error) {
	v, err := json.Marshal(o.Value)
	if err != nil {
		return dst, err
	}
	rest, ok := bytes.CutPrefix(v, emptyMetaPrefix)
	if !ok {
		return dst, fmt.Errorf("builtin: the JSON of %T does not start with its metadata", o.Value)
	}
	m, err := json.Marshal(&o.ObjectMeta)
	if err != nil {
		return dst, err
	}
	dst = append(dst, '{')
	if o.Kind != "" {
		dst = append(dst, `"kind":`...)
		dst, _ = appendString(dst, o.Kind)
		dst = append(dst, ',')
	}
	if o.APIVersion != "" {
		dst = append(dst, `"apiVersion":`...)
		dst, _ = appendString(dst, o.APIVersion)
		dst = append(dst, ',')
	}
	dst = append(dst, `"metadata":`...)
	dst = append(dst, m...)
	return append(dst, rest...), nil
}

func appendString(dst []byte, s string) ([]byte, error) {
	b, err := json.Marshal(s)
	return append(dst, b...), err
}

// UnmarshalJSON reads an object as kube-apiserver decodes a request
// body of its kind, without field validation.
func (o *Object) UnmarshalJSON(data []byte) error {
	return o.decode(data, false, nil)
}

// UnmarshalJSONStrict reads an object and reports its unknown and
// duplicate fields as Kubernetes' strict decoding does (`unknown field
// "spec.foo"`); the unknown ones are dropped.
func (o *Object) UnmarshalJSONStrict(data []byte) (strict []error, err error) {
	err = o.decode(data, true, &strict)
	return strict, err
}

// typeAndMeta is what an Object reads from the JSON besides Value.
type typeAndMeta struct {
	meta.TypeMeta `json:",inline"`
	Metadata      meta.ObjectMeta `json:"metadata"`
}

func (o *Object) decode(data []byte, strict bool, strictErrs *[]error) error {
	if o.Value == nil {
		return fmt.Errorf("builtin: decoding into an Object without a Value")
	}
	v := o.Value.DeepCopyObject()
	zeroValue(v)
	var err error
	if strict {
		*strictErrs, err = kjson.UnmarshalStrict(data, v)
	} else {
		err = kjson.UnmarshalCaseSensitivePreserveInts(data, v)
	}
	if err != nil {
		return err
	}
	// Value decoded every member, metadata included, with the type's
	// own errors; read the metadata and type again into ours.
	var tm typeAndMeta
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &tm); err != nil {
		return err
	}
	clearMeta(v)
	o.TypeMeta, o.ObjectMeta, o.Value = tm.TypeMeta, tm.Metadata, v
	return nil
}

// zeroValue empties v, a pointer to a k8s.io/api struct.
func zeroValue(v runtime.Object) {
	type resetter interface{ Reset() }
	if r, ok := v.(resetter); ok {
		r.Reset() // the protobuf method: *v = T{}
	}
}

// clearMeta empties the TypeMeta and ObjectMeta of a k8s.io/api object.
func clearMeta(v runtime.Object) {
	v.GetObjectKind().SetGroupVersionKind(emptyGVK)
	if a, ok := v.(metav1.ObjectMetaAccessor); ok {
		if m, ok := a.GetObjectMeta().(*metav1.ObjectMeta); ok {
			*m = metav1.ObjectMeta{}
		}
	}
}
