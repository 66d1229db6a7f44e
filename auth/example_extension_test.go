package auth_test

import (
	"fmt"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
)

// The data of kube-system/extension-apiserver-authentication, as a
// cluster publishes it, configures the front proxy an aggregated API
// server trusts.
func ExampleParseExtensionAuthentication() {
	ca, err := certs.NewCA("front-proxy-ca")
	if err != nil {
		panic(err)
	}
	a, err := auth.ParseExtensionAuthentication(map[string]string{
		"requestheader-client-ca-file":       string(ca.CertPEM()),
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(a.ClientCA == nil, a.RequestHeader.AllowedNames, a.RequestHeader.UsernameHeaders)

	_, err = auth.ParseExtensionAuthentication(map[string]string{
		"requestheader-client-ca-file": string(ca.CertPEM()),
		"requestheader-allowed-names":  "front-proxy-client",
	})
	fmt.Println(err)
	// Output:
	// true [front-proxy-client] [X-Remote-User]
	// requestheader-allowed-names: invalid character 'r' in literal false (expecting 'a')
}
