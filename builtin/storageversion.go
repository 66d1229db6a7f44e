package builtin

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	basecompatibility "k8s.io/component-base/compatibility"

	"github.com/apisem/apisem/server"
)

// storageOverrides are the resources kube-apiserver 1.37 stores in a
// version other than the one its encoding rule picks, as
// k8s.io/kubernetes/pkg/kubeapiserver's NewStorageFactoryConfigEffectiveVersion
// lists them (those this module serves; that package needs far more than
// this module builds): a version new in 1.37 is stored only a release
// later, so that an apiserver of 1.36 can still read the objects.
var storageOverrides = map[schema.GroupResource]string{
	{Group: "certificates.k8s.io", Resource: "clustertrustbundles"}:          "v1beta1",
	{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}:       "v1beta1",
	{Group: "storagemigration.k8s.io", Resource: "storageversionmigrations"}: "v1beta1",
	{Group: "resource.k8s.io", Resource: "devicetaintrules"}:                 "v1beta2",
}

// sharedStorage are the resources kube-apiserver stores with another
// group's: its events.k8s.io/v1 Events are core Events
// (k8s.io/kubernetes/pkg/registry/events/rest serves the core storage).
var sharedStorage = map[schema.GroupResource]schema.GroupResource{
	{Group: "events.k8s.io", Resource: "events"}: {Resource: "events"},
}

// storageVersionHash is the storageVersionHash kube-apiserver 1.37 gives
// the kind: the hash of the version it stores the objects in.
func (k *kind) storageVersionHash() (string, error) {
	gv, err := k.storageVersion()
	if err != nil {
		return "", err
	}
	return server.StorageVersionHash(gv.Group, gv.Version, k.Kind), nil
}

// storageVersion is the group and version kube-apiserver 1.37 stores the
// kind's objects in, by k8s.io/apiserver's rule for an apiserver of 1.37
// compatible with 1.36 (the group's preferred version, unless it is
// newer than 1.36) and the overrides above: autoscaling/v2 for both
// versions of HorizontalPodAutoscalers, core v1 for Events.
func (k *kind) storageVersion() (schema.GroupVersion, error) {
	versions, err := storageVersions()
	return versions[k], err
}

// storageVersions are those of every kind, computed once: the rule asks
// the scheme about every version of a kind, which costs more than the
// rest of building a resource (2,500 allocations for all kinds).
var storageVersions = sync.OnceValues(func() (map[*kind]schema.GroupVersion, error) {
	enc := serverstorage.NewDefaultResourceEncodingConfigForEffectiveVersion(scheme,
		basecompatibility.NewEffectiveVersionFromString("1.37", "", ""))
	for r, v := range storageOverrides {
		enc.SetResourceEncoding(r, schema.GroupVersion{Group: r.Group, Version: v},
			schema.GroupVersion{Group: r.Group, Version: runtime.APIVersionInternal})
	}
	out := make(map[*kind]schema.GroupVersion, len(all))
	for _, k := range all {
		gr := schema.GroupResource{Group: k.Group, Resource: k.Plural}
		if shared, ok := sharedStorage[gr]; ok {
			gr = shared
		}
		example, err := scheme.New(schema.GroupVersionKind{Group: gr.Group, Version: runtime.APIVersionInternal, Kind: k.Kind})
		if err != nil {
			return nil, err
		}
		gv, err := enc.BackwardCompatibileStorageEncodingFor(gr, example)
		if err != nil {
			return nil, err
		}
		out[k] = gv
	}
	return out, nil
})
