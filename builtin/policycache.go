package builtin

import (
	"context"
	"slices"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// policyCache makes the hooks a policy dispatcher takes from the
// policies and bindings a server stores, for validating and mutating
// policies alike: P and B are Kubernetes' policy and binding types, E a
// policy compiled. Each stored version is converted, and each policy
// compiled, once; what is no longer stored is forgotten.
type policyCache[P interface {
	runtime.Object
	GetName() string
}, B runtime.Object, E generic.Evaluator] struct {
	newPolicy  func() P
	newBinding func() B
	compile    func(P) E
	// policyName is a binding's spec.policyName, paramKind a policy's
	// spec.paramKind.
	policyName func(B) string
	paramKind  func(P) *admissionregistrationv1.ParamKind

	mu       sync.Mutex
	policies map[string]cachedPolicy[P, E] // by name
	bindings map[string]cachedPolicy[B, E]
}

// cachedPolicy is a policy or binding as the dispatcher takes it, and a
// policy's compiled form, for the stored version it was made of.
type cachedPolicy[T runtime.Object, E any] struct {
	version string // uid and resourceVersion
	obj     T
	eval    E
}

// hooks returns the bound policies of pres with their bindings of bres,
// as the dispatcher takes them, ordered by the policies' names (each
// policy's bindings by theirs), as the plugin's policy source orders
// them.
func (c *policyCache[P, B, E]) hooks(ctx context.Context, s *server.Server, pres, bres *server.Resource) ([]generic.PolicyHook[P, B, E], error) {
	if bres == nil || pres == nil {
		return nil, nil
	}
	page, err := s.StoreOf(bres).List(ctx, "", store.ListOptions{Read: readAny})
	if err != nil || page.Len() == 0 {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.policies == nil {
		c.policies, c.bindings = map[string]cachedPolicy[P, E]{}, map[string]cachedPolicy[B, E]{}
	}
	var hooks []generic.PolicyHook[P, B, E]
	byPolicy := map[string]int{} // index in hooks
	seen := map[string]bool{}
	policies := s.StoreOf(pres)
	for i := range page.Len() {
		b, err := c.binding(page.View(i))
		if err != nil {
			return nil, err
		}
		seen[page.View(i).Meta().Name] = true
		name := c.policyName(b)
		if j, ok := byPolicy[name]; ok {
			hooks[j].Bindings = append(hooks[j].Bindings, b)
			continue
		}
		o, err := policies.View(ctx, "", name, readAny)
		if status.IsNotFound(err) {
			continue // a binding of no policy binds nothing
		}
		if err != nil {
			return nil, err
		}
		p, err := c.policy(o)
		if err != nil {
			return nil, err
		}
		h := generic.PolicyHook[P, B, E]{Policy: p.obj, Bindings: []B{b}, Evaluator: p.eval}
		if pk := c.paramKind(p.obj); pk != nil {
			h.ParamInformer, h.ParamScope, h.ConfigurationError = paramSource(s, pk)
		}
		byPolicy[name] = len(hooks)
		hooks = append(hooks, h)
	}
	// Forget what is gone.
	for name := range c.bindings {
		if !seen[name] {
			delete(c.bindings, name)
		}
	}
	for name := range c.policies {
		if _, ok := byPolicy[name]; !ok {
			delete(c.policies, name)
		}
	}
	slices.SortFunc(hooks, func(a, b generic.PolicyHook[P, B, E]) int {
		return strings.Compare(a.Policy.GetName(), b.Policy.GetName())
	})
	return hooks, nil
}

// binding returns the stored binding o as Kubernetes' type. Called with
// c.mu held.
func (c *policyCache[P, B, E]) binding(o server.Object) (B, error) {
	m := o.Meta()
	if cb, ok := c.bindings[m.Name]; ok && cb.version == objectVersion(m) {
		return cb.obj, nil
	}
	b := c.newBinding()
	if err := asKube(o, b); err != nil {
		return b, err
	}
	c.bindings[m.Name] = cachedPolicy[B, E]{version: objectVersion(m), obj: b}
	return b, nil
}

// policy returns the stored policy o, compiled. Called with c.mu held.
func (c *policyCache[P, B, E]) policy(o server.Object) (cachedPolicy[P, E], error) {
	m := o.Meta()
	if cp, ok := c.policies[m.Name]; ok && cp.version == objectVersion(m) {
		return cp, nil
	}
	p := c.newPolicy()
	if err := asKube(o, p); err != nil {
		return cachedPolicy[P, E]{}, err
	}
	cp := cachedPolicy[P, E]{version: objectVersion(m), obj: p, eval: c.compile(p)}
	c.policies[m.Name] = cp
	return cp, nil
}
