package builtin

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/namespace"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
	"github.com/apisem/apisem/store"
)

// allocServer starts a server of every built-in kind and namespaces, its
// Services' allocations bound to it, with the default ServiceCIDR, and
// returns it and its URL; the namespace controller runs until the test
// ends.
func allocServer(t testing.TB, a *ServiceAllocator, storage func(store.Options[server.Object]) (server.Storage, error)) (*server.Server, string) {
	t.Helper()
	res, err := Resources(Options{Allocator: a})
	if err != nil {
		t.Fatal(err)
	}
	l := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, l.Resource()), Storage: storage}
	opts.Admission = l.Admission(opts.Admission)
	s, url := servertest.New(t, opts)
	l.Bind(s)
	a.Bind(s)
	if err := a.CreateServiceCIDR(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }() // the namespace controller
	t.Cleanup(func() { cancel(); <-done })
	return s, url
}

var (
	// The values the recorded requests name; the others are the
	// server's random choice.
	namedIPs   = []string{"10.96.0.50", "10.96.0.60", "10.112.0.5", "10.96.0.0"}
	namedPorts = []string{"30080", "30090", "30100", "30101", "29999"}
	anyIP      = regexp.MustCompile(`10\.(?:9[6-9]|10[0-9]|11[01])\.\d+\.\d+`)
	anyPort    = regexp.MustCompile(`"(nodePort|healthCheckNodePort)":(\d+)`)
	condTime   = regexp.MustCompile(`"lastTransitionTime":"[^"]*"`)
)

// normalizeAllocated blanks the cluster IPs and node ports the server
// chose at random, as kube-apiserver does.
func normalizeAllocated(body string) string {
	body = condTime.ReplaceAllString(body, `"lastTransitionTime":"-"`)
	body = anyIP.ReplaceAllStringFunc(body, func(ip string) string {
		if slices.Contains(namedIPs, ip) {
			return ip
		}
		return "10.x.x.x"
	})
	return anyPort.ReplaceAllStringFunc(body, func(m string) string {
		sub := anyPort.FindStringSubmatch(m)
		if slices.Contains(namedPorts, sub[2]) {
			return m
		}
		return `"` + sub[1] + `":"-"`
	})
}

// TestRecordedServices replays testdata/reference/services.json,
// recorded from kube-apiserver 1.37.1 (record-services.go): Services
// that name their cluster IPs and node ports and that leave them to the
// server, collisions and values out of range (422, and the 500 of a
// health check node port), a dry run that holds nothing, the IPAddress
// of a cluster IP and the default ServiceCIDR, deletions and type
// changes that free what a Service held.
func TestRecordedServices(t *testing.T) {
	_, url := allocServer(t, NewServiceAllocator(), nil)
	replayWith(t, url, "testdata/reference/services.json", normalizeAllocated)
}

// svcYAML is a Service of alloc with spec.
func svcYAML(name, spec string) string {
	return "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + name + "\n  namespace: alloc\nspec:\n  selector:\n    app: x\n" + spec
}

func postService(t *testing.T, url, name, spec string) servertest.Reply {
	t.Helper()
	return servertest.Do(t, "POST", url+"/api/v1/namespaces/alloc/services", svcYAML(name, spec),
		"Content-Type", "application/yaml", "Accept", "application/json")
}

func createNamespace(t *testing.T, url string) {
	t.Helper()
	r := servertest.Do(t, "POST", url+"/api/v1/namespaces", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: alloc\n",
		"Content-Type", "application/yaml")
	if r.Code != 201 {
		t.Fatalf("namespace: %d %s", r.Code, r.Body)
	}
}

