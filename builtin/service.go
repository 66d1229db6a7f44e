package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/storage/names"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// ServiceAllocator gives Services the cluster IPs and node ports that
// kube-apiserver 1.37's Service registry allocates (pkg/registry/core/
// service), for Options.Allocator: a cluster IP from 10.96.0.0/12
// (kubeadm's default range) for every Service but an ExternalName or
// headless one, in a single-stack IPv4 cluster, and node ports from
// 30000-32767 for NodePort and LoadBalancer Services, each chosen at
// random unless the client names it. A value another Service holds, or
// one out of range, is refused with the cluster's 422 (a health check
// node port with its 500), and a deletion frees what the Service held.
//
// Bound to the server (Bind), it keeps the truth in the server's store,
// as kube-apiserver's MultiCIDRServiceAllocator does: every allocated
// cluster IP is an IPAddress object (networking.k8s.io/v1, named by the
// IP, labelled ipaddress.kubernetes.io/managed-by: ipallocator.k8s.io,
// spec.parentRef naming the Service), and the node ports are those the
// stored Services hold; so a server restarted on the same storage
// (package etcdstore) goes on where it was. CreateServiceCIDR creates
// the default ServiceCIDR "kubernetes", as kube-apiserver does at
// start. Unbound, or on a server without ipaddresses, it keeps what it
// allocated in memory alone.
//
// One ServiceAllocator serves one server: give it to one call of
// Resources.
type ServiceAllocator struct {
	srv atomic.Pointer[server.Server]
	// The resources Resources made for it (nil when not served).
	services, ipaddresses, cidrs *server.Resource

	mu sync.Mutex
	// ports are the node ports held, by port; seeded from the stored
	// Services on first use once bound.
	ports  map[int32]holder
	seeded *server.Server
	// ips are the cluster IPs held where there are no IPAddress objects.
	ips map[netip.Addr]holder

	// now and grace are the patience of kube-apiserver's repair loop: a
	// value whose holder does not hold it (a write on its way to the
	// store, or one that failed after the allocation, or a Service
	// deleted without Resource.Delete) is taken for grace after it was
	// allocated, then free. The grace covers a write's way from the
	// allocation to the store with room to spare, and is short so that
	// a Service deleted with its namespace soon frees what it held.
	now   func() time.Time
	grace time.Duration
	rand  func(n int) int
}

// holder is the Service (namespace/name) that holds a value, and when
// it was allocated.
type holder struct {
	key   string
	since time.Time
}

// NewServiceAllocator returns an allocator with nothing allocated.
func NewServiceAllocator() *ServiceAllocator {
	return &ServiceAllocator{ports: map[int32]holder{}, ips: map[netip.Addr]holder{},
		now: time.Now, grace: 10 * time.Second, rand: rand.IntN}
}

// Bind makes a keep its allocations in the store of s, the server made
// from the resources of the Resources call a was given to.
func (a *ServiceAllocator) Bind(s *server.Server) { a.srv.Store(s) }

const (
	firstNodePort, lastNodePort = 30000, 32767
	managedByLabel              = "ipaddress.kubernetes.io/managed-by"
	ipFamilyLabel               = "ipaddress.kubernetes.io/ip-family"
	managedBy                   = "ipallocator.k8s.io"
	defaultServiceCIDR          = "kubernetes"
)

var serviceRange = netip.MustParsePrefix("10.96.0.0/12")

// inRange reports whether ip may be a cluster IP of serviceRange: not
// its network or broadcast address.
func inRange(ip netip.Addr) bool {
	last := serviceRange.Addr().As4()
	bits := serviceRange.Bits()
	for i := range last {
		keep := min(max(bits-8*i, 0), 8)
		last[i] |= byte(0xff >> keep)
	}
	return serviceRange.Contains(ip) && ip != serviceRange.Addr() && ip != netip.AddrFrom4(last)
}

// serviceAlloc is what the allocation of one write did: the 422 of a
// value that cannot be had, the 500 of a health check node port that
// cannot, and the values to hold and to free when the write is stored.
type serviceAlloc struct {
	errs      field.ErrorList
	internal  error
	key       string
	create    bool
	newIPs    []netip.Addr
	freeIPs   []netip.Addr
	newPorts  []newPort
	freePorts []int32
}

