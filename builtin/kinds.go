package builtin

import (
	"strings"

	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apisem/apisem/validation"

	// The groups' types, defaults and conversions, in legacyscheme.
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"

	// Their strategies: what kube-apiserver's registry does to an object
	// of each kind on create and update, and its validation.
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/networking/servicecidr"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/csinode"
	"k8s.io/kubernetes/pkg/registry/storage/csistoragecapacity"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattributesclass"
	"k8s.io/kubernetes/pkg/registry/storagemigration/storagemigration"
)

// kind is one served built-in resource: its names, as kubectl
// api-resources lists them on a v1.37 cluster, and the strategies of
// kube-apiserver's registry for it.
type kind struct {
	Group, Version, Kind, Plural string
	ShortNames                   []string
	Categories                   []string
	Namespaced                   bool
	// Names is the rule of metadata.name.
	Names nameRule
	// Strategy is the registry's strategy for the resource, Status its
	// strategy for the status subresource (nil without one).
	Strategy, Status any
	// ScalePath is the spec replicas of a resource with the scale
	// subresource ("" without one).
	ScalePath string
	// Attrs are the registry's fields for field selectors (GetAttrs),
	// nil for a kind with only metadata.name and metadata.namespace.
	Attrs func(runtime.Object) (labels.Set, fields.Set, error)
	// StoredWith, "group/Kind" ("Kind" in the core group), names the
	// kind whose storage holds this one's objects, as another version of
	// them, when it is of another group: events.k8s.io's Events are core
	// Events inside and in kube-apiserver's storage. The versions of one
	// group and resource (autoscaling/v1 and v2 HorizontalPodAutoscalers)
	// share their storage without it.
	StoredWith string
	// Labels are field labels a field selector takes beyond the names
	// Attrs gives, which the kind's field label conversion maps to them:
	// events.k8s.io's regarding.* and reportingController are the core
	// Event's involvedObject.* and reportingComponent.
	Labels []string
}

