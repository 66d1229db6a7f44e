package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	kjson "sigs.k8s.io/json"

	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// The differential test: each case is written to our server over HTTP
// and given to Kubernetes' own code, called here as kube-apiserver calls
// it for a request (its decoding and defaulting through legacyscheme,
// then rest.BeforeCreate or rest.BeforeUpdate with the kind's registry
// strategy, which prepare and validate the object); the answers must be
// the same: the stored object with its defaults, or the status code,
// reason, message and causes of the error.

const (
	podTemplate = `{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	jobTemplate = `{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}`
	selector    = `{"matchLabels":{"app":"a"}}`

	deploymentRules = `{"resourceRules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["CREATE","UPDATE"],"resources":["deployments"]}]}`

	// testCA is a self-signed CA certificate (P-256, valid until 2126),
	// for a ClusterTrustBundle.
	testCA = `-----BEGIN CERTIFICATE-----
MIIBiTCCAS+gAwIBAgIUSI6U6r+brPjC5sE/kTBGnAGqtsUwCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOYXBpc2VtLXRlc3QtY2EwIBcNMjYxMTI3MTM0NDQ4WhgPMjEy
NjExMDMxMzQ0NDhaMBkxFzAVBgNVBAMMDmFwaXNlbS10ZXN0LWNhMFkwEwYHKoZI
zj0CAQYIKoZIzj0DAQcDQgAE1tI7Xw9fNq5xVlqRUrpvb52DuZiy+WCzEMgNq6GK
mwgPR503+oZHjm8VyZLzdZ/dfvAKEOYOsj6F/xaQxvTgnqNTMFEwHQYDVR0OBBYE
FAXWxzrmsiYaUOlY/XdFanTVa6X0MB8GA1UdIwQYMBaAFAXWxzrmsiYaUOlY/XdF
anTVa6X0MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIgcIzq67u+
mq5K5ahVOPh0xjmvRqaCH46xvgcamUHq7nwCIQDzRvY68NI9TEV2yZHkdnuuynfn
8XVD25RkGFNiias2FA==
-----END CERTIFICATE-----
`
)

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

type diffCase struct {
	name string
	kind string // Kind, or group/Kind outside the core group
	// body is created; update, when set, then replaces it.
	body, update string
	// differs, when set, says how our answer differs on purpose.
	differs string
}

var diffCases = []diffCase{
	{name: "deployment defaults", kind: "apps/Deployment",
		body: `{"metadata":{"name":"d"},"spec":{"selector":` + selector + `,"template":` + podTemplate + `}}`},
	{name: "deployment selector does not match", kind: "apps/Deployment",
		body: `{"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"b"}},"template":` + podTemplate + `}}`},
	{name: "deployment bad strategy", kind: "apps/Deployment",
		body: `{"metadata":{"name":"d"},"spec":{"replicas":-1,"strategy":{"type":"Recreate","rollingUpdate":{"maxSurge":1}},"selector":` + selector + `,"template":` + podTemplate + `}}`},
	{name: "deployment image update", kind: "apps/Deployment",
		body:   `{"metadata":{"name":"d"},"spec":{"selector":` + selector + `,"template":` + podTemplate + `}}`,
		update: `{"metadata":{"name":"d"},"spec":{"selector":` + selector + `,"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"nginx:2"}]}}}}`},
	{name: "deployment selector is immutable", kind: "apps/Deployment",
		body:   `{"metadata":{"name":"d"},"spec":{"selector":` + selector + `,"template":` + podTemplate + `}}`,
		update: `{"metadata":{"name":"d","labels":{"x":"y"}},"spec":{"selector":{"matchLabels":{"app":"a","b":"c"}},"template":{"metadata":{"labels":{"app":"a","b":"c"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`},
	{name: "replicaset", kind: "apps/ReplicaSet",
		body: `{"metadata":{"name":"r"},"spec":{"replicas":2,"selector":` + selector + `,"template":` + podTemplate + `}}`},
	{name: "replicaset without selector", kind: "apps/ReplicaSet",
		body: `{"metadata":{"name":"r"},"spec":{"template":` + podTemplate + `}}`},
	{name: "statefulset", kind: "apps/StatefulSet",
		body: `{"metadata":{"name":"s"},"spec":{"serviceName":"s","selector":` + selector + `,"template":` + podTemplate + `}}`},
	{name: "statefulset bad policy", kind: "apps/StatefulSet",
		body: `{"metadata":{"name":"s"},"spec":{"podManagementPolicy":"Sometimes","selector":` + selector + `,"template":` + podTemplate + `}}`},
	{name: "daemonset", kind: "apps/DaemonSet",
		body: `{"metadata":{"name":"ds"},"spec":{"selector":` + selector + `,"template":` + podTemplate + `}}`},
	{name: "daemonset restart policy", kind: "apps/DaemonSet",
		body: `{"metadata":{"name":"ds"},"spec":{"selector":` + selector + `,"template":{"metadata":{"labels":{"app":"a"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}}}}`},
	{name: "pod", kind: "Pod",
		body: `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}}`},
	{name: "pod without containers", kind: "Pod", body: `{"metadata":{"name":"p"},"spec":{}}`},
	{name: "pod bad container", kind: "Pod",
		body: `{"metadata":{"name":"p"},"spec":{"restartPolicy":"Sometimes","containers":[{"name":"C_1","image":""},{"name":"C_1","image":"x","ports":[{"containerPort":0}]}]}}`},
	{name: "pod spec update", kind: "Pod",
		body:   `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`,
		update: `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"},{"name":"d","image":"x"}]}}`},
	{name: "service", kind: "Service", body: `{"metadata":{"name":"s"},"spec":{"selector":{"app":"a"},"ports":[{"port":80,"targetPort":8080}]}}`},
	{name: "service bad port", kind: "Service", body: `{"metadata":{"name":"s"},"spec":{"type":"Nowhere","ports":[{"port":0}]}}`},
	{name: "service account", kind: "ServiceAccount", body: `{"metadata":{"name":"sa"}}`},
	{name: "secret", kind: "Secret", body: `{"metadata":{"name":"s"},"stringData":{"a":"b"},"data":{"c":"ZA=="}}`},
	{name: "secret tls without key", kind: "Secret", body: `{"metadata":{"name":"s"},"type":"kubernetes.io/tls","data":{"tls.crt":"ZA=="}}`},
	{name: "configmap", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"a":"b"}}`},
	{name: "configmap bad key", kind: "ConfigMap", body: `{"metadata":{"name":"c"},"data":{"a b":"c"},"binaryData":{"a b":"ZA=="}}`},
	{name: "configmap immutable", kind: "ConfigMap",
		body:   `{"metadata":{"name":"c"},"immutable":true,"data":{"a":"b"}}`,
		update: `{"metadata":{"name":"c"},"immutable":true,"data":{"a":"c"}}`},
	// Kubernetes checks the metadata of an update twice (as a create's
	// and as an update's) and reports each distinct error once.
	{name: "configmap bad labels on update", kind: "ConfigMap",
		body:   `{"metadata":{"name":"c"},"data":{"a":"b"}}`,
		update: `{"metadata":{"name":"c","labels":{"a":"-","b":"-"},"annotations":{"-x":"y"}},"data":{"a":"b"}}`},
	{name: "configmap bad labels", kind: "ConfigMap", body: `{"metadata":{"name":"c","labels":{"a":"-","b":"-"}},"data":{"a b":"c"}}`},
	{name: "secret bad label on update", kind: "Secret",
		body:   `{"metadata":{"name":"s"},"data":{"a":"ZA=="}}`,
		update: `{"metadata":{"name":"s","labels":{"a":"-"},"ownerReferences":[{"apiVersion":"v1","kind":"X","name":"","uid":""}]},"data":{"a":"ZA=="}}`},
	{name: "endpoints", kind: "Endpoints", body: `{"metadata":{"name":"e"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]}`},
	{name: "endpoints bad ip", kind: "Endpoints", body: `{"metadata":{"name":"e"},"subsets":[{"addresses":[{"ip":"x"}],"ports":[{"port":80}]}]}`},
	{name: "pvc", kind: "PersistentVolumeClaim",
		body: `{"metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`},
	{name: "pvc without access modes", kind: "PersistentVolumeClaim", body: `{"metadata":{"name":"c"},"spec":{}}`},
	{name: "pv", kind: "PersistentVolume",
		body: `{"metadata":{"name":"v"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp"}}}`},
	{name: "pv without source", kind: "PersistentVolume", body: `{"metadata":{"name":"v"},"spec":{"capacity":{"storage":"1Gi"}}}`},
	{name: "node", kind: "Node", body: `{"metadata":{"name":"n"},"spec":{"podCIDR":"10.0.0.0/24"}}`},
	{name: "node bad taint", kind: "Node", body: `{"metadata":{"name":"n"},"spec":{"taints":[{"key":"k","effect":"Sometimes"}]}}`},
	{name: "event", kind: "Event",
		body: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m","type":"Normal"}`},
	{name: "event wrong namespace", kind: "Event",
		body: `{"metadata":{"name":"e"},"involvedObject":{"kind":"Pod","name":"p","namespace":"other"},"type":"Odd"}`},
	// A Job's generated selector names its uid, which our store sets
	// after the strategy ran: the valid case chooses its selector.
	{name: "job", kind: "batch/Job", body: `{"metadata":{"name":"j"},"spec":{"manualSelector":true,"selector":` + selector +
		`,"template":{"metadata":{"labels":{"app":"a"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`},
	{name: "job restart always", kind: "batch/Job",
		body: `{"metadata":{"name":"j"},"spec":{"parallelism":-1,"template":{"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
	{name: "cronjob", kind: "batch/CronJob",
		body: `{"metadata":{"name":"cj"},"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{"template":` + jobTemplate + `}}}}`},
	{name: "cronjob bad schedule", kind: "batch/CronJob",
		body: `{"metadata":{"name":"cj"},"spec":{"schedule":"every day","jobTemplate":{"spec":{"template":` + jobTemplate + `}}}}`},
	{name: "lease", kind: "coordination.k8s.io/Lease", body: `{"metadata":{"name":"l"},"spec":{"holderIdentity":"me","leaseDurationSeconds":15}}`},
	{name: "lease bad duration", kind: "coordination.k8s.io/Lease", body: `{"metadata":{"name":"l"},"spec":{"leaseDurationSeconds":0,"leaseTransitions":-1}}`},
	{name: "role", kind: "rbac.authorization.k8s.io/Role",
		body: `{"metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`},
	{name: "role without verbs", kind: "rbac.authorization.k8s.io/Role",
		body: `{"metadata":{"name":"r"},"rules":[{"apiGroups":[""],"resources":["pods"]}]}`},
	{name: "rolebinding", kind: "rbac.authorization.k8s.io/RoleBinding",
		body: `{"metadata":{"name":"rb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},"subjects":[{"kind":"ServiceAccount","name":"sa"}]}`},
	{name: "rolebinding bad ref", kind: "rbac.authorization.k8s.io/RoleBinding",
		body: `{"metadata":{"name":"rb"},"roleRef":{"apiGroup":"x","kind":"Thing"},"subjects":[{"kind":"Robot","name":"r"}]}`},
	{name: "clusterrole", kind: "rbac.authorization.k8s.io/ClusterRole",
		body: `{"metadata":{"name":"system:thing"},"rules":[{"nonResourceURLs":["/healthz"],"verbs":["get"]}]}`},
	{name: "clusterrolebinding bad subject", kind: "rbac.authorization.k8s.io/ClusterRoleBinding",
		body: `{"metadata":{"name":"crb"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"c"},"subjects":[{"kind":"ServiceAccount","name":"sa"}]}`},
	{name: "ingress", kind: "networking.k8s.io/Ingress",
		body: `{"metadata":{"name":"i"},"spec":{"rules":[{"host":"example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"s","port":{"number":80}}}}]}}]}}`},
	{name: "ingress bad path", kind: "networking.k8s.io/Ingress",
		body: `{"metadata":{"name":"i"},"spec":{"rules":[{"host":"*.*","http":{"paths":[{"path":"x","backend":{}}]}}]}}`},
	{name: "networkpolicy", kind: "networking.k8s.io/NetworkPolicy",
		body: `{"metadata":{"name":"np"},"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80}]}]}}`},
	{name: "networkpolicy bad type", kind: "networking.k8s.io/NetworkPolicy",
		body: `{"metadata":{"name":"np"},"spec":{"podSelector":{},"policyTypes":["Sideways"]}}`},
	{name: "ingressclass without controller", kind: "networking.k8s.io/IngressClass", body: `{"metadata":{"name":"ic"},"spec":{}}`},
	{name: "pdb", kind: "policy/PodDisruptionBudget", body: `{"metadata":{"name":"pdb"},"spec":{"minAvailable":1,"selector":` + selector + `}}`},
	{name: "pdb both bounds", kind: "policy/PodDisruptionBudget",
		body: `{"metadata":{"name":"pdb"},"spec":{"minAvailable":1,"maxUnavailable":"150%"}}`},
	{name: "hpa", kind: "autoscaling/HorizontalPodAutoscaler",
		body: `{"metadata":{"name":"h"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"},"maxReplicas":3}}`},
	{name: "hpa bad bounds", kind: "autoscaling/HorizontalPodAutoscaler",
		body: `{"metadata":{"name":"h"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"d"},"minReplicas":5,"maxReplicas":3}}`},
	{name: "endpointslice", kind: "discovery.k8s.io/EndpointSlice",
		body: `{"metadata":{"name":"es"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"]}],"ports":[{"port":80}]}`},
	{name: "endpointslice bad address", kind: "discovery.k8s.io/EndpointSlice",
		body: `{"metadata":{"name":"es"},"addressType":"IPv4","endpoints":[{"addresses":["nowhere"]}]}`},
	{name: "events.k8s.io event", kind: "events.k8s.io/Event",
		body: `{"metadata":{"name":"e"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"me/c","reportingInstance":"i","action":"A","reason":"R","type":"Normal","regarding":{"kind":"Pod","name":"p","namespace":"default"}}`},
	{name: "events.k8s.io event without time", kind: "events.k8s.io/Event", body: `{"metadata":{"name":"e"},"type":"Normal"}`,
		differs: "kube-apiserver names the group of the internal type (core) in the 422 of an events.k8s.io Event; ours names the resource's"},
	{name: "storageclass", kind: "storage.k8s.io/StorageClass", body: `{"metadata":{"name":"sc"},"provisioner":"example.com/p"}`},
	{name: "storageclass without provisioner", kind: "storage.k8s.io/StorageClass", body: `{"metadata":{"name":"sc"},"reclaimPolicy":"Keep"}`},
	{name: "volumeattributesclass without driver", kind: "storage.k8s.io/VolumeAttributesClass",
		body: `{"metadata":{"name":"v"},"parameters":{"iops":"100"}}`},
	{name: "servicecidr", kind: "networking.k8s.io/ServiceCIDR", body: `{"metadata":{"name":"c"},"spec":{"cidrs":["10.100.0.0/16"]}}`},
	{name: "flowschema bad precedence", kind: "flowcontrol.apiserver.k8s.io/FlowSchema",
		body: `{"metadata":{"name":"f"},"spec":{"priorityLevelConfiguration":{"name":"p"},"matchingPrecedence":0}}`},
	{name: "priorityclass", kind: "scheduling.k8s.io/PriorityClass", body: `{"metadata":{"name":"pc"},"value":1000}`},
	{name: "priorityclass too high", kind: "scheduling.k8s.io/PriorityClass", body: `{"metadata":{"name":"pc"},"value":2000000000}`},
	{name: "validating webhook", kind: "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
		body: `{"metadata":{"name":"w"},"webhooks":[{"name":"w.example.com","clientConfig":{"url":"https://example.com/v"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`},
	{name: "validating webhook bad", kind: "admissionregistration.k8s.io/ValidatingWebhookConfiguration",
		body: `{"metadata":{"name":"w"},"webhooks":[{"name":"w","clientConfig":{},"admissionReviewVersions":[]}]}`},

	// Admission policies are stored, their CEL compiled by validation;
	// the server does not enforce them (see the package doc).
	{name: "validating admission policy", kind: "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
		body: `{"metadata":{"name":"p"},"spec":{"matchConstraints":` + deploymentRules + `,"validations":[{"expression":"object.spec.replicas <= 5"}]}}`},
	{name: "validating admission policy bad expression", kind: "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
		body: `{"metadata":{"name":"p"},"spec":{"failurePolicy":"Sometimes","matchConstraints":` + deploymentRules + `,"validations":[{"expression":"object.spec.replicas <="}]}}`},
	{name: "validating admission policy with params", kind: "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
		body: `{"metadata":{"name":"p"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},"matchConstraints":` + deploymentRules + `,"validations":[{"expression":"object.spec.replicas <= int(params.data.max)"}]}}`},
	{name: "validating admission policy update", kind: "admissionregistration.k8s.io/ValidatingAdmissionPolicy",
		body:   `{"metadata":{"name":"p"},"spec":{"matchConstraints":` + deploymentRules + `,"validations":[{"expression":"object.spec.replicas <= 5"}]}}`,
		update: `{"metadata":{"name":"p","resourceVersion":"2"},"spec":{"matchConstraints":` + deploymentRules + `,"validations":[{"expression":"object.spec.replicas <= 6"}]}}`}, // a fresh store's first write is revision 2, as a fresh etcd's
	{name: "validating admission policy binding", kind: "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
		body: `{"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":["Deny"],"paramRef":{"name":"limits","namespace":"default","parameterNotFoundAction":"Deny"}}}`},
	{name: "validating admission policy binding bad actions", kind: "admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
		body: `{"metadata":{"name":"b"},"spec":{"validationActions":["Deny","Deny","Block"]}}`},
	{name: "mutating admission policy", kind: "admissionregistration.k8s.io/MutatingAdmissionPolicy",
		body: `{"metadata":{"name":"m"},"spec":{"matchConstraints":` + deploymentRules + `,"reinvocationPolicy":"Never","mutations":[{"patchType":"ApplyConfiguration","applyConfiguration":{"expression":"Object{metadata: Object.metadata{labels: {\"mutated\": \"true\"}}}"}}]}}`},
	{name: "mutating admission policy bad patch", kind: "admissionregistration.k8s.io/MutatingAdmissionPolicy",
		body: `{"metadata":{"name":"m"},"spec":{"matchConstraints":` + deploymentRules + `,"mutations":[{"patchType":"Sideways"}]}}`},
	{name: "mutating admission policy binding", kind: "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
		body: `{"metadata":{"name":"b"},"spec":{"policyName":"m"}}`},
	{name: "mutating admission policy binding without policy", kind: "admissionregistration.k8s.io/MutatingAdmissionPolicyBinding",
		body: `{"metadata":{"name":"b"},"spec":{}}`},

	// resource.k8s.io: device selectors are CEL, compiled by validation.
	{name: "deviceclass", kind: "resource.k8s.io/DeviceClass",
		body: `{"metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.example.com\""}}]}}`},
	{name: "deviceclass bad selector", kind: "resource.k8s.io/DeviceClass",
		body: `{"metadata":{"name":"gpu"},"spec":{"selectors":[{"cel":{"expression":"device.driver =="}}]}}`},
	{name: "resourceclaim", kind: "resource.k8s.io/ResourceClaim",
		body: `{"metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}}}`},
	{name: "resourceclaim without class", kind: "resource.k8s.io/ResourceClaim",
		body: `{"metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"GPU","exactly":{"allocationMode":"Some"}}]}}}`},
	{name: "resourceclaim spec is immutable", kind: "resource.k8s.io/ResourceClaim",
		body:   `{"metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}}}`,
		update: `{"metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"tpu"}}]}}}`},
	// Admin access asks for a label of the namespace, which the server's
	// strategy never finds (see the package doc); a namespace of a
	// cluster has none either unless an administrator set it.
	{name: "resourceclaim admin access", kind: "resource.k8s.io/ResourceClaim",
		body: `{"metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","adminAccess":true}}]}}}`},
	{name: "resourceclaimtemplate", kind: "resource.k8s.io/ResourceClaimTemplate",
		body: `{"metadata":{"name":"t"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","count":2,"allocationMode":"ExactCount"}}]}}}}`},
	{name: "resourceclaimtemplate bad request", kind: "resource.k8s.io/ResourceClaimTemplate",
		body: `{"metadata":{"name":"t"},"spec":{"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu","count":-1,"allocationMode":"ExactCount"}},{"name":"gpu"}]}}}}`},
	{name: "resourceslice", kind: "resource.k8s.io/ResourceSlice",
		body: `{"metadata":{"name":"s"},"spec":{"driver":"gpu.example.com","nodeName":"n","pool":{"name":"p","resourceSliceCount":1},"devices":[{"name":"gpu-0","attributes":{"model":{"string":"x1"}},"capacity":{"memory":{"value":"16Gi"}}}]}}`},
	{name: "resourceslice without node", kind: "resource.k8s.io/ResourceSlice",
		body: `{"metadata":{"name":"s"},"spec":{"driver":"Not A Driver","pool":{"name":"p","resourceSliceCount":0},"devices":[{"name":"gpu-0"},{"name":"gpu-0"}]}}`},
	{name: "devicetaintrule", kind: "resource.k8s.io/DeviceTaintRule",
		body: `{"metadata":{"name":"r"},"spec":{"deviceSelector":{"driver":"gpu.example.com"},"taint":{"key":"example.com/broken","effect":"NoSchedule"}}}`},
	{name: "devicetaintrule bad effect", kind: "resource.k8s.io/DeviceTaintRule",
		body: `{"metadata":{"name":"r"},"spec":{"taint":{"key":"k","effect":"Sometimes"}}}`},

	// certificates.k8s.io
	{name: "clustertrustbundle", kind: "certificates.k8s.io/ClusterTrustBundle",
		body: `{"metadata":{"name":"example.com:signer:one"},"spec":{"signerName":"example.com/signer","trustBundle":` + jsonString(testCA) + `}}`},
	{name: "clustertrustbundle bad bundle", kind: "certificates.k8s.io/ClusterTrustBundle",
		body: `{"metadata":{"name":"one"},"spec":{"signerName":"example.com/signer","trustBundle":"not PEM"}}`},
	{name: "podcertificaterequest without pod", kind: "certificates.k8s.io/PodCertificateRequest",
		body: `{"metadata":{"name":"r"},"spec":{"signerName":"example.com/signer","maxExpirationSeconds":60}}`},

	// storagemigration.k8s.io
	{name: "storageversionmigration", kind: "storagemigration.k8s.io/StorageVersionMigration",
		body: `{"metadata":{"name":"m"},"spec":{"resource":{"group":"apps","resource":"deployments"}}}`},
	{name: "storageversionmigration without resource", kind: "storagemigration.k8s.io/StorageVersionMigration",
		body: `{"metadata":{"name":"m"},"spec":{"resource":{"group":"apps"}}}`},
}

func findKind(t *testing.T, name string) *kind {
	group, k, ok := strings.Cut(name, "/")
	if !ok {
		group, k = "", name
	}
	for _, c := range all {
		if c.Group == group && c.Kind == k {
			return c
		}
	}
	t.Fatalf("no kind %s", name)
	return nil
}

// kubeDecode decodes and defaults body as kube-apiserver decodes a
// request, into the internal form, with namespace ns and the system
// fields set.
func kubeDecode(t *testing.T, k *kind, ns, body string) runtime.Object {
	t.Helper()
	v := k.newValue()
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(body), v); err != nil {
		t.Fatal(err)
	}
	scheme.Default(v)
	in, err := scheme.New(k.internalGVK())
	if err != nil {
		t.Fatal(err)
	}
	if err := scheme.Convert(v, in, nil); err != nil {
		t.Fatal(err)
	}
	m, err := apimeta.Accessor(in)
	if err != nil {
		t.Fatal(err)
	}
	m.SetNamespace(ns)
	rest.FillObjectMetaSystemFields(m)
	return in
}

// external returns in in k's version.
func external(t *testing.T, k *kind, in runtime.Object) runtime.Object {
	t.Helper()
	v := k.newValue()
	if err := scheme.Convert(in, v, nil); err != nil {
		t.Fatal(err)
	}
	return v
}

// comparable returns the JSON of a stored object without the fields a
// server makes up (uid, times, resourceVersion, managedFields) as a
// value to compare.
func comparable(t *testing.T, obj runtime.Object) map[string]any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "kind")
	delete(m, "apiVersion")
	md, _ := m["metadata"].(map[string]any)
	for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields"} {
		delete(md, f)
	}
	return m
}