// ipStrings are the new IPs as clusterIPs lists them, ipString the
// first.
func (al *serviceAlloc) ipStrings() []string {
	out := make([]string, len(al.newIPs))
	for i, ip := range al.newIPs {
		out[i] = ip.String()
	}
	return out
}

func (al *serviceAlloc) ipString() string {
	if len(al.newIPs) == 0 {
		return ""
	}
	return al.newIPs[0].String()
}

// newPort is a node port a write allocated: one it named (at path; the
// health check node port has none), which commit checks again, or one
// chosen at random, reserved already.
type newPort struct {
	port   int32
	path   *field.Path
	random bool
}

// service allocates what in, the internal Service of o, needs: on create
// its cluster IPs, IP families and node ports; on update (old set) it
// first keeps the allocated values in leaves out, as kube-apiserver does
// (patchAllocatedValues), then allocates what the update newly needs
// and frees what it no longer does. Nothing is held until commit.
func (a *ServiceAllocator) service(o *Object, in, old runtime.Object) {
	svc, ok := in.(*api.Service)
	if !ok {
		return
	}
	s := &svc.Spec
	oldSvc, _ := old.(*api.Service)
	if oldSvc != nil {
		keepAllocated(svc, oldSvc)
	} else if svc.Name == "" && svc.GenerateName != "" {
		// The IPAddress names its Service: the name is chosen here, as
		// the store would choose it.
		svc.Name = names.SimpleNameGenerator.GenerateName(svc.GenerateName)
		o.Name = svc.Name
	}
	al := &serviceAlloc{key: svc.Namespace + "/" + svc.Name, create: oldSvc == nil}
	o.alloc = al
	a.mu.Lock()
	defer a.mu.Unlock()
	held := heldBy(oldSvc)
	if needsClusterIP(svc) {
		if al.errs = families(svc); len(al.errs) > 0 {
			return
		}
		if s.ClusterIP != api.ClusterIPNone {
			if a.clusterIP(svc, held, al); len(al.errs) > 0 {
				return
			}
		} else if len(s.ClusterIPs) == 0 {
			s.ClusterIPs = []string{api.ClusterIPNone} // headless
		}
		if len(s.IPFamilies) == 0 {
			s.IPFamilies = []api.IPFamily{api.IPv4Protocol}
		}
		if s.IPFamilyPolicy == nil {
			single := api.IPFamilyPolicySingleStack
			s.IPFamilyPolicy = &single
		}
	}
	a.nodePorts(svc, held, al)
	if len(al.errs) > 0 || al.internal != nil {
		return
	}
	now := heldBy(svc)
	for ip := range held.ips {
		if !now.ips[ip] {
			al.freeIPs = append(al.freeIPs, ip)
		}
	}
	for p := range held.ports {
		if !now.ports[p] {
			al.freePorts = append(al.freePorts, p)
		}
	}
}

// families refuses the IP families a single-stack IPv4 cluster does not
// have, with kube-apiserver's errors.
func families(svc *api.Service) field.ErrorList {
	s := &svc.Spec
	if p := s.IPFamilyPolicy; p != nil && *p == api.IPFamilyPolicyRequireDualStack {
		return field.ErrorList{field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), *p, "this cluster is not configured for dual-stack services")}
	}
	for i, f := range s.IPFamilies {
		if f != api.IPv4Protocol {
			return field.ErrorList{field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), f, "not configured on this cluster")}
		}
	}
	return nil
}

// held are the values a stored Service holds.
type held struct {
	ips   map[netip.Addr]bool
	ports map[int32]bool
}

func heldBy(svc *api.Service) held {
	h := held{ips: map[netip.Addr]bool{}, ports: map[int32]bool{}}
	if svc == nil {
		return h
	}
	if needsClusterIP(svc) {
		for _, s := range svc.Spec.ClusterIPs {
			if ip, err := netip.ParseAddr(s); err == nil {
				h.ips[ip] = true
			}
		}
	}
	if needsNodePort(svc) {
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				h.ports[p.NodePort] = true
			}
		}
	}
	if needsHealthCheckNodePort(svc) && svc.Spec.HealthCheckNodePort != 0 {
		h.ports[svc.Spec.HealthCheckNodePort] = true
	}
	return h
}

