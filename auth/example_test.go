package auth_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/apisem/apisem/auth"
)

// An aggregated API server's authentication and authorization: the
// front proxy's headers, tokens reviewed by the host cluster, anonymous
// probes; health endpoints open, system:masters allowed, the rest asked
// of the host cluster (here a stand-in that allows reading widgets).
func Example() {
	authn := auth.Chain{
		Token: &auth.BearerToken{Reviewer: auth.TokenReviewerFunc(func(_ context.Context, token string) (auth.TokenReview, error) {
			if token == "alice-token" {
				return auth.TokenReview{Authenticated: true, User: auth.User{Name: "alice"}}, nil
			}
			return auth.TokenReview{}, nil
		})},
		Anonymous: true,
	}
	authz := auth.Authorizers{
		auth.AllowPaths(auth.DefaultAlwaysAllowPaths),
		auth.AllowGroups{auth.SystemPrivilegedGroup},
		&auth.Delegating{Reviewer: auth.AccessReviewerFunc(func(_ context.Context, a auth.Attributes) (auth.AccessReview, error) {
			return auth.AccessReview{Allowed: a.User.InGroup(auth.AllAuthenticated) && a.Verb == "get" && a.Resource == "widgets"}, nil
		})},
	}
	for _, token := range []string{"", "alice-token", "stolen"} {
		r := httptest.NewRequest("GET", "/apis/example.dev/v1/namespaces/demo/widgets/w", nil)
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		u, ok, err := authn.AuthenticateRequest(r)
		if !ok {
			fmt.Printf("%-12q 401: %v\n", token, err)
			continue
		}
		a := auth.Attributes{User: u, Verb: "get", ResourceRequest: true, Group: "example.dev", Version: "v1",
			Resource: "widgets", Namespace: "demo", Name: "w"}
		if d, reason, _ := authz.Authorize(context.Background(), a); d != auth.DecisionAllow {
			fmt.Printf("%-12q 403: %v\n", token, auth.Forbidden(a, reason))
			continue
		}
		fmt.Printf("%-12q 200 for %s %v\n", token, u.Name, u.Groups)
	}
	// Output:
	// ""           403: widgets.example.dev "w" is forbidden: User "system:anonymous" cannot get resource "widgets" in API group "example.dev" in the namespace "demo"
	// "alice-token" 200 for alice [system:authenticated]
	// "stolen"     401: invalid bearer token
}