// all are the served kinds, by group in the order of kubectl
// api-resources. Namespace is not among them: package namespace serves
// it (see the package doc).
var all = []*kind{
	// core/v1
	{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", ShortNames: []string{"cm"}, Namespaced: true, Strategy: configmap.Strategy, Attrs: configmap.GetAttrs},
	{Version: "v1", Kind: "Endpoints", Plural: "endpoints", ShortNames: []string{"ep"}, Namespaced: true, Strategy: endpoint.Strategy},
	{Version: "v1", Kind: "Event", Plural: "events", ShortNames: []string{"ev"}, Namespaced: true, Strategy: event.Strategy, Attrs: event.GetAttrs},
	{Version: "v1", Kind: "LimitRange", Plural: "limitranges", ShortNames: []string{"limits"}, Namespaced: true, Strategy: limitrange.Strategy},
	{Version: "v1", Kind: "Node", Plural: "nodes", ShortNames: []string{"no"}, Strategy: node.Strategy, Status: node.StatusStrategy, Attrs: node.GetAttrs},
	{Version: "v1", Kind: "PersistentVolumeClaim", Plural: "persistentvolumeclaims", ShortNames: []string{"pvc"}, Namespaced: true,
		Strategy: persistentvolumeclaim.Strategy, Status: persistentvolumeclaim.StatusStrategy, Attrs: persistentvolumeclaim.GetAttrs},
	{Version: "v1", Kind: "PersistentVolume", Plural: "persistentvolumes", ShortNames: []string{"pv"},
		Strategy: persistentvolume.Strategy, Status: persistentvolume.StatusStrategy, Attrs: persistentvolume.GetAttrs},
	{Version: "v1", Kind: "Pod", Plural: "pods", ShortNames: []string{"po"}, Categories: []string{"all"}, Namespaced: true,
		Strategy: pod.Strategy, Status: pod.StatusStrategy, Attrs: pod.GetAttrs},
	{Version: "v1", Kind: "PodTemplate", Plural: "podtemplates", Namespaced: true, Strategy: podtemplate.Strategy},
	{Version: "v1", Kind: "ReplicationController", Plural: "replicationcontrollers", ShortNames: []string{"rc"}, Categories: []string{"all"},
		Namespaced: true, Strategy: replicationcontroller.Strategy, Status: replicationcontroller.StatusStrategy, ScalePath: ".spec.replicas",
		Attrs: replicationcontroller.GetAttrs},
	{Version: "v1", Kind: "ResourceQuota", Plural: "resourcequotas", ShortNames: []string{"quota"}, Namespaced: true,
		Strategy: resourcequota.Strategy, Status: resourcequota.StatusStrategy},
	{Version: "v1", Kind: "Secret", Plural: "secrets", Namespaced: true, Strategy: secret.Strategy, Attrs: secret.GetAttrs},
	{Version: "v1", Kind: "ServiceAccount", Plural: "serviceaccounts", ShortNames: []string{"sa"}, Namespaced: true, Strategy: serviceaccount.Strategy},
	{Version: "v1", Kind: "Service", Plural: "services", ShortNames: []string{"svc"}, Categories: []string{"all"}, Namespaced: true,
		Names: dns1035Label, Strategy: service.Strategy, Status: service.StatusStrategy, Attrs: service.GetAttrs},

	// admissionregistration.k8s.io/v1
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicy", Plural: "mutatingadmissionpolicies",
		Categories: []string{"api-extensions"}, Strategy: mapStrategy},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingAdmissionPolicyBinding", Plural: "mutatingadmissionpolicybindings",
		Categories: []string{"api-extensions"}, Strategy: mapbStrategy},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration", Plural: "mutatingwebhookconfigurations",
		Categories: []string{"api-extensions"}, Strategy: mutatingwebhookconfiguration.Strategy},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicy", Plural: "validatingadmissionpolicies",
		Categories: []string{"api-extensions"}, Strategy: vapStrategy, Status: validatingadmissionpolicy.NewStatusStrategy(vapStrategy)},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingAdmissionPolicyBinding", Plural: "validatingadmissionpolicybindings",
		Categories: []string{"api-extensions"}, Strategy: vapbStrategy},
	{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration", Plural: "validatingwebhookconfigurations",
		Categories: []string{"api-extensions"}, Strategy: validatingwebhookconfiguration.Strategy},

	// apps/v1
	{Group: "apps", Version: "v1", Kind: "ControllerRevision", Plural: "controllerrevisions", Namespaced: true, Strategy: controllerrevision.Strategy},
	{Group: "apps", Version: "v1", Kind: "DaemonSet", Plural: "daemonsets", ShortNames: []string{"ds"}, Categories: []string{"all"}, Namespaced: true,
		Strategy: daemonset.Strategy, Status: daemonset.StatusStrategy},
	{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", ShortNames: []string{"deploy"}, Categories: []string{"all"}, Namespaced: true,
		Strategy: deployment.Strategy, Status: deployment.StatusStrategy, ScalePath: ".spec.replicas"},
	{Group: "apps", Version: "v1", Kind: "ReplicaSet", Plural: "replicasets", ShortNames: []string{"rs"}, Categories: []string{"all"}, Namespaced: true,
		Strategy: replicaset.Strategy, Status: replicaset.StatusStrategy, ScalePath: ".spec.replicas", Attrs: replicaset.GetAttrs},
	{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", ShortNames: []string{"sts"}, Categories: []string{"all"}, Namespaced: true,
		Strategy: statefulset.Strategy, Status: statefulset.StatusStrategy, ScalePath: ".spec.replicas"},

	// autoscaling/v2 and v1, one storage (v2 first: the preferred version)
	{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler", Plural: "horizontalpodautoscalers", ShortNames: []string{"hpa"},
		Categories: []string{"all"}, Namespaced: true, Strategy: horizontalpodautoscaler.Strategy, Status: horizontalpodautoscaler.StatusStrategy},
	{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler", Plural: "horizontalpodautoscalers", ShortNames: []string{"hpa"},
		Categories: []string{"all"}, Namespaced: true, Strategy: horizontalpodautoscaler.Strategy, Status: horizontalpodautoscaler.StatusStrategy},

	// batch/v1
	{Group: "batch", Version: "v1", Kind: "CronJob", Plural: "cronjobs", ShortNames: []string{"cj"}, Categories: []string{"all"}, Namespaced: true,
		Strategy: cronjob.Strategy, Status: cronjob.StatusStrategy},
	{Group: "batch", Version: "v1", Kind: "Job", Plural: "jobs", Categories: []string{"all"}, Namespaced: true,
		Strategy: job.Strategy, Status: job.StatusStrategy, Attrs: job.GetAttrs},

	// certificates.k8s.io/v1
	{Group: "certificates.k8s.io", Version: "v1", Kind: "CertificateSigningRequest", Plural: "certificatesigningrequests", ShortNames: []string{"csr"},
		Strategy: certificates.Strategy, Status: certificates.StatusStrategy, Attrs: certificates.GetAttrs},
	{Group: "certificates.k8s.io", Version: "v1", Kind: "ClusterTrustBundle", Plural: "clustertrustbundles",
		Names: pathSegment, Strategy: clustertrustbundle.Strategy, Attrs: clusterTrustBundleAttrs},
	{Group: "certificates.k8s.io", Version: "v1", Kind: "PodCertificateRequest", Plural: "podcertificaterequests", Namespaced: true,
		Strategy: pcrStrategy, Status: pcrStatusStrategy, Attrs: podCertificateRequestAttrs},

	// coordination.k8s.io/v1
	{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease", Plural: "leases", Namespaced: true, Strategy: lease.Strategy},

	// discovery.k8s.io/v1
	{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice", Plural: "endpointslices", Namespaced: true, Strategy: endpointslice.Strategy},

	// events.k8s.io/v1
	{Group: "events.k8s.io", Version: "v1", Kind: "Event", Plural: "events", ShortNames: []string{"ev"}, Namespaced: true,
		Strategy: event.Strategy, StoredWith: "Event", Attrs: event.GetAttrs,
		Labels: []string{"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
			"regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reportingController"}},

	// flowcontrol.apiserver.k8s.io/v1
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "FlowSchema", Plural: "flowschemas",
		Strategy: flowschema.Strategy, Status: flowschema.StatusStrategy},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1", Kind: "PriorityLevelConfiguration", Plural: "prioritylevelconfigurations",
		Strategy: prioritylevelconfiguration.Strategy, Status: prioritylevelconfiguration.StatusStrategy},

	// networking.k8s.io/v1
	{Group: "networking.k8s.io", Version: "v1", Kind: "IngressClass", Plural: "ingressclasses", Strategy: ingressclass.Strategy},
	{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress", Plural: "ingresses", ShortNames: []string{"ing"}, Namespaced: true,
		Strategy: ingress.Strategy, Status: ingress.StatusStrategy},
	{Group: "networking.k8s.io", Version: "v1", Kind: "IPAddress", Plural: "ipaddresses", ShortNames: []string{"ip"},
		Names: pathSegment, Strategy: ipaddress.Strategy},
	{Group: "networking.k8s.io", Version: "v1", Kind: "NetworkPolicy", Plural: "networkpolicies", ShortNames: []string{"netpol"}, Namespaced: true,
		Strategy: networkpolicy.Strategy},
	{Group: "networking.k8s.io", Version: "v1", Kind: "ServiceCIDR", Plural: "servicecidrs",
		Names: pathSegment, Strategy: servicecidr.Strategy, Status: servicecidr.StatusStrategy},

	// node.k8s.io/v1
	{Group: "node.k8s.io", Version: "v1", Kind: "RuntimeClass", Plural: "runtimeclasses", Strategy: runtimeclass.Strategy},

	// policy/v1
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget", Plural: "poddisruptionbudgets", ShortNames: []string{"pdb"}, Namespaced: true,
		Strategy: poddisruptionbudget.Strategy, Status: poddisruptionbudget.StatusStrategy},

	// rbac.authorization.k8s.io/v1
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding", Plural: "clusterrolebindings",
		Names: pathSegment, Strategy: clusterrolebinding.Strategy},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Plural: "clusterroles",
		Names: pathSegment, Strategy: clusterrole.Strategy},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding", Plural: "rolebindings", Namespaced: true,
		Names: pathSegment, Strategy: rolebinding.Strategy},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role", Plural: "roles", Namespaced: true,
		Names: pathSegment, Strategy: role.Strategy},

	// resource.k8s.io/v1
	{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceClass", Plural: "deviceclasses", Strategy: deviceclass.Strategy},
	{Group: "resource.k8s.io", Version: "v1", Kind: "DeviceTaintRule", Plural: "devicetaintrules",
		Strategy: devicetaintrule.Strategy, Status: devicetaintrule.StatusStrategy},
	{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim", Plural: "resourceclaims", Namespaced: true,
		Strategy: claimStrategy, Status: claimStatusStrategy, Attrs: resourceclaim.GetAttrs},
	{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaimTemplate", Plural: "resourceclaimtemplates", Namespaced: true,
		Strategy: claimTemplateStrategy, Attrs: resourceclaimtemplate.GetAttrs},
	{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceSlice", Plural: "resourceslices",
		Strategy: resourceslice.Strategy, Attrs: resourceslice.GetAttrs},

	// scheduling.k8s.io/v1
	{Group: "scheduling.k8s.io", Version: "v1", Kind: "PriorityClass", Plural: "priorityclasses", ShortNames: []string{"pc"}, Strategy: priorityclass.Strategy},

	// storage.k8s.io/v1
	{Group: "storage.k8s.io", Version: "v1", Kind: "CSIDriver", Plural: "csidrivers", Strategy: csidriver.Strategy},
	{Group: "storage.k8s.io", Version: "v1", Kind: "CSINode", Plural: "csinodes", Strategy: csinode.Strategy, Status: csinode.StatusStrategy},
	{Group: "storage.k8s.io", Version: "v1", Kind: "CSIStorageCapacity", Plural: "csistoragecapacities", Namespaced: true,
		Strategy: csistoragecapacity.Strategy},
	{Group: "storage.k8s.io", Version: "v1", Kind: "StorageClass", Plural: "storageclasses", ShortNames: []string{"sc"}, Strategy: storageclass.Strategy},
	{Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttachment", Plural: "volumeattachments",
		Strategy: volumeattachment.Strategy, Status: volumeattachment.StatusStrategy},
	{Group: "storage.k8s.io", Version: "v1", Kind: "VolumeAttributesClass", Plural: "volumeattributesclasses", ShortNames: []string{"vac"},
		Strategy: volumeattributesclass.Strategy},

	// storagemigration.k8s.io/v1
	{Group: "storagemigration.k8s.io", Version: "v1", Kind: "StorageVersionMigration", Plural: "storageversionmigrations",
		Strategy: storagemigration.Strategy, Status: storagemigration.StatusStrategy},
}

