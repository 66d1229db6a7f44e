package builtin

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// read returns the Resource.Read of a kind whose storage holds objects of
// another version too (autoscaling/v1 and v2 HorizontalPodAutoscalers,
// core/v1 and events.k8s.io/v1 Events): an object written through the
// other version is converted to this one through the internal type with
// Kubernetes' own conversion functions, as kube-apiserver decodes a
// stored object for the version a request names. Its metadata is the
// stored one (resourceVersion included), but for the annotations a
// conversion writes (autoscaling/v1 keeps v2's metrics in
// autoscaling.alpha.kubernetes.io/* annotations).
func (k *kind) read() func(server.Object) (server.Object, error) {
	own := reflect.TypeOf(k.newValue())
	return func(o server.Object) (server.Object, error) {
		obj := o.(*Object)
		if obj.Value == nil || reflect.TypeOf(obj.Value) == own {
			return o, nil // written through this version: the cheap case
		}
		return k.convert(obj)
	}
}

// convert returns obj, an object of another version of the kind, in the
// kind's version.
func (k *kind) convert(obj *Object) (server.Object, error) {
	in, err := k.internal(obj)
	if err != nil {
		return nil, err // a stored object that does not convert fails its read
	}
	out := &Object{TypeMeta: obj.TypeMeta}
	if err := k.setInternal(out, in); err != nil {
		return nil, err
	}
	return out, nil
}

// storageKind is the kind whose version the storage keeps k's objects in
// (autoscaling/v2's for both HorizontalPodAutoscalers, core v1's for
// both Events): k itself, or another version of its objects.
func (k *kind) storageKind() (*kind, error) {
	gv, err := k.storageVersion()
	if err != nil {
		return nil, err
	}
	for _, s := range all {
		if s.storage() == k.storage() && s.Group == gv.Group && s.Version == gv.Version {
			return s, nil
		}
	}
	return nil, fmt.Errorf("builtin: %s/%s %s is stored as %s, which is not served", k.Group, k.Version, k.Kind, gv)
}

// toStorage returns the Resource.ToStorage of a kind whose objects the
// storage keeps in the version of another, s: a written object is
// converted to s's version, as kube-apiserver's storage encodes every
// object of a resource in its storage version, so that a write through
// k that changes nothing of the stored object writes nothing, and
// metadata-only answers show the stored metadata (autoscaling/v1's
// conversion moves the autoscaling.alpha.kubernetes.io annotations into
// v2's spec and status).
func (k *kind) toStorage(s *kind) func(context.Context, server.Object) (server.Object, error) {
	return func(_ context.Context, o server.Object) (server.Object, error) {
		obj := o.(*Object)
		in, err := k.internal(obj)
		if err != nil {
			return nil, err
		}
		out := &Object{}
		if err := s.setInternal(out, in); err != nil {
			return nil, err
		}
		return out, nil
	}
}

// convertTo returns the Resource.ConvertTo of a kind whose storage holds
// other versions of its objects: to another version of its group
// through the internal type, as kube-apiserver's field manager converts
// an object for the managedFields entries of another version
// (autoscaling/v1 and v2), and to none of another group's (Events: that
// converter's hub is the group's internal version, which knows no other
// group, so kube-apiserver drops such entries).
func (k *kind) convertTo() func(server.Object, string) (server.Object, bool, error) {
	return func(o server.Object, apiVersion string) (server.Object, bool, error) {
		for _, s := range all {
			if s == k || s.storage() != k.storage() || s.Group != k.Group || s.gvk().GroupVersion().String() != apiVersion {
				continue
			}
			in, err := k.internal(o.(*Object))
			if err != nil {
				return nil, false, err
			}
			out := &Object{}
			if err := s.setInternal(out, in); err != nil {
				return nil, false, err
			}
			return out, true, nil
		}
		return nil, false, nil
	}
}

// storedAs returns the Resource.StoredAs of a kind whose storage holds
// other versions of its objects: the version an object is in, known by
// the type of its Value, so that the etcd storage labels its value with
// it. That is the storage version (toStorage converts every write) but
// for objects stored before the conversion on write, kept in the version
// that wrote them until an update through the pipeline converts them.
func (k *kind) storedAs() func(server.Object) meta.TypeMeta {
	byType := map[reflect.Type]meta.TypeMeta{}
	for _, s := range all {
		if s.storage() == k.storage() {
			gvk := s.gvk()
			byType[reflect.TypeOf(s.newValue())] = meta.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}
		}
	}
	return func(o server.Object) meta.TypeMeta {
		if obj, ok := o.(*Object); ok && obj.Value != nil {
			return byType[reflect.TypeOf(obj.Value)]
		}
		return meta.TypeMeta{}
	}
}