type answer struct {
	obj    map[string]any
	status *metav1.Status
}

// ours sends a write to our server and returns its answer.
func ours(t *testing.T, method, url, body string, k *kind) answer {
	t.Helper()
	r := servertest.Do(t, method, url, body, "Content-Type", "application/json")
	if r.Code >= 300 {
		var st metav1.Status
		if err := json.Unmarshal([]byte(r.Body), &st); err != nil {
			t.Fatalf("%s %s: %d %s", method, url, r.Code, r.Body)
		}
		st.TypeMeta, st.ListMeta = metav1.TypeMeta{}, metav1.ListMeta{}
		return answer{status: &st}
	}
	v := k.newValue()
	if err := kjson.UnmarshalCaseSensitivePreserveInts([]byte(r.Body), v); err != nil {
		t.Fatal(err)
	}
	return answer{obj: comparable(t, v)}
}

// theirs is Kubernetes' answer: the object as prepared, or the error.
func theirs(t *testing.T, k *kind, in runtime.Object, err error) answer {
	t.Helper()
	if err != nil {
		var se apierrors.APIStatus
		if !errors.As(err, &se) {
			t.Fatalf("Kubernetes answered %v", err)
		}
		st := se.Status()
		st.TypeMeta, st.ListMeta = metav1.TypeMeta{}, metav1.ListMeta{}
		return answer{status: &st}
	}
	// kube-apiserver's storage decodes the object it wrote with
	// defaulting: the answer has the defaults of what the strategy set
	// (a PersistentVolumeClaim's phase once it cleared the status).
	v := external(t, k, in)
	scheme.Default(v)
	return answer{obj: comparable(t, v)}
}