// clusterIP allocates the cluster IP of svc: the one it names, or one at
// random. A value that does not parse is left to validation.
func (a *ServiceAllocator) clusterIP(svc *api.Service, held held, al *serviceAlloc) {
	s := &svc.Spec
	switch {
	case s.ClusterIP == "" && len(s.ClusterIPs) > 0:
		return // validation refuses clusterIPs without clusterIP
	case s.ClusterIP == "":
		ip, err := a.randomIP(al.key)
		if err != nil {
			al.errs = append(al.errs, field.InternalError(field.NewPath("spec", "clusterIPs"), err))
			return
		}
		al.newIPs = append(al.newIPs, ip)
		s.ClusterIP, s.ClusterIPs = ip.String(), []string{ip.String()}
		return
	case len(s.ClusterIPs) == 0:
		s.ClusterIPs = []string{s.ClusterIP}
	}
	ip, err := netip.ParseAddr(s.ClusterIP)
	if err != nil || !ip.Is4() || held.ips[ip] || s.ClusterIPs[0] != s.ClusterIP {
		return // validation's, or already the Service's
	}
	var detail string
	switch {
	case !inRange(ip):
		detail = "the provided network does not match the current range"
	case a.ipTaken(ip, al.key):
		detail = "provided IP is already allocated"
	default:
		al.newIPs = append(al.newIPs, ip)
		return
	}
	al.errs = append(al.errs, field.Invalid(field.NewPath("spec", "clusterIPs"), s.ClusterIPs,
		fmt.Sprintf("failed to allocate IP %s: %s", ip, detail)))
}

// randomIP chooses a cluster IP at random, as kube-apiserver does, one
// that no other Service than key holds and not the kubernetes Service's.
// a.mu is held.
func (a *ServiceAllocator) randomIP(key string) (netip.Addr, error) {
	base := serviceRange.Addr().As4()
	n := 1 << (32 - serviceRange.Bits())
	first := uint32(base[0])<<24 | uint32(base[1])<<16 | uint32(base[2])<<8 | uint32(base[3])
	for range 1000 {
		v := first + uint32(1+a.rand(n-2))
		ip := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
		// The first IP is the kubernetes Service's (Bootstrap), whether
		// or not it exists yet.
		if ip != kubernetesServiceIP && !a.ipTaken(ip, key) {
			return ip, nil
		}
	}
	return netip.Addr{}, errors.New("failed to allocate a serviceIP: range is full")
}

// nodePorts allocates the node ports of svc and its health check node
// port: those it names, or ones at random.
func (a *ServiceAllocator) nodePorts(svc *api.Service, held held, al *serviceAlloc) {
	s := &svc.Spec
	mine := map[int32]bool{}
	take := func(p int32, path *field.Path) {
		mine[p] = true
		al.newPorts = append(al.newPorts, newPort{port: p, path: path})
	}
	// A port chosen at random is reserved at once, so that writes on
	// their way at the same time choose others; a write that fails
	// leaves it reserved until a later allocation finds, after the
	// grace, that its Service does not hold it.
	random := func(p int32) {
		mine[p] = true
		a.ports[p] = holder{key: al.key, since: a.now()}
		al.newPorts = append(al.newPorts, newPort{port: p, random: true})
	}
	if needsNodePort(svc) {
		// Named ports first, as kube-apiserver's allocation.
		for i := range s.Ports {
			p := s.Ports[i].NodePort
			if p == 0 || held.ports[p] && !mine[p] {
				if p != 0 {
					mine[p] = true
				}
				continue
			}
			path := field.NewPath("spec", "ports").Index(i).Child("nodePort")
			if detail := a.portProblem(p, al.key, mine); detail != "" {
				al.errs = append(al.errs, field.Invalid(path, p, detail))
				return
			}
			take(p, path)
		}
		for i := range s.Ports {
			if s.Ports[i].NodePort == 0 {
				p, err := a.randomPort(al.key, mine)
				if err != nil {
					al.errs = append(al.errs, field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), p, err.Error()))
					return
				}
				s.Ports[i].NodePort = p
				random(p)
			}
		}
	}
	if needsHealthCheckNodePort(svc) {
		p := s.HealthCheckNodePort
		switch {
		case p != 0 && held.ports[p]:
		case p != 0:
			if detail := a.portProblem(p, al.key, mine); detail != "" {
				al.internal = fmt.Errorf("failed to allocate requested HealthCheck NodePort %d: %s", p, detail)
				return
			}
			take(p, nil)
		default:
			p, err := a.randomPort(al.key, mine)
			if err != nil {
				al.internal = fmt.Errorf("failed to allocate a nodePort: %w", err)
				return
			}
			s.HealthCheckNodePort = p
			random(p)
		}
	}
}

