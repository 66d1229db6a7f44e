package auth

import (
	"crypto/x509"
	"encoding/json"
	"fmt"

	"github.com/apisem/apisem/auth/certs"
)

// ExtensionAuthentication is what a Kubernetes cluster tells extension
// API servers about its authentication, in the data of its ConfigMap
// kube-system/extension-apiserver-authentication.
type ExtensionAuthentication struct {
	// ClientCA verifies client certificates the cluster's users hold
	// (key client-ca-file); nil if the cluster publishes none.
	ClientCA *x509.CertPool
	// RequestHeader trusts the cluster's front proxy (keys
	// requestheader-*); nil if the cluster publishes no front-proxy CA.
	// Its Verifier is nil: a server that also accepts ClientCA's
	// certificates gives its ClientCert and RequestHeader one
	// ConnVerifier, to verify each connection once for both.
	RequestHeader *RequestHeader
}

// ParseExtensionAuthentication reads the data of the
// extension-apiserver-authentication ConfigMap: PEM bundles under
// client-ca-file and requestheader-client-ca-file, JSON lists of strings
// under requestheader-allowed-names and the requestheader-*-headers keys.
// A missing or empty header list means RequestHeader's default. Without
// a front-proxy CA no front proxy is trusted, whatever the other keys
// say. The first key that does not parse, in the order above, is the
// error.
//
// It takes the map, not the ConfigMap, so that this module needs no
// Kubernetes client: module github.com/apisem/apisem/auth/kubedelegate
// reads the ConfigMap.
func ParseExtensionAuthentication(data map[string]string) (ExtensionAuthentication, error) {
	var a ExtensionAuthentication
	if pem := data["client-ca-file"]; pem != "" {
		p, err := certs.PoolFromPEM([]byte(pem))
		if err != nil {
			return ExtensionAuthentication{}, fmt.Errorf("client-ca-file: %w", err)
		}
		a.ClientCA = p
	}
	pem := data["requestheader-client-ca-file"]
	if pem == "" {
		return a, nil
	}
	p, err := certs.PoolFromPEM([]byte(pem))
	if err != nil {
		return ExtensionAuthentication{}, fmt.Errorf("requestheader-client-ca-file: %w", err)
	}
	rh := &RequestHeader{CA: p}
	for _, l := range []struct {
		key string
		dst *[]string
	}{
		{"requestheader-allowed-names", &rh.AllowedNames},
		{"requestheader-username-headers", &rh.UsernameHeaders},
		{"requestheader-uid-headers", &rh.UIDHeaders},
		{"requestheader-group-headers", &rh.GroupHeaders},
		{"requestheader-extra-headers-prefix", &rh.ExtraHeaderPrefixes},
	} {
		s := data[l.key]
		if s == "" {
			continue
		}
		var list []string
		if err := json.Unmarshal([]byte(s), &list); err != nil {
			return ExtensionAuthentication{}, fmt.Errorf("%s: %w", l.key, err)
		}
		// An empty header list means the default; an empty list of
		// names allows any name, as a missing one does.
		if len(list) > 0 || l.key == "requestheader-allowed-names" {
			*l.dst = list
		}
	}
	a.RequestHeader = rh
	return a, nil
}
