package crd

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/internal/cputime"
	"github.com/apisem/apisem/server"
)

// realWrites are custom resources of four projects' definitions, as
// their users write them: the definitions are read from the projects'
// module zips (as examples/interop's TestRealCRDs reads them; `go mod
// download` fetches them), the objects are written here after the
// projects' examples and documentation, filled out as a deployment's
// are. Each names a string member whose value the updates toggle, so
// that an update changes one leaf and ratchets over the rest.
var realWrites = []struct {
	name, module, version, file string
	path                        string // the collection, namespaced in default
	object                      string // YAML; @N@ is toggled by updates
}{
	{"HTTPRoute", "sigs.k8s.io/gateway-api", "v1.6.3", "config/crd/standard/gateway.networking.k8s.io_httproutes.yaml",
		"/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes", `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  labels: {app.kubernetes.io/name: store, app.kubernetes.io/part-of: shop}
spec:
  parentRefs:
  - {name: example-gateway, sectionName: https}
  - {name: internal-gateway, namespace: infra, port: 443}
  hostnames: [store.example.com, shop.example.com]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /api}
      headers:
      - {type: Exact, name: env, value: canary-@N@}
    - path: {type: PathPrefix, value: /api}
      queryParams:
      - {type: Exact, name: canary, value: "true"}
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        add: [{name: x-route, value: canary}]
        remove: [x-debug]
    backendRefs:
    - {name: store-canary, port: 8080, weight: 10}
    - {name: store-v2, port: 8080, weight: 90}
    timeouts: {request: 10s, backendRequest: 5s}
  - matches:
    - path: {type: PathPrefix, value: /static}
      method: GET
    filters:
    - type: URLRewrite
      urlRewrite:
        path: {type: ReplacePrefixMatch, replacePrefixMatch: /assets}
    backendRefs:
    - {name: static, port: 80}
  - matches:
    - path: {type: PathPrefix, value: /}
    backendRefs:
    - {name: store-v1, port: 8080}
`},
	{"Certificate", "github.com/cert-manager/cert-manager", "v1.21.2", "deploy/crds/cert-manager.io_certificates.yaml",
		"/apis/cert-manager.io/v1/namespaces/default/certificates", `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  labels: {app.kubernetes.io/name: store}
spec:
  secretName: store-tls
  secretTemplate:
    annotations: {reflector.example.com/allowed: "true"}
    labels: {team: shop}
  duration: 2160h
  renewBefore: 360h
  commonName: store-@N@.example.com
  subject:
    organizations: [Example Inc.]
    countries: [DE]
  isCA: false
  privateKey: {algorithm: ECDSA, encoding: PKCS1, size: 256, rotationPolicy: Always}
  usages: [server auth, client auth]
  dnsNames: [store.example.com, www.store.example.com, shop.example.com, api.store.example.com]
  issuerRef: {name: letsencrypt-prod, kind: ClusterIssuer, group: cert-manager.io}
`},
	{"Prometheus", "github.com/prometheus-operator/prometheus-operator", "v0.85.0", "example/prometheus-operator-crd/monitoring.coreos.com_prometheuses.yaml",
		"/apis/monitoring.coreos.com/v1/namespaces/default/prometheuses", `
apiVersion: monitoring.coreos.com/v1
kind: Prometheus
metadata:
  labels: {app.kubernetes.io/component: prometheus, app.kubernetes.io/name: prometheus, app.kubernetes.io/part-of: kube-prometheus}
spec:
  replicas: 2
  version: 3.5.0
  image: quay.io/prometheus/prometheus:v3.5.0
  serviceAccountName: prometheus-k8s
  externalLabels: {cluster: prod-@N@}
  retention: 15d
  scrapeInterval: 30s
  evaluationInterval: 30s
  enableFeatures: [exemplar-storage]
  podMetadata:
    labels: {app.kubernetes.io/component: prometheus, app.kubernetes.io/name: prometheus}
  nodeSelector: {kubernetes.io/os: linux}
  resources:
    requests: {memory: 400Mi, cpu: 100m}
    limits: {memory: 2Gi}
  securityContext: {fsGroup: 2000, runAsNonRoot: true, runAsUser: 1000}
  alerting:
    alertmanagers:
    - {namespace: monitoring, name: alertmanager-main, port: web, apiVersion: v2}
  serviceMonitorSelector: {}
  serviceMonitorNamespaceSelector: {}
  podMonitorSelector: {}
  podMonitorNamespaceSelector: {}
  probeSelector: {}
  probeNamespaceSelector: {}
  ruleSelector:
    matchLabels: {prometheus: k8s, role: alert-rules}
  ruleNamespaceSelector: {}
  storage:
    volumeClaimTemplate:
      spec:
        storageClassName: ssd
        resources:
          requests: {storage: 40Gi}
  tolerations:
  - {key: dedicated, operator: Equal, value: monitoring, effect: NoSchedule}
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels: {app.kubernetes.io/name: prometheus}
`},
	{"Cluster", "sigs.k8s.io/cluster-api", "v1.14.2", "core/config/crd/bases/cluster.x-k8s.io_clusters.yaml",
		"/apis/cluster.x-k8s.io/v1beta2/namespaces/default/clusters", `
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata:
  labels: {cluster.x-k8s.io/cluster-name: prod, environment: production}
spec:
  clusterNetwork:
    pods: {cidrBlocks: [192.168.0.0/16]}
    services: {cidrBlocks: [10.128.0.0/12]}
    serviceDomain: cluster-@N@.local
    apiServerPort: 6443
  controlPlaneRef: {apiGroup: controlplane.cluster.x-k8s.io, kind: KubeadmControlPlane, name: prod-control-plane}
  infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerCluster, name: prod}
`},
}