func (a *ServiceAllocator) portProblem(p int32, key string, mine map[int32]bool) string {
	switch {
	case p < firstNodePort || p > lastNodePort:
		return fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", firstNodePort, lastNodePort)
	case mine[p] || a.portTaken(p, key):
		return "provided port is already allocated"
	}
	return ""
}

func (a *ServiceAllocator) randomPort(key string, mine map[int32]bool) (int32, error) {
	n := lastNodePort - firstNodePort + 1
	start := a.rand(n)
	for i := range n {
		p := int32(firstNodePort + (start+i)%n)
		if !mine[p] && !a.portTaken(p, key) {
			return p, nil
		}
	}
	return 0, errors.New("range is full")
}

// portTaken reports whether another Service than key holds p. a.mu is
// held.
func (a *ServiceAllocator) portTaken(p int32, key string) bool {
	a.seed()
	h, ok := a.ports[p]
	if !ok || h.key == key {
		return false
	}
	if a.now().Sub(h.since) < a.grace || a.holds(h.key, func(svc *corev1.Service) bool { return heldByV1(svc).ports[p] }) {
		return true
	}
	delete(a.ports, p) // its Service no longer holds it
	return false
}

// ipTaken reports whether another Service than key holds ip: its
// IPAddress object's parent, when bound. a.mu is held.
func (a *ServiceAllocator) ipTaken(ip netip.Addr, key string) bool {
	s, ips := a.bound()
	if ips == nil {
		h, ok := a.ips[ip]
		if !ok || h.key == key {
			return false
		}
		if a.now().Sub(h.since) < a.grace || a.holds(h.key, func(svc *corev1.Service) bool { return heldByV1(svc).ips[ip] }) {
			return true
		}
		delete(a.ips, ip)
		return false
	}
	ctx := context.Background()
	st := s.StoreOf(ips)
	o, err := st.Get(ctx, "", ip.String(), rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		return !status.IsNotFound(err) // an unreadable store frees nothing
	}
	parent := parentOf(o)
	if parent == key {
		return false
	}
	created := o.Meta().CreationTimestamp.Time
	if a.now().Sub(created) < a.grace || a.holds(parent, func(svc *corev1.Service) bool { return heldByV1(svc).ips[ip] }) {
		return true
	}
	// An orphan, as kube-apiserver's repair loop finds it: deleted.
	uid := o.Meta().UID
	_, _, err = st.Delete(ctx, "", ip.String(), store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid}})
	return err != nil && !status.IsNotFound(err)
}

// ipOf returns the Service that the IPAddress of ip names. a.mu is held.
func (a *ServiceAllocator) ipOf(ctx context.Context, ip netip.Addr) string {
	s, ips := a.bound()
	if ips == nil {
		return ""
	}
	o, err := s.StoreOf(ips).Get(ctx, "", ip.String(), rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		return ""
	}
	return parentOf(o)
}

// parentOf returns the namespace/name of the Service an IPAddress
// object names, "" for another parent.
func parentOf(o server.Object) string {
	obj, ok := o.(*Object)
	if !ok || obj.Value == nil {
		return ""
	}
	b, err := json.Marshal(obj.Value)
	if err != nil {
		return ""
	}
	var ip networkingv1.IPAddress
	if json.Unmarshal(b, &ip) != nil || ip.Spec.ParentRef == nil || ip.Spec.ParentRef.Group != "" || ip.Spec.ParentRef.Resource != "services" {
		return ""
	}
	return ip.Spec.ParentRef.Namespace + "/" + ip.Spec.ParentRef.Name
}

