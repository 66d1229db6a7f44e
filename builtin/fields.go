package builtin

import (
	"maps"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/fields"

	"github.com/apisem/apisem/server"
)

// fields returns the kind's field-selector fields beyond metadata.name
// and metadata.namespace (which the server serves itself), as its
// registry's GetAttrs gives them (spec.nodeName and status.phase of
// Pods, type of Secrets, involvedObject.* of Events, ...) under the
// labels its field label conversion maps to them (regarding.* of
// events.k8s.io Events, and Labels); nil without
// any. A field its field label conversion refuses is left out, as
// kube-apiserver refuses it before the registry sees it (a ReplicaSet's
// status.replicas, a PersistentVolume's name).
func (k *kind) fields() map[string]func(server.Object) string {
	if k.Attrs == nil {
		return nil
	}
	empty, err := scheme.New(k.internalGVK())
	if err != nil {
		return nil
	}
	_, set, err := k.Attrs(empty)
	if err != nil {
		return nil
	}
	fc := &fieldCache{k: k}
	out := map[string]func(server.Object) string{}
	for _, label := range append(slices.Collect(maps.Keys(set)), k.Labels...) {
		if slices.Contains([]string{"metadata.name", "metadata.namespace"}, label) {
			continue
		}
		// The conversion names the registry's field of the label.
		name, _, err := scheme.ConvertFieldLabel(k.gvk(), label, "")
		if err != nil {
			continue
		}
		if _, ok := set[name]; !ok {
			continue
		}
		out[label] = func(o server.Object) string { return fc.fields(o.(*Object))[name] }
	}
	return out
}

// unknownField is the message of the 400 that answers a field selector
// on a field the kind lacks: the error of its field label conversion, as
// kube-apiserver's (k8s.io/kubernetes registers one for the kinds with
// fields of their own, with texts of their own; the others get the
// default, which names metadata.name and metadata.namespace).
func (k *kind) unknownField() func(string) string {
	gvk := k.gvk()
	return func(label string) string {
		if _, _, err := scheme.ConvertFieldLabel(gvk, label, ""); err != nil {
			return err.Error()
		}
		// A field the conversion knows and the registry does not give.
		return "field label not supported: " + label
	}
}

// fieldCache remembers the fields of the last object asked about, since
// the server asks for them one at a time and GetAttrs gives all of them
// from the internal form.
type fieldCache struct {
	k *kind

	mu  sync.Mutex
	obj *Object // the object of set; stored objects never change
	set fields.Set
}

func (fc *fieldCache) fields(o *Object) fields.Set {
	fc.mu.Lock()
	if fc.obj == o {
		s := fc.set
		fc.mu.Unlock()
		return s
	}
	fc.mu.Unlock()
	var set fields.Set
	if in, err := fc.k.internal(o); err == nil {
		_, set, _ = fc.k.Attrs(in)
	}
	fc.mu.Lock()
	fc.obj, fc.set = o, set
	fc.mu.Unlock()
	return set
}
