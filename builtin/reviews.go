package builtin

import (
	"context"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	authorizationapi "k8s.io/kubernetes/pkg/apis/authorization"
	authorizationvalidation "k8s.io/kubernetes/pkg/apis/authorization/validation"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"

	// The review groups' types, in legacyscheme.
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
)

// The review kinds: create-only resources that keep no objects and
// answer the reviewed object with its status, as kube-apiserver's
// authentication.k8s.io and authorization.k8s.io registries. Like
// bindingKind they are no rows of the table (they have no strategy).
var (
	tokenReviewKind       = &kind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview", Plural: "tokenreviews"}
	selfSubjectReviewKind = &kind{Group: "authentication.k8s.io", Version: "v1", Kind: "SelfSubjectReview", Plural: "selfsubjectreviews"}
	localSARKind          = &kind{Group: "authorization.k8s.io", Version: "v1", Kind: "LocalSubjectAccessReview", Plural: "localsubjectaccessreviews", Namespaced: true}
	selfSARKind           = &kind{Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectAccessReview", Plural: "selfsubjectaccessreviews"}
	sarKind               = &kind{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview", Plural: "subjectaccessreviews"}
	selfRulesKind         = &kind{Group: "authorization.k8s.io", Version: "v1", Kind: "SelfSubjectRulesReview", Plural: "selfsubjectrulesreviews"}
)

// reviewGroups are the groups of the review kinds, which Groups lists
// after apps, as kubectl api-resources does.
var reviewGroups = []string{"authentication.k8s.io", "authorization.k8s.io"}

// reviewResources returns the review resources of group.
func reviewResources(defs *definitions, group string) ([]*server.Resource, error) {
	var out []*server.Resource
	for _, k := range []*kind{selfSubjectReviewKind, tokenReviewKind, localSARKind, selfSARKind, selfRulesKind, sarKind} {
		if k.Group != group {
			continue
		}
		r := &server.Resource{
			Group: k.Group, Version: k.Version, Kind: k.Kind, ListKind: k.Kind + "List", Plural: k.Plural, Singular: k.Plural[:len(k.Plural)-1],
			Namespaced:  k.Namespaced,
			Verbs:       []string{"create"},
			New:         func() server.Object { return &Object{Value: k.newValue()} },
			DecodeProto: k.decodeProto,
			CheckTypes:  k.checkTypes,
		}
		r.Create = func(ctx context.Context, req server.CreateRequest) (server.Object, error) { return review(ctx, k, req) }
		if err := defs.describe(k, r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// review answers a create of a review of kind k, as kube-apiserver's
// REST of the kind: the object validated by Kubernetes' own rules, then
// its status filled from the request's user and the server's
// authorizer. A server without an authenticator has no user: a self
// review then reviews the zero user. A server without an authorizer
// allows everything, so its reviews are allowed (with no reason, as
// kube-apiserver's AlwaysAllow authorizer answers).
func review(ctx context.Context, k *kind, req server.CreateRequest) (server.Object, error) {
	o := req.Object.DeepCopyObject().(*Object)
	if k == selfSubjectReviewKind {
		u, _ := auth.UserFrom(ctx)
		// kube-apiserver answers a new object, whatever was sent.
		info := authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
		if len(u.Extra) > 0 {
			info.Extra = make(map[string]authenticationv1.ExtraValue, len(u.Extra))
			for key, v := range u.Extra {
				info.Extra[key] = v
			}
		}
		out := &Object{Value: &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{UserInfo: info}}}
		out.CreationTimestamp = meta.NewTime(req.Server.Now())
		return out, nil
	}
	if k == tokenReviewKind {
		return tokenReview(ctx, o, req)
	}
	if k == selfRulesKind {
		return rulesReview(o, req)
	}
	in, err := k.internal(o)
	if err != nil {
		return nil, err
	}
	var errs field.ErrorList
	switch v := in.(type) {
	case *authorizationapi.SelfSubjectAccessReview:
		errs = authorizationvalidation.ValidateSelfSubjectAccessReviewCreate(k.context(o, "create", ""), scheme, v)
	case *authorizationapi.SubjectAccessReview:
		errs = authorizationvalidation.ValidateSubjectAccessReviewCreate(k.context(o, "create", ""), scheme, v)
	case *authorizationapi.LocalSubjectAccessReview:
		errs = authorizationvalidation.ValidateLocalSubjectAccessReviewCreate(k.context(o, "create", ""), scheme, v)
	}
	if len(errs) > 0 {
		fes := make([]status.FieldError, len(errs))
		for i, e := range errs {
			fes[i] = fieldError(e)
		}
		// The registries name the kind of the internal object, whose
		// kind is empty: `.authorization.k8s.io "" is invalid`.
		return nil, status.NewInvalid(status.GroupKind{Group: k.Group}, "", fes...)
	}
	if k == localSARKind && req.Namespace == "" {
		return nil, status.NewBadRequest("namespace is required on this type: ")
	}
	var spec *authorizationv1.SubjectAccessReviewSpec
	var st *authorizationv1.SubjectAccessReviewStatus
	var u auth.User
	switch v := o.Value.(type) {
	case *authorizationv1.SelfSubjectAccessReview:
		u, _ = auth.UserFrom(ctx)
		spec = &authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: v.Spec.ResourceAttributes, NonResourceAttributes: v.Spec.NonResourceAttributes}
		st = &v.Status
	case *authorizationv1.SubjectAccessReview:
		spec, st = &v.Spec, &v.Status
	case *authorizationv1.LocalSubjectAccessReview:
		spec, st = &v.Spec, &v.Status
	default:
		return nil, status.New(http.StatusInternalServerError, status.ReasonInternalError, "not a review", nil)
	}
	if k != selfSARKind {
		u = auth.User{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
		if len(spec.Extra) > 0 {
			u.Extra = make(map[string][]string, len(spec.Extra))
			for key, v := range spec.Extra {
				u.Extra[key] = v
			}
		}
	}
	*st = authorizationv1.SubjectAccessReviewStatus{Allowed: true}
	if req.Authorizer != nil {
		d, reason, err := req.Authorizer.Authorize(ctx, reviewAttributes(u, spec))
		*st = authorizationv1.SubjectAccessReviewStatus{Allowed: d == auth.DecisionAllow, Denied: d == auth.DecisionDeny, Reason: reason}
		if err != nil {
			st.EvaluationError = err.Error()
		}
	}
	return o, nil
}

// reviewAttributes are the attributes a review of spec asks about for
// u, as kube-apiserver's AuthorizationAttributesFrom makes them.
func reviewAttributes(u auth.User, spec *authorizationv1.SubjectAccessReviewSpec) auth.Attributes {
	a := auth.Attributes{User: u}
	if ra := spec.ResourceAttributes; ra != nil {
		a.ResourceRequest = true
		a.Verb, a.Group, a.Version, a.Resource, a.Subresource = ra.Verb, ra.Group, ra.Version, ra.Resource, ra.Subresource
		a.Namespace, a.Name = ra.Namespace, ra.Name
	}
	if na := spec.NonResourceAttributes; na != nil {
		a.Verb, a.Path = na.Verb, na.Path
	}
	return a
}

// rulesReview answers a SelfSubjectRulesReview as kube-apiserver's REST
// does: a new object with the rules of its spec.namespace and nothing of
// the spec. An auth.Authorizer decides requests and cannot list what it
// allows, so a server with one answers no rules and incomplete, as
// kube-apiserver answers for a webhook authorizer; one without allows
// everything, and answers the rules of kube-apiserver's AlwaysAllow.
func rulesReview(o *Object, req server.CreateRequest) (server.Object, error) {
	if o.Value.(*authorizationv1.SelfSubjectRulesReview).Spec.Namespace == "" {
		return nil, status.NewBadRequest("no namespace on request")
	}
	st := authorizationv1.SubjectRulesReviewStatus{ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{}, Incomplete: true}
	if req.Authorizer == nil {
		st = authorizationv1.SubjectRulesReviewStatus{
			ResourceRules:    []authorizationv1.ResourceRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}},
			NonResourceRules: []authorizationv1.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
		}
	}
	return &Object{Value: &authorizationv1.SelfSubjectRulesReview{Status: st}}, nil
}

// tokenReview answers a TokenReview as kube-apiserver's REST does: the
// server's authenticator is asked about a request that carries the
// token as its bearer token, and the review answers who it is or the
// authenticator's error. A server without an authenticator answers the
// review as it came, as kube-apiserver without a token authenticator.
func tokenReview(ctx context.Context, o *Object, req server.CreateRequest) (server.Object, error) {
	tr := o.Value.(*authenticationv1.TokenReview)
	if tr.Spec.Token == "" {
		return nil, status.NewBadRequest("token is required for TokenReview in authentication")
	}
	if req.Authenticator == nil {
		return o, nil
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	if err != nil {
		return nil, err
	}
	r.Header.Set("Authorization", "Bearer "+tr.Spec.Token)
	u, ok, err := req.Authenticator.AuthenticateRequest(r)
	tr.Status = authenticationv1.TokenReviewStatus{Authenticated: ok}
	if err != nil {
		tr.Status.Error = err.Error()
	}
	if ok {
		tr.Status.User = authenticationv1.UserInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
		if len(u.Extra) > 0 {
			tr.Status.User.Extra = make(map[string]authenticationv1.ExtraValue, len(u.Extra))
			for key, v := range u.Extra {
				tr.Status.User.Extra[key] = v
			}
		}
	}
	return o, nil
}