// holds reports whether the stored Service key satisfies has; without a
// bound server, whether it is what the holder says (true).
func (a *ServiceAllocator) holds(key string, has func(*corev1.Service) bool) bool {
	s := a.srv.Load()
	if s == nil || a.services == nil || s.StoreOf(a.services) == nil {
		return true
	}
	ns, name, _ := strings.Cut(key, "/")
	o, err := s.StoreOf(a.services).Get(context.Background(), ns, name, rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		return !status.IsNotFound(err)
	}
	svc, ok := o.(*Object).Value.(*corev1.Service)
	return !ok || has(svc)
}

// exists reports whether the Service key is stored, on a bound server.
func (a *ServiceAllocator) exists(ctx context.Context, key string) bool {
	s := a.srv.Load()
	if s == nil || a.services == nil || s.StoreOf(a.services) == nil {
		return false
	}
	ns, name, _ := strings.Cut(key, "/")
	_, err := s.StoreOf(a.services).Get(ctx, ns, name, rv.Read{Semantics: rv.MostRecent})
	return err == nil
}

// heldByV1 is heldBy of a stored Service.
func heldByV1(svc *corev1.Service) held {
	in := &api.Service{}
	if err := scheme.Convert(svc, in, nil); err != nil {
		return held{}
	}
	return heldBy(in)
}

// bound returns the bound server and its ipaddresses resource, nil
// where there is none.
func (a *ServiceAllocator) bound() (*server.Server, *server.Resource) {
	s := a.srv.Load()
	if s == nil || a.ipaddresses == nil || s.StoreOf(a.ipaddresses) == nil {
		return s, nil
	}
	return s, a.ipaddresses
}

// seed fills the node ports from the stored Services, once bound. a.mu
// is held.
func (a *ServiceAllocator) seed() {
	s := a.srv.Load()
	if s == nil || a.seeded == s || a.services == nil {
		return
	}
	st := s.StoreOf(a.services)
	if st == nil {
		return
	}
	page, err := st.List(context.Background(), "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil {
		return // tried again on the next allocation
	}
	since := a.now().Add(-a.grace) // verified like any other
	for _, o := range page.Views() {
		svc, ok := o.(*Object).Value.(*corev1.Service)
		if !ok {
			continue
		}
		key := o.Meta().Namespace + "/" + o.Meta().Name
		for p := range heldByV1(svc).ports {
			a.ports[p] = holder{key: key, since: since}
		}
	}
	a.seeded = s
}