// gvk is the kind's versioned GroupVersionKind.
func (k *kind) gvk() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

// internalGVK is the GroupVersionKind of the kind's internal type.
func (k *kind) internalGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: k.storageGroup(), Version: runtime.APIVersionInternal, Kind: k.Kind}
}

// storageGroup is the group of the kind's storage and internal type:
// StoredWith's, or Group.
func (k *kind) storageGroup() string {
	if k.StoredWith == "" {
		return k.Group
	}
	g, _, ok := strings.Cut(k.StoredWith, "/")
	if !ok {
		return ""
	}
	return g
}

// storage is the group and resource of the storage that holds the
// kind's objects.
func (k *kind) storage() string { return k.storageGroup() + "/" + k.Plural }

// etcdPrefixes are the etcd paths kube-apiserver keeps some built-in
// resources under instead of the resource's name (its storage factory's
// SpecialDefaultResourcePrefixes, k8s.io/kubernetes/pkg/kubeapiserver),
// by group and resource of the storage.
var etcdPrefixes = map[string]string{
	"/replicationcontrollers":     "controllers",
	"/endpoints":                  "services/endpoints",
	"/nodes":                      "minions",
	"/services":                   "services/specs",
	"networking.k8s.io/ingresses": "ingress",
}

// etcdPrefix is the path of the kind's objects in etcd below /registry,
// as kube-apiserver keeps a built-in kind's: its storage's resource
// alone, whatever the group, or the path etcdPrefixes names
// (examples/server/testdata/reference-v1.37.1-etcd-keys.txt
// records them).
func (k *kind) etcdPrefix() string {
	if p, ok := etcdPrefixes[k.storage()]; ok {
		return p
	}
	return k.Plural
}

