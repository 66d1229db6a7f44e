package auth_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/apisem/apisem/auth"
	"github.com/apisem/apisem/auth/certs"
)

func TestParseExtensionAuthentication(t *testing.T) {
	clientCA, err := certs.NewCA("client-ca")
	if err != nil {
		t.Fatal(err)
	}
	proxyCA, err := certs.NewCA("front-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	// What kube-apiserver publishes.
	a, err := auth.ParseExtensionAuthentication(map[string]string{
		"client-ca-file":                     string(clientCA.CertPEM()),
		"requestheader-client-ca-file":       string(proxyCA.CertPEM()),
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
		"requestheader-uid-headers":          `[]`,
	})
	if err != nil {
		t.Fatal(err)
	}
	if a.ClientCA == nil || !a.ClientCA.Equal(clientCA.Pool()) || a.RequestHeader == nil || !a.RequestHeader.CA.Equal(proxyCA.Pool()) {
		t.Fatalf("the CAs are not the published ones: %+v", a)
	}
	// The empty uid list means the default.
	want := &auth.RequestHeader{AllowedNames: []string{"front-proxy-client"}, UsernameHeaders: []string{"X-Remote-User"},
		GroupHeaders: []string{"X-Remote-Group"}, ExtraHeaderPrefixes: []string{"X-Remote-Extra-"}}
	if diff := cmp.Diff(want, a.RequestHeader, cmpopts.IgnoreFields(auth.RequestHeader{}, "CA"), cmpopts.IgnoreUnexported(auth.RequestHeader{})); diff != "" {
		t.Errorf("RequestHeader (-want +got):\n%s", diff)
	}

	// No front-proxy CA: no front proxy is trusted, whatever the names.
	a, err = auth.ParseExtensionAuthentication(map[string]string{"requestheader-allowed-names": `["x"]`})
	if err != nil || a.RequestHeader != nil || a.ClientCA != nil {
		t.Errorf("without CAs: %+v, %v", a, err)
	}

	for _, tt := range []struct {
		data map[string]string
		err  string
	}{
		{map[string]string{"client-ca-file": "not PEM"}, "client-ca-file: "},
		{map[string]string{"requestheader-client-ca-file": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"}, "requestheader-client-ca-file: "},
		{map[string]string{"requestheader-client-ca-file": string(proxyCA.CertPEM()), "requestheader-allowed-names": "front-proxy-client"},
			"requestheader-allowed-names: invalid character"},
		// The first bad key in the documented order, every time.
		{map[string]string{"requestheader-client-ca-file": string(proxyCA.CertPEM()), "requestheader-uid-headers": "x",
			"requestheader-group-headers": "y", "requestheader-username-headers": "z"}, "requestheader-username-headers: "},
	} {
		a, err := auth.ParseExtensionAuthentication(tt.data)
		if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("ParseExtensionAuthentication(%q) = %v; want an error starting %q", tt.data, err, tt.err)
		}
		if a.ClientCA != nil || a.RequestHeader != nil {
			t.Errorf("ParseExtensionAuthentication(%q) = %+v with its error; want nothing trusted", tt.data, a)
		}
	}
}

// FuzzParseExtensionAuthentication: the ConfigMap comes from the host
// cluster; whatever it holds must not panic, and a front proxy is trusted
// only with a CA.
func FuzzParseExtensionAuthentication(f *testing.F) {
	ca, err := certs.NewCA("ca")
	if err != nil {
		f.Fatal(err)
	}
	f.Add("", string(ca.CertPEM()), `["front-proxy-client"]`, `["X-Remote-User"]`, `["X-Remote-Extra-"]`)
	f.Add(string(ca.CertPEM()), "", `[]`, `null`, `[]`)
	f.Add("garbage", "garbage", `["a",1]`, `{}`, `"x"`)
	f.Fuzz(func(t *testing.T, clientPEM, proxyPEM, names, headers, prefixes string) {
		a, err := auth.ParseExtensionAuthentication(map[string]string{
			"client-ca-file":                     clientPEM,
			"requestheader-client-ca-file":       proxyPEM,
			"requestheader-allowed-names":        names,
			"requestheader-username-headers":     headers,
			"requestheader-group-headers":        headers,
			"requestheader-extra-headers-prefix": prefixes,
		})
		if err != nil {
			if a.ClientCA != nil || a.RequestHeader != nil {
				t.Fatalf("trusted %+v with the error %v", a, err)
			}
			return
		}
		if a.RequestHeader != nil && a.RequestHeader.CA == nil {
			t.Fatal("a front proxy trusted without a CA")
		}
		if (a.RequestHeader != nil) != (proxyPEM != "") || (a.ClientCA != nil) != (clientPEM != "") {
			t.Fatalf("ParseExtensionAuthentication = %+v for client CA %q, proxy CA %q", a, clientPEM, proxyPEM)
		}
	})
}