// commit holds what the allocation of o's write allocated, and frees
// what it no longer needs: the last step before the store (ToStorage).
// A dry run holds nothing. A health check node port that cannot be had
// is kube-apiserver's 500.
func (a *ServiceAllocator) commit(ctx context.Context, o *Object) error {
	al := o.alloc
	if al == nil {
		return nil
	}
	o.alloc = nil // the store may keep o; it has no use for this

	if al.internal != nil {
		return status.NewInternalError(al.internal)
	}
	if o.dryRun {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	if al.create && a.exists(ctx, al.key) {
		return nil // the store answers 409: nothing to hold
	}
	// A port named may have been taken since the allocation, by a write
	// on its way at the same time.
	for _, p := range al.newPorts {
		if p.random || !a.portTaken(p.port, al.key) {
			continue
		}
		const taken = "provided port is already allocated"
		if p.path == nil {
			return status.NewInternalError(fmt.Errorf("failed to allocate requested HealthCheck NodePort %d: %s", p.port, taken))
		}
		return status.NewInvalid(status.GroupKind{Kind: "Service"}, o.Name, fieldError(field.Invalid(p.path, p.port, taken)))
	}
	s, ips := a.bound()
	// Another write may have taken an IP since the allocation: the
	// IPAddress's create fails then, or, in memory, it is held.
	ipTaken := func() error {
		return status.NewInvalid(status.GroupKind{Kind: "Service"}, o.Name, fieldError(field.Invalid(
			field.NewPath("spec", "clusterIPs"), al.ipStrings(),
			"failed to allocate IP "+al.ipString()+": provided IP is already allocated")))
	}
	for _, ip := range al.newIPs {
		if ips == nil {
			if a.ipTaken(ip, al.key) {
				return ipTaken()
			}
			a.ips[ip] = holder{key: al.key, since: now}
			continue
		}
		if _, err := s.Create(ctx, ips, a.ipAddress(ip, o, now)); err != nil {
			if status.IsAlreadyExists(err) && a.ipOf(ctx, ip) == al.key {
				continue // left by an earlier write of this Service that failed
			}
			if status.IsAlreadyExists(err) {
				return ipTaken()
			}
			return err
		}
	}
	for _, p := range al.newPorts {
		a.ports[p.port] = holder{key: al.key, since: now}
	}
	a.free(ctx, al.key, al.freeIPs, al.freePorts)
	return nil
}

// free lets go of what the Service key held. a.mu is held.
func (a *ServiceAllocator) free(ctx context.Context, key string, ipList []netip.Addr, ports []int32) {
	for _, p := range ports {
		if h, ok := a.ports[p]; ok && h.key == key {
			delete(a.ports, p)
		}
	}
	s, ips := a.bound()
	for _, ip := range ipList {
		if ips == nil {
			if h, ok := a.ips[ip]; ok && h.key == key {
				delete(a.ips, ip)
			}
			continue
		}
		st := s.StoreOf(ips)
		o, err := st.Get(ctx, "", ip.String(), rv.Read{Semantics: rv.MostRecent})
		if err != nil || parentOf(o) != key {
			continue
		}
		uid := o.Meta().UID
		_, _, _ = st.Delete(ctx, "", ip.String(), store.DeleteOptions{Preconditions: store.Preconditions{UID: &uid}})
	}
}

// ipAddressFields are the fields kube-apiserver's allocator sets.
var ipAddressFields = []byte(`{"f:metadata":{"f:labels":{".":{},"f:` + ipFamilyLabel + `":{},"f:` + managedByLabel + `":{}}},"f:spec":{"f:parentRef":{".":{},"f:name":{},"f:namespace":{},"f:resource":{}}}}`)

// ipAddress is the IPAddress object of ip held by the Service o, as
// kube-apiserver writes it.
func (a *ServiceAllocator) ipAddress(ip netip.Addr, o *Object, now time.Time) *Object {
	t := &meta.Time{Time: now.UTC().Truncate(time.Second)}
	return &Object{
		ObjectMeta: meta.ObjectMeta{
			Name:   ip.String(),
			Labels: map[string]string{ipFamilyLabel: "IPv4", managedByLabel: managedBy},
			ManagedFields: []meta.ManagedFieldsEntry{{Manager: "kube-apiserver", Operation: "Update",
				APIVersion: "networking.k8s.io/v1", Time: t, FieldsType: "FieldsV1",
				FieldsV1: &meta.FieldsV1{Raw: ipAddressFields}}},
		},
		Value: &networkingv1.IPAddress{Spec: networkingv1.IPAddressSpec{
			ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: o.Namespace, Name: o.Name}}},
	}
}