func TestDifferential(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, c := range diffCases {
		t.Run(c.name, func(t *testing.T) {
			k := findKind(t, c.kind)
			kinds[c.kind] = true
			_, url := servertest.New(t, server.Options{Resources: res})
			ns := ""
			path := "/api/" + k.Version
			if k.Group != "" {
				path = "/apis/" + k.Group + "/" + k.Version
			}
			if k.Namespaced {
				ns = "default"
				path += "/namespaces/" + ns
			}
			path += "/" + k.Plural
			ctx := genericapirequest.WithNamespace(context.Background(), ns)
			info := &genericapirequest.RequestInfo{IsResourceRequest: true, Verb: "create", APIPrefix: "apis",
				APIGroup: k.Group, APIVersion: k.Version, Namespace: ns, Resource: k.Plural}
			ctx = genericapirequest.WithRequestInfo(ctx, info)

			in := kubeDecode(t, k, ns, c.body)
			got := ours(t, "POST", url+path, c.body, k)
			if svc, ok := in.(*api.Service); ok && got.obj != nil {
				// kube-apiserver's Service registry allocates a cluster
				// IP (any free one: take ours) before the strategy runs.
				ip, _ := got.obj["spec"].(map[string]any)["clusterIP"].(string)
				single := api.IPFamilyPolicySingleStack
				svc.Spec.ClusterIP, svc.Spec.ClusterIPs = ip, []string{ip}
				svc.Spec.IPFamilies, svc.Spec.IPFamilyPolicy = []api.IPFamily{api.IPv4Protocol}, &single
			}
			want := theirs(t, k, in, rest.BeforeCreate(k.Strategy.(rest.RESTCreateStrategy), ctx, in))
			if c.update != "" {
				if got.status != nil || want.status != nil {
					t.Fatalf("create failed: ours %v, Kubernetes' %v", got.status, want.status)
				}
				old := in
				info.Verb = "update"
				in = kubeDecode(t, k, ns, c.update)
				// The system fields of the stored object, and its
				// resourceVersion, which kube-apiserver's store sets on
				// an unconditional update.
				om, _ := apimeta.Accessor(old)
				om.SetResourceVersion("1")
				m, _ := apimeta.Accessor(in)
				m.SetUID(om.GetUID())
				m.SetResourceVersion("1")
				want = theirs(t, k, in, rest.BeforeUpdate(k.Strategy.(rest.RESTUpdateStrategy), ctx, in, old))
				name, _ := got.obj["metadata"].(map[string]any)["name"].(string)
				got = ours(t, "PUT", url+path+"/"+name, c.update, k)
			}
			if c.differs != "" && got.status != nil && got.status.Details != nil {
				t.Log("differs: " + c.differs)
				got.status.Details.Group = ""
				got.status.Message = strings.Replace(got.status.Message, k.Kind+"."+k.Group, k.Kind, 1)
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(answer{})); diff != "" {
				t.Errorf("answers differ (-Kubernetes +ours):\n%s", diff)
			}
			if testing.Verbose() {
				if got.status != nil {
					t.Logf("%d %s", got.status.Code, got.status.Message)
				} else {
					t.Log("stored")
				}
			}
		})
	}
	if len(kinds) < 15 {
		t.Errorf("the differential test covers %d kinds, want at least 15", len(kinds))
	}
	t.Log(fmt.Sprint(len(kinds), " kinds"))
}