// newValue returns an empty object of the kind's k8s.io/api type.
func (k *kind) newValue() runtime.Object {
	v, err := scheme.New(k.gvk())
	if err != nil {
		panic(err) // every kind of the table is in the scheme (see TestKinds)
	}
	return v
}

// nameRule is a rule of metadata.name, as the validation of each kind
// has it (k8s.io/apimachinery/pkg/api/validation ValidateNameFunc).
type nameRule int

const (
	dnsSubdomain nameRule = iota // most kinds
	dns1035Label                 // Services
	pathSegment                  // RBAC's kinds
)

// ours returns the rule for server.Resource.Names.
func (r nameRule) ours() validation.NameFunc {
	switch r {
	case dns1035Label:
		return nameIsDNS1035Label
	case pathSegment:
		return validation.NameIsPathSegment
	}
	return validation.NameIsDNSSubdomain
}

// theirs returns Kubernetes' function of the rule.
func (r nameRule) theirs() genericvalidation.ValidateNameFunc {
	switch r {
	case dns1035Label:
		return genericvalidation.NameIsDNS1035Label
	case pathSegment:
		return path.ValidatePathSegmentName
	}
	return genericvalidation.NameIsDNSSubdomain
}

// nameIsDNS1035Label is Kubernetes' rule for a Service's name.
func nameIsDNS1035Label(name string, prefix bool) []string {
	if prefix {
		name = maskTrailingDash(name)
	}
	return validation.IsDNS1035Label(name)
}

// maskTrailingDash replaces a generateName's final dash, which the
// generated suffix will follow, with a letter, as Kubernetes does.
func maskTrailingDash(name string) string {
	if len(name) > 1 && name[len(name)-1] == '-' {
		return name[:len(name)-2] + "a"
	}
	return name
}