// deleted frees what the deleted Service obj held.
func (a *ServiceAllocator) deleted(ctx context.Context, obj server.Object) {
	o, ok := obj.(*Object)
	if !ok {
		return
	}
	svc, ok := o.Value.(*corev1.Service)
	if !ok {
		return
	}
	h := heldByV1(svc)
	var ips []netip.Addr
	for ip := range h.ips {
		ips = append(ips, ip)
	}
	var ports []int32
	for p := range h.ports {
		ports = append(ports, p)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.free(ctx, o.Namespace+"/"+o.Name, ips, ports)
}

// deleteService is the Services' Resource.Delete: the store's deletion,
// then what the Service held is free, as kube-apiserver's registry frees
// it after the deletion.
func (a *ServiceAllocator) deleteService(ctx context.Context, st store.Backend[server.Object], namespace, name string, opts store.DeleteOptions) (server.Object, bool, error) {
	o, deleted, err := st.Delete(ctx, namespace, name, opts)
	if err == nil && deleted && !opts.DryRun {
		a.deleted(ctx, o)
	}
	return o, deleted, err
}

// cidrFields are the fields of the default ServiceCIDR's two writers.
var (
	cidrSpecFields   = []byte(`{"f:spec":{"f:cidrs":{}}}`)
	cidrStatusFields = []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:status":{},"f:type":{}}}}}`)
)

// CreateServiceCIDR creates the default ServiceCIDR "kubernetes" of the
// bound server, Ready, as kube-apiserver creates it at start; one that
// exists is left as it is. It does nothing on a server without
// servicecidrs.
func (a *ServiceAllocator) CreateServiceCIDR(ctx context.Context) error {
	s := a.srv.Load()
	if s == nil {
		return errors.New("builtin: CreateServiceCIDR before Bind")
	}
	if a.cidrs == nil || s.StoreOf(a.cidrs) == nil {
		return nil
	}
	t := &meta.Time{Time: a.now().UTC().Truncate(time.Second)}
	o := &Object{
		ObjectMeta: meta.ObjectMeta{Name: defaultServiceCIDR, ManagedFields: []meta.ManagedFieldsEntry{
			{Manager: "kubernetes-service-cidr-controller", Operation: "Apply", APIVersion: "networking.k8s.io/v1",
				Time: t, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: cidrStatusFields}, Subresource: "status"},
			{Manager: "kube-apiserver", Operation: "Update", APIVersion: "networking.k8s.io/v1",
				Time: t, FieldsType: "FieldsV1", FieldsV1: &meta.FieldsV1{Raw: cidrSpecFields}},
		}},
		Value: &networkingv1.ServiceCIDR{
			Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{serviceRange.String()}},
			Status: networkingv1.ServiceCIDRStatus{Conditions: []metav1.Condition{{
				Type: "Ready", Status: "True", LastTransitionTime: metav1.NewTime(t.Time),
				Message: "Kubernetes default Service CIDR is ready"}}},
		},
	}
	// The store keeps it as given, status and all (a create through the
	// server would drop the status, which kube-apiserver's controller
	// writes after).
	_, err := s.StoreOf(a.cidrs).Create(ctx, o, store.CreateOptions{})
	if status.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// keepAllocated copies to svc the values allocated to old that svc
// leaves out.
func keepAllocated(svc, old *api.Service) {
	s, o := &svc.Spec, &old.Spec
	if needsClusterIP(old) && needsClusterIP(svc) {
		if s.ClusterIP == "" {
			s.ClusterIP = o.ClusterIP
		}
		if len(s.ClusterIPs) == 0 {
			s.ClusterIPs = o.ClusterIPs
		}
		if len(s.IPFamilies) == 0 {
			s.IPFamilies = o.IPFamilies
		}
		if s.IPFamilyPolicy == nil {
			s.IPFamilyPolicy = o.IPFamilyPolicy
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		// By port name, unless the new Service uses the old port already.
		used := map[int32]bool{}
		for _, p := range s.Ports {
			if p.NodePort != 0 {
				used[p.NodePort] = true
			}
		}
		byName := map[string]int32{}
		for _, p := range o.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range s.Ports {
			if p := &s.Ports[i]; p.NodePort == 0 {
				if n := byName[p.Name]; !used[n] {
					p.NodePort = n
				}
			}
		}
	}
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(svc) && s.HealthCheckNodePort == 0 {
		s.HealthCheckNodePort = o.HealthCheckNodePort
	}
}

func needsClusterIP(svc *api.Service) bool { return svc.Spec.Type != api.ServiceTypeExternalName }

func needsNodePort(svc *api.Service) bool {
	switch svc.Spec.Type {
	case api.ServiceTypeNodePort:
		return true
	case api.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

func needsHealthCheckNodePort(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == api.ServiceExternalTrafficPolicyLocal
}

// served notes r, a resource Resources made, when a needs it.
func (a *ServiceAllocator) served(r *server.Resource) {
	switch {
	case r.Group == "" && r.Plural == "services":
		a.services = r
	case r.Group == "networking.k8s.io" && r.Plural == "ipaddresses":
		a.ipaddresses = r
	case r.Group == "networking.k8s.io" && r.Plural == "servicecidrs":
		a.cidrs = r
	}
}
