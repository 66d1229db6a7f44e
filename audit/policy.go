package audit

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/validation"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Policy is an audit.k8s.io/v1 Policy, the file of kube-apiserver's
// --audit-policy-file: which requests are recorded, at which level, in
// which stages. Read one with ParsePolicy or LoadPolicy, which validate it;
// a Policy built in Go is used as it is (Validate checks it).
type Policy struct {
	Kind       string `json:"kind,omitempty"`       // "Policy"
	APIVersion string `json:"apiVersion,omitempty"` // APIVersion
	// Rules are tried in order; the first that matches a request decides
	// its level. A request no rule matches is not recorded (LevelNone).
	Rules []PolicyRule `json:"rules"`
	// OmitStages are stages no event is made for, added to each rule's.
	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields drops metadata.managedFields from the recorded
	// bodies, unless a rule says otherwise.
	OmitManagedFields bool `json:"omitManagedFields,omitempty"`
}

// PolicyRule matches requests and gives them a level. Each field set must
// match (an empty list matches everything); a rule names resources or
// non-resource URLs, not both, and one with neither matches both kinds.
type PolicyRule struct {
	Level Level `json:"level"`
	// Users are user names; UserGroups match a user in any of them.
	Users      []string `json:"users,omitempty"`
	UserGroups []string `json:"userGroups,omitempty"`
	// Verbs are Kubernetes verbs (get, list, watch, create, ...) or, for
	// non-resource requests, lower-case HTTP methods.
	Verbs []string `json:"verbs,omitempty"`
	// Resources match resource requests by group and resource; see
	// GroupResources.
	Resources []GroupResources `json:"resources,omitempty"`
	// Namespaces match resource requests by namespace; "" matches
	// cluster-scoped resources.
	Namespaces []string `json:"namespaces,omitempty"`
	// NonResourceURLs match other requests by path: exactly, "*" for all,
	// or a prefix ending in "*" ("/healthz*").
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
	// OmitStages are added to the policy's.
	OmitStages []Stage `json:"omitStages,omitempty"`
	// OmitManagedFields, when set, overrides the policy's.
	OmitManagedFields *bool `json:"omitManagedFields,omitempty"`
}

// GroupResources are resources of one API group ("" is the core group).
// A resource is "pods", "pods/log" (a subresource), "*" (all resources and
// their subresources), "pods/*" (every subresource of pods) or "*/scale"
// (every scale subresource); none means every resource of the group.
// ResourceNames, if any, restrict them to those object names.
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// RequestConfig is what a policy says of one request.
type RequestConfig struct {
	Level             Level
	OmitManagedFields bool
	omit              stageSet
}

// Omits reports whether no event is made for stage s.
func (c RequestConfig) Omits(s Stage) bool { return c.omit.has(s) }

// stageSet is a set of stages, one bit each.
type stageSet uint8

func stageBit(s Stage) stageSet {
	switch s {
	case StageRequestReceived:
		return 1
	case StageResponseStarted:
		return 2
	case StageResponseComplete:
		return 4
	case StagePanic:
		return 8
	}
	return 0
}

func (m stageSet) has(s Stage) bool { return m&stageBit(s) != 0 }

func stagesOf(l []Stage) stageSet {
	var m stageSet
	for _, s := range l {
		m |= stageBit(s)
	}
	return m
}

// Evaluate returns the level, omitted stages and managed-fields choice of
// the first rule that matches a, as kube-apiserver's policy checker
// (k8s.io/apiserver/pkg/audit/policy/checker.go); LevelNone if none does.
func (p *Policy) Evaluate(a auth.Attributes) RequestConfig {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.matches(&a) {
			c := RequestConfig{Level: r.Level, OmitManagedFields: p.OmitManagedFields,
				omit: stagesOf(p.OmitStages) | stagesOf(r.OmitStages)}
			if r.OmitManagedFields != nil {
				c.OmitManagedFields = *r.OmitManagedFields
			}
			return c
		}
	}
	return RequestConfig{Level: LevelNone, OmitManagedFields: p.OmitManagedFields, omit: stagesOf(p.OmitStages)}
}

func (r *PolicyRule) matches(a *auth.Attributes) bool {
	if len(r.Users) > 0 && !slices.Contains(r.Users, a.User.Name) {
		return false
	}
	if len(r.UserGroups) > 0 && !slices.ContainsFunc(a.User.Groups, func(g string) bool { return slices.Contains(r.UserGroups, g) }) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, a.Verb) {
		return false
	}
	switch {
	case len(r.Namespaces) > 0 || len(r.Resources) > 0:
		return r.matchesResource(a)
	case len(r.NonResourceURLs) > 0:
		return !a.ResourceRequest && slices.ContainsFunc(r.NonResourceURLs, func(u string) bool { return pathMatches(a.Path, u) })
	}
	return true
}

// pathMatches reports whether path matches a nonResourceURLs entry: "*",
// the path itself, or a prefix of it followed by "*".
func pathMatches(path, spec string) bool {
	if spec == "*" || spec == path {
		return true
	}
	return strings.HasSuffix(spec, "*") && strings.HasPrefix(path, strings.TrimRight(spec, "*"))
}