// realModuleDir is a module's directory in the module cache, which `go
// mod download` fills; the benchmark is skipped without it.
func realModuleDir(b *testing.B, module, version string) string {
	out, err := exec.Command("go", "mod", "download", "-json", module+"@"+version).Output()
	var m struct{ Dir string }
	if err != nil || json.Unmarshal(out, &m) != nil || m.Dir == "" {
		b.Skipf("%s@%s cannot be downloaded: %v %s", module, version, err, out)
	}
	return m.Dir
}

// BenchmarkRealCustomWrite creates, updates (PUT, one string member
// toggled), applies (server-side, the same toggle) and gets custom
// resources of real definitions (gateway-api's
// HTTPRoute, cert-manager's Certificate, prometheus-operator's
// Prometheus, cluster-api's Cluster) through the server's handler, in
// process: decoding, defaulting, pruning, validation and list-type
// checks of a large schema, ratcheting on update, managedFields,
// encoding. The validation rules (CEL) are not evaluated: they need the
// nested module crd/cel. cpu-ns/op is the process's CPU time per write.
// schema is the definition's part of a write, without the server.
func BenchmarkRealCustomWrite(b *testing.B) {
	s, c, _ := newServer(b)
	roots := map[string]*schema.JSONSchemaProps{} // by name, the served version's
	for _, w := range realWrites {
		raw, err := os.ReadFile(filepath.Join(realModuleDir(b, w.module, w.version), w.file))
		if err != nil {
			b.Fatal(err)
		}
		defs, err := Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range defs[0].Spec.Versions {
			if strings.Contains(w.path, "/"+v.Name+"/") {
				roots[w.name] = v.Schema.OpenAPIV3Schema.DeepCopy()
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard
		err = c.Install(ctx, defs...)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
	serve := func(b *testing.B, code int, method, path, body string) string {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		if rec.Code != code {
			b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	for _, w := range realWrites {
		// The object with placeholders for the name, the toggled value
		// and (on update) the resourceVersion, as JSON.
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(w.object), &obj); err != nil {
			b.Fatal(err)
		}
		md := obj["metadata"].(map[string]any)
		md["name"] = "@NAME@"
		create := marshal(b, obj)
		md["name"] = "u"
		md["resourceVersion"] = "@RV@"
		update := marshal(b, obj)
		rv := resourceVersion(b, serve(b, 201, "POST", w.path, strings.ReplaceAll(strings.ReplaceAll(create, "@NAME@", "u"), "@N@", "0")))
		b.Run(w.name, func(b *testing.B) {
			created := 0 // across the runs, which -count repeats
			createParts := strings.Split(create, "@NAME@")
			b.Run("create", func(b *testing.B) {
				b.ReportAllocs()
				start := cputime.Process()
				for b.Loop() {
					created++
					serve(b, 201, "POST", w.path, createParts[0]+"c-"+strconv.Itoa(created)+createParts[1])
				}
				reportCPU(b, start)
			})
			// The update's bodies, split at the resourceVersion, one
			// for each value of the toggled member.
			var updateParts [2][]string
			for n := range updateParts {
				updateParts[n] = strings.Split(strings.ReplaceAll(update, "@N@", strconv.Itoa(n)), "@RV@")
			}
			b.Run("update", func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				start := cputime.Process()
				for b.Loop() {
					n++
					p := updateParts[n%2]
					rv = resourceVersion(b, serve(b, 200, "PUT", w.path+"/u", p[0]+rv+p[1]))
				}
				reportCPU(b, start)
			})
			// A server-side apply of the whole object by one manager
			// (as a GitOps tool or a controller applies), one string
			// member toggled: the first creates the object.
			md["name"] = "a"
			delete(md, "resourceVersion")
			applied := marshal(b, obj)
			var applyBodies [2]string
			for n := range applyBodies {
				applyBodies[n] = strings.ReplaceAll(applied, "@N@", strconv.Itoa(n))
			}
			serveApply := func(b *testing.B, code int, body string) {
				r := httptest.NewRequest("PATCH", w.path+"/a?fieldManager=bench", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/apply-patch+yaml")
				r.Header.Set("Accept", "application/json")
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, r)
				if rec.Code != code {
					b.Fatalf("apply %s: %d %s", w.path, rec.Code, rec.Body)
				}
			}
			serveApply(b, 201, applyBodies[1])
			b.Run("apply", func(b *testing.B) {
				b.ReportAllocs()
				n := 0
				start := cputime.Process()
				for b.Loop() {
					n++
					serveApply(b, 200, applyBodies[n%2])
				}
				reportCPU(b, start)
			})
			// What the definition's schema costs of a create and an
			// update, without the server: defaults, pruning, validation
			// and list-type checks, and ratcheting against the object
			// with the other value of the toggled member.
			b.Run("schema", func(b *testing.B) {
				root := roots[w.name]
				tree := schema.NewTree(root)
				val, err := schema.Compile(root)
				if err != nil {
					b.Fatal(err)
				}
				var objs [2]*server.Unstructured
				for n := range objs {
					objs[n] = unstructured(b, strings.ReplaceAll(strings.ReplaceAll(create, "@NAME@", "s"), "@N@", strconv.Itoa(n)))
					coerce(objs[n], tree, nil)
				}
				b.ReportAllocs()
				start := cputime.Process()
				n := 0
				for b.Loop() {
					n++
					u, old := objs[n%2], objs[(n+1)%2]
					coerce(u, tree, nil)
					errs, embedded := val.Validate(u.Content, old.Content)
					if errs = append(append(errs, embedded...), val.ListErrors(u.Content, old.Content)...); len(errs) > 0 {
						b.Fatal(errs)
					}
				}
				reportCPU(b, start)
			})
			b.Run("get", func(b *testing.B) {
				b.ReportAllocs()
				start := cputime.Process()
				for b.Loop() {
					serve(b, 200, "GET", w.path+"/u", "")
				}
				reportCPU(b, start)
			})
		})
	}
}

func marshal(b *testing.B, x any) string {
	j, err := json.Marshal(x)
	if err != nil {
		b.Fatal(err)
	}
	return string(j)
}

// resourceVersion is the resourceVersion of an object's JSON, found as
// text: decoding the answer would weigh on the measure.
func resourceVersion(b *testing.B, body string) string {
	const key = `"resourceVersion":"`
	i := strings.Index(body, key)
	if i < 0 {
		b.Fatalf("no resourceVersion in %s", body)
	}
	rest := body[i+len(key):]
	return rest[:strings.IndexByte(rest, '"')]
}

// reportCPU reports the CPU time per op since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
}
