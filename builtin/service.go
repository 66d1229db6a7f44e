package builtin

import (
	"net/netip"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// allocator gives Services the cluster IPs and node ports that
// kube-apiserver's Service registry allocates (pkg/registry/core/service):
// a cluster IP from 10.96.0.0/12 (kubeadm's and kind's default range;
// 10.96.0.1 is the kubernetes Service's) for every Service but an
// ExternalName one, in a single-stack IPv4 cluster, and node ports from
// 30000-32767 for NodePort and LoadBalancer Services. It hands them out
// in order and never takes them back (a test server is short-lived);
// a client that names its own is not checked for collisions.
type allocator struct {
	mu       sync.Mutex
	nextIP   netip.Addr
	nextPort int32
}

func newAllocator() *allocator {
	return &allocator{nextIP: netip.MustParseAddr("10.96.0.10"), nextPort: 30000}
}

const lastNodePort = 32767

var serviceRange = netip.MustParsePrefix("10.96.0.0/12")

func (a *allocator) ip() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ip := a.nextIP
	if a.nextIP = ip.Next(); !serviceRange.Contains(a.nextIP) {
		a.nextIP = netip.MustParseAddr("10.96.0.10")
	}
	return ip.String()
}

func (a *allocator) port() int32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.nextPort
	if a.nextPort++; a.nextPort > lastNodePort {
		a.nextPort = 30000
	}
	return p
}

// service allocates what obj, an internal Service, needs: on create its
// cluster IPs, IP families and node ports; on update (old set) it first
// keeps the allocated values obj leaves out, as kube-apiserver does
// (patchAllocatedValues), so that an update that omits them is not
// refused for changing them.
func (a *allocator) service(obj, old runtime.Object) {
	svc, ok := obj.(*api.Service)
	if !ok {
		return
	}
	s := &svc.Spec
	if o, ok := old.(*api.Service); ok {
		keepAllocated(svc, o)
	}
	if needsClusterIP(svc) {
		switch {
		case s.ClusterIP == "" && len(s.ClusterIPs) == 0:
			ip := a.ip()
			s.ClusterIP, s.ClusterIPs = ip, []string{ip}
		case s.ClusterIP == "" && len(s.ClusterIPs) > 0:
			s.ClusterIP = s.ClusterIPs[0]
		case len(s.ClusterIPs) == 0:
			s.ClusterIPs = []string{s.ClusterIP}
		}
		if len(s.IPFamilies) == 0 {
			s.IPFamilies = []api.IPFamily{api.IPv4Protocol}
		}
		if s.IPFamilyPolicy == nil {
			single := api.IPFamilyPolicySingleStack
			s.IPFamilyPolicy = &single
		}
	}
	if needsNodePort(svc) {
		for i := range s.Ports {
			if s.Ports[i].NodePort == 0 {
				s.Ports[i].NodePort = a.port()
			}
		}
	}
	if needsHealthCheckNodePort(svc) && s.HealthCheckNodePort == 0 {
		s.HealthCheckNodePort = a.port()
	}
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