func (r *PolicyRule) matchesResource(a *auth.Attributes) bool {
	if !a.ResourceRequest {
		return false
	}
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, a.Namespace) {
		return false
	}
	if len(r.Resources) == 0 {
		return true
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	for _, gr := range r.Resources {
		if gr.Group != a.Group {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, a.Name) {
			continue
		}
		for _, res := range gr.Resources {
			switch {
			case res == "*" || res == combined:
				return true
			case a.Subresource != "" && strings.HasPrefix(res, "*/") && res[2:] == a.Subresource:
				return true
			case strings.HasSuffix(res, "/*") && res[:len(res)-2] == a.Resource:
				return true
			}
		}
	}
	return false
}

// PolicyError is an invalid policy: the problems kube-apiserver's
// validation (k8s.io/apiserver/pkg/apis/audit/validation) finds, with its
// messages.
type PolicyError struct {
	Errors []status.FieldError
}

// Error lists the problems as Kubernetes' aggregate errors do: one alone,
// several in brackets.
func (e *PolicyError) Error() string {
	if len(e.Errors) == 1 {
		return e.Errors[0].Error()
	}
	msgs := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		msgs[i] = fe.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

var (
	validLevels = []string{string(LevelNone), string(LevelMetadata), string(LevelRequest), string(LevelRequestResponse)}
	validStages = []string{string(StageRequestReceived), string(StageResponseStarted), string(StageResponseComplete), string(StagePanic)}
)

// Validate checks p as kube-apiserver checks a policy file: each rule's
// level, non-resource URLs, groups, resource names and stages; it returns
// a *PolicyError, or nil. It does not require rules (ParsePolicy does).
func (p *Policy) Validate() error {
	var errs []status.FieldError
	for i, r := range p.Rules {
		path := fmt.Sprintf("rules[%d]", i)
		switch r.Level {
		case LevelNone, LevelMetadata, LevelRequest, LevelRequestResponse:
		case "":
			errs = append(errs, status.Required(path+".level", ""))
		default:
			errs = append(errs, status.NotSupported(path+".level", string(r.Level), validLevels...))
		}
		for j, u := range r.NonResourceURLs {
			if u == "*" {
				continue
			}
			f := fmt.Sprintf("%s.nonResourceURLs[%d]", path, j)
			if !strings.HasPrefix(u, "/") {
				errs = append(errs, status.InvalidValue(f, u, "non-resource URL rules must begin with a '/' character"))
			}
			if u != "" && strings.Contains(u[:len(u)-1], "*") {
				errs = append(errs, status.InvalidValue(f, u, "non-resource URL wildcards '*' must be the final character of the rule"))
			}
		}
		for _, gr := range r.Resources {
			if gr.Group != "" {
				if msgs := validation.NameIsDNSSubdomain(gr.Group, false); len(msgs) > 0 {
					errs = append(errs, status.InvalidValue(path+".resources.group", gr.Group, strings.Join(msgs, ",")))
				}
			}
			if len(gr.ResourceNames) > 0 && len(gr.Resources) == 0 {
				errs = append(errs, status.InvalidValue(path+".resources.resourceNames", gr.ResourceNames, "using resourceNames requires at least one resource"))
			}
		}
		for j, s := range r.OmitStages {
			if stageBit(s) == 0 {
				errs = append(errs, status.InvalidValue(fmt.Sprintf("%s.omitStages[%d]", path, j), string(s),
					"allowed stages are "+strings.Join(validStages, ",")))
			}
		}
		if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
			errs = append(errs, status.InvalidValue(path+".nonResourceURLs", r.NonResourceURLs,
				"rules cannot apply to both regular resources and non-resource URLs"))
		}
	}
	if len(errs) > 0 {
		return &PolicyError{Errors: errs}
	}
	return nil
}

// MaxPolicyBytes bounds the policy files LoadPolicy reads.
const MaxPolicyBytes = 4 << 20

// ParsePolicy reads a Policy in YAML or JSON and validates it as
// kube-apiserver does: apiVersion audit.k8s.io/v1, kind Policy, at least
// one rule, and Validate. Fields it does not know are ignored, as
// kube-apiserver ignores them.
func ParsePolicy(data []byte) (*Policy, error) {
	if len(data) > MaxPolicyBytes {
		return nil, fmt.Errorf("failed decoding: the policy is larger than %d bytes", MaxPolicyBytes)
	}
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("failed decoding: %w", err)
	}
	p := &Policy{}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(j, p); err != nil {
		return nil, fmt.Errorf("failed decoding: %w", err)
	}
	// kube-apiserver's decoder's words, without its scheme's name.
	switch {
	case p.Kind == "":
		return nil, fmt.Errorf("failed decoding: Object 'Kind' is missing in the policy")
	case p.APIVersion == "":
		return nil, fmt.Errorf("failed decoding: Object 'apiVersion' is missing in the policy")
	case p.APIVersion != APIVersion || p.Kind != "Policy":
		return nil, fmt.Errorf("failed decoding: no kind %q is registered for version %q", p.Kind, p.APIVersion)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(p.Rules) == 0 {
		return nil, fmt.Errorf("loaded illegal policy with 0 rules")
	}
	return p, nil
}

// LoadPolicy reads the policy file at path (ParsePolicy), as
// kube-apiserver's --audit-policy-file.
func LoadPolicy(path string) (*Policy, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("failed to read file path %q: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxPolicyBytes+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read file path %q: %w", path, err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("%w: from file %s", err, path)
	}
	return p, nil
}