// allocated returns the cluster IP and node ports of a Service answer.
func allocated(t *testing.T, body string) (string, []int32) {
	t.Helper()
	var svc struct {
		Spec struct {
			ClusterIP string `json:"clusterIP"`
			Ports     []struct {
				NodePort int32 `json:"nodePort"`
			} `json:"ports"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(body), &svc); err != nil {
		t.Fatal(err)
	}
	var ports []int32
	for _, p := range svc.Spec.Ports {
		ports = append(ports, p.NodePort)
	}
	return svc.Spec.ClusterIP, ports
}

// A new process on the same storage knows nothing but what the store
// holds: the values the stored Services hold stay theirs, named or
// chosen. (The old allocator started again at 10.96.0.10 and 30000.)
func TestServiceAllocationsSurviveARestart(t *testing.T) {
	a := NewServiceAllocator()
	_, url := allocServer(t, a, nil)
	createNamespace(t, url)
	nodePort := "  type: NodePort\n  ports:\n  - port: 80\n"
	first := postService(t, url, "first", nodePort)
	if first.Code != 201 {
		t.Fatalf("first: %d %s", first.Code, first.Body)
	}
	ip, ports := allocated(t, first.Body)

	// What a restarted process has in memory: nothing, and a random
	// source that offers the values taken first.
	a.mu.Lock()
	a.ports, a.ips, a.seeded = map[int32]holder{}, map[netip.Addr]holder{}, nil
	taken, _ := netip.ParseAddr(ip)
	offers := 0
	base := serviceRange.Addr().As4()
	b := taken.As4()
	ipOffset := int(uint32(b[1]-base[1])<<16|uint32(b[2])<<8|uint32(b[3])) - 1
	a.rand = func(n int) int {
		// Each taken value once, then others.
		offers++
		switch {
		case offers > 2:
			return rand.IntN(n)
		case n == lastNodePort-firstNodePort+1:
			return int(ports[0]) - firstNodePort
		}
		return ipOffset
	}
	a.mu.Unlock()

	second := postService(t, url, "second", nodePort)
	if second.Code != 201 {
		t.Fatalf("second: %d %s", second.Code, second.Body)
	}
	ip2, ports2 := allocated(t, second.Body)
	if ip2 == ip || ports2[0] == ports[0] || offers == 0 {
		t.Errorf("after a restart the second Service got %s %v, the first holds %s %v (%d offers)", ip2, ports2, ip, ports, offers)
	}
	for _, tt := range []struct{ name, spec, want string }{
		{"named ip", "  clusterIP: " + ip + "\n  ports:\n  - port: 80\n", "provided IP is already allocated"},
		{"named port", "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: " + strconv.Itoa(int(ports[0])) + "\n", "provided port is already allocated"},
	} {
		if r := postService(t, url, "third", tt.spec); r.Code != 422 || !strings.Contains(r.Body, tt.want) {
			t.Errorf("%s: %d %s, want 422 %q", tt.name, r.Code, r.Body, tt.want)
		}
	}
}

// Creates at the same time get distinct values; of those that name the
// same ones, one gets them.
func TestServiceAllocationsConcurrent(t *testing.T) {
	a := NewServiceAllocator()
	_, url := allocServer(t, a, nil)
	createNamespace(t, url)
	const n = 16
	replies := make([]servertest.Reply, 2*n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			replies[i] = postService(t, url, "random-"+strconv.Itoa(i), "  type: NodePort\n  ports:\n  - port: 80\n")
		}()
		go func() {
			defer wg.Done()
			// Half name an IP, half a node port: each is checked alone.
			spec := "  clusterIP: 10.96.1.1\n  ports:\n  - port: 80\n"
			if i%2 == 1 {
				spec = "  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 31000\n"
			}
			replies[n+i] = postService(t, url, "named-"+strconv.Itoa(i), spec)
		}()
	}
	wg.Wait()
	ips, ports := map[string]bool{}, map[int32]bool{}
	won := [2]int{}
	for i, r := range replies {
		if i >= n && r.Code == 422 {
			continue
		}
		if r.Code != 201 {
			t.Fatalf("%d: %d %s", i, r.Code, r.Body)
		}
		if i >= n {
			won[i%2]++
		}
		ip, p := allocated(t, r.Body)
		if ips[ip] {
			t.Errorf("%s given twice", ip)
		}
		ips[ip] = true
		if len(p) > 0 && p[0] != 0 {
			if ports[p[0]] {
				t.Errorf("%d given twice", p[0])
			}
			ports[p[0]] = true
		}
	}
	if won != [2]int{1, 1} {
		t.Errorf("%d creates got the IP they named and %d the node port, want 1 each", won[0], won[1])
	}
}

// An IPAddress whose Service does not hold its IP (a write that failed
// after the allocation) keeps the IP for the grace, then frees it, as
// kube-apiserver's repair loop does; a deletion frees at once.
func TestServiceAllocationOrphans(t *testing.T) {
	a := NewServiceAllocator()
	s, url := allocServer(t, a, nil)
	createNamespace(t, url)
	clock := time.Now()
	a.mu.Lock()
	a.now = func() time.Time { return clock }
	a.mu.Unlock()
	orphan := a.ipAddress(netip.MustParseAddr("10.96.2.2"), &Object{ObjectMeta: meta.ObjectMeta{Namespace: "alloc", Name: "gone"}}, clock)
	orphan.CreationTimestamp = meta.Time{Time: clock}
	if _, err := s.StoreOf(a.ipaddresses).Create(context.Background(), orphan, store.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	spec := "  clusterIP: 10.96.2.2\n  ports:\n  - port: 80\n"
	if r := postService(t, url, "svc", spec); r.Code != 422 {
		t.Fatalf("within the grace: %d %s", r.Code, r.Body)
	}
	a.mu.Lock()
	clock = clock.Add(a.grace)
	a.mu.Unlock()
	if r := postService(t, url, "svc", spec); r.Code != 201 {
		t.Fatalf("after the grace: %d %s", r.Code, r.Body)
	}
	r := servertest.Do(t, "GET", url+"/apis/networking.k8s.io/v1/ipaddresses/10.96.2.2", "")
	if !strings.Contains(r.Body, `"name":"svc"`) {
		t.Errorf("the IPAddress after the grace: %s", r.Body)
	}
	// A deletion of the namespace's Services through the collection.
	if r := servertest.Do(t, "DELETE", url+"/api/v1/namespaces/alloc/services", ""); r.Code != 200 {
		t.Fatalf("deletecollection: %d %s", r.Code, r.Body)
	}
	if r := servertest.Do(t, "GET", url+"/apis/networking.k8s.io/v1/ipaddresses/10.96.2.2", ""); r.Code != 404 {
		t.Errorf("after deletecollection: %d %s", r.Code, r.Body)
	}
}

// A namespace's deletion frees its Services' cluster IPs and node ports
// at once, as kube-apiserver's namespace controller deletes them through
// the API: a Service naming them in a new namespace of the same name gets
// them (without the grace an orphaned IPAddress keeps).
func TestServiceAllocationsFreedWithNamespace(t *testing.T) {
	a := NewServiceAllocator()
	s, url := allocServer(t, a, nil)
	createNamespace(t, url)
	spec := "  clusterIP: 10.96.3.3\n  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30333\n"
	if r := postService(t, url, "svc", spec); r.Code != 201 {
		t.Fatalf("svc: %d %s", r.Code, r.Body)
	}
	if r := servertest.Do(t, "DELETE", url+"/api/v1/namespaces/alloc", ""); r.Code != 200 {
		t.Fatalf("delete the namespace: %d %s", r.Code, r.Body)
	}
	timeout := time.NewTimer(10 * time.Second) // a guard for a broken server, not a sync
	defer timeout.Stop()
	for {
		rev := s.Revision()
		if servertest.Do(t, "GET", url+"/api/v1/namespaces/alloc", "").Code == 404 {
			break
		}
		select {
		case <-s.Store().Changed(rev):
		case <-timeout.C:
			t.Fatal("the namespace is still there")
		}
	}
	if r := servertest.Do(t, "GET", url+"/apis/networking.k8s.io/v1/ipaddresses/10.96.3.3", ""); r.Code != 404 {
		t.Errorf("the IPAddress after the namespace's deletion: %d %s", r.Code, r.Body)
	}
	a.mu.Lock()
	_, held := a.ports[30333]
	a.mu.Unlock()
	if held {
		t.Error("node port 30333 is held after the namespace's deletion")
	}
	createNamespace(t, url)
	if r := postService(t, url, "again", spec); r.Code != 201 {
		t.Errorf("a Service naming the freed values: %d %s", r.Code, r.Body)
	}
}

// Without a bound server the allocations are kept in memory, checked and
// freed all the same.
func TestServiceAllocationUnbound(t *testing.T) {
	res, err := Resources(Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := namespace.New(namespace.Options{})
	opts := server.Options{Resources: append(res, l.Resource())}
	_, url := servertest.New(t, opts)
	createNamespace(t, url)
	spec := "  clusterIP: 10.96.0.10\n  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30000\n"
	if r := postService(t, url, "a", spec); r.Code != 201 {
		t.Fatalf("a: %d %s", r.Code, r.Body)
	}
	if r := postService(t, url, "b", "  ports:\n  - port: 80\n"); r.Code != 201 || strings.Contains(r.Body, "10.96.0.10") {
		t.Fatalf("b: %d %s", r.Code, r.Body)
	}
	if r := postService(t, url, "c", spec); r.Code != 422 || !strings.Contains(r.Body, "provided IP is already allocated") {
		t.Fatalf("c: %d %s", r.Code, r.Body)
	}
	if r := servertest.Do(t, "DELETE", url+"/api/v1/namespaces/alloc/services/a", ""); r.Code != 200 {
		t.Fatalf("delete: %d %s", r.Code, r.Body)
	}
	if r := postService(t, url, "c", spec); r.Code != 201 {
		t.Fatalf("c after the delete: %d %s", r.Code, r.Body)
	}
}

// The IPAddress of a Service with a generated name names the name it
// got; a health check node port out of range is the cluster's 500
// (recorded from kube-apiserver 1.37.1); a Service that turns
// ExternalName frees its IP.
func TestServiceAllocationCases(t *testing.T) {
	_, url := allocServer(t, NewServiceAllocator(), nil)
	createNamespace(t, url)
	r := servertest.Do(t, "POST", url+"/api/v1/namespaces/alloc/services",
		"apiVersion: v1\nkind: Service\nmetadata:\n  generateName: gen-\nspec:\n  ports:\n  - port: 80\n",
		"Content-Type", "application/yaml", "Accept", "application/json")
	if r.Code != 201 {
		t.Fatalf("generateName: %d %s", r.Code, r.Body)
	}
	var svc struct {
		Metadata struct{ Name string }
		Spec     struct{ ClusterIP string }
	}
	if err := json.Unmarshal([]byte(r.Body), &svc); err != nil {
		t.Fatal(err)
	}
	ip := servertest.Do(t, "GET", url+"/apis/networking.k8s.io/v1/ipaddresses/"+svc.Spec.ClusterIP, "")
	if want := `"parentRef":{"resource":"services","namespace":"alloc","name":"` + svc.Metadata.Name + `"}`; !strings.HasPrefix(svc.Metadata.Name, "gen-") || !strings.Contains(ip.Body, want) {
		t.Errorf("generated %q, its IPAddress %d %s", svc.Metadata.Name, ip.Code, ip.Body)
	}

	r = postService(t, url, "hc", "  type: LoadBalancer\n  externalTrafficPolicy: Local\n  healthCheckNodePort: 29999\n  ports:\n  - port: 80\n")
	if want := `"message":"Internal error occurred: failed to allocate requested HealthCheck NodePort 29999: provided port is not in the valid range. The range of valid ports is 30000-32767"`; r.Code != 500 || !strings.Contains(r.Body, want) {
		t.Errorf("health check node port out of range: %d %s", r.Code, r.Body)
	}

	if r := postService(t, url, "ext", "  clusterIP: 10.96.3.3\n  ports:\n  - port: 80\n"); r.Code != 201 {
		t.Fatalf("ext: %d %s", r.Code, r.Body)
	}
	r = servertest.Do(t, "PATCH", url+"/api/v1/namespaces/alloc/services/ext",
		`{"spec":{"type":"ExternalName","externalName":"example.com","clusterIP":"","clusterIPs":null,"ipFamilies":null,"ipFamilyPolicy":null}}`,
		"Content-Type", "application/merge-patch+json")
	if r.Code != 200 {
		t.Fatalf("to ExternalName: %d %s", r.Code, r.Body)
	}
	if r := servertest.Do(t, "GET", url+"/apis/networking.k8s.io/v1/ipaddresses/10.96.3.3", ""); r.Code != 404 {
		t.Errorf("the IPAddress of an ExternalName Service: %d %s", r.Code, r.Body)
	}
}

// Two writes allocated the same named values before either was stored:
// the second to be stored is refused, as kube-apiserver's allocation is
// atomic. (Concurrent requests meet so only by chance; here they meet
// every time.)
func TestServiceAllocationCommitChecksAgain(t *testing.T) {
	for _, bound := range []bool{false, true} {
		a := NewServiceAllocator()
		if bound {
			allocServer(t, a, nil)
		}
		write := func(name, ip string, port int32) *Object {
			o := &Object{ObjectMeta: meta.ObjectMeta{Namespace: "alloc", Name: name}}
			in := &api.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "alloc", Name: name}, Spec: api.ServiceSpec{
				Type: api.ServiceTypeNodePort, ClusterIP: ip, Ports: []api.ServicePort{{Port: 80, NodePort: port}}}}
			a.service(o, in, nil)
			if o.alloc.errs != nil || o.alloc.internal != nil {
				t.Fatalf("bound %v: %s: %v %v", bound, name, o.alloc.errs, o.alloc.internal)
			}
			return o
		}
		o1 := write("one", "10.96.4.4", 31500)
		o2 := write("two", "10.96.4.4", 0)
		o3 := write("three", "", 31500)
		if err := a.commit(context.Background(), o1); err != nil {
			t.Fatalf("bound %v: the first: %v", bound, err)
		}
		if err := a.commit(context.Background(), o2); err == nil || !strings.Contains(err.Error(), "spec.clusterIPs: Invalid value: [\"10.96.4.4\"]: failed to allocate IP 10.96.4.4: provided IP is already allocated") {
			t.Errorf("bound %v: the second: %v", bound, err)
		}
		if err := a.commit(context.Background(), o3); err == nil || !strings.Contains(err.Error(), "spec.ports[0].nodePort: Invalid value: 31500: provided port is already allocated") {
			t.Errorf("bound %v: the third: %v", bound, err)
		}
	}
}
