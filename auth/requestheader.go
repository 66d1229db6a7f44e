package auth

import (
	"crypto/x509"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The header names a Kubernetes front proxy (the aggregator) uses by
// default, as kube-apiserver's --requestheader-*-headers flags recommend.
const (
	DefaultUsernameHeader    = "X-Remote-User"
	DefaultUIDHeader         = "X-Remote-Uid"
	DefaultGroupHeader       = "X-Remote-Group"
	DefaultExtraHeaderPrefix = "X-Remote-Extra-"
)

// RequestHeader authenticates requests a front proxy forwards with the
// user in headers, as the Kubernetes aggregator forwards requests to an
// aggregated API server. The headers are believed only when the request
// comes over TLS with a client certificate that chains to CA and, if
// AllowedNames is set, whose common name is one of them; a request with
// the headers but without such a certificate is not authenticated by
// them (a certificate that fails is an error; none at all is no answer).
// Either way the headers are removed from the request, so no handler can
// mistake a forged header for an identity. The certificate is verified
// once per connection, by Verifier (see ConnVerifier): a ClientCert with
// the same Verifier and an equal CA shares the verification.
//
// The user name is the first non-empty value of the username headers;
// groups are every value of the group headers; each header starting with
// an extra prefix adds its values to the extra key that follows the
// prefix, lower-cased and %-decoded (a key that does not decode is kept as
// sent). Header names match case-insensitively. Nil header lists mean the
// defaults; an empty non-nil list means none (for UIDHeaders). CA and
// Verifier must not be changed after first use, nor a RequestHeader
// copied.
type RequestHeader struct {
	// CA verifies the front proxy's client certificate
	// (--requestheader-client-ca-file). Required: without it no header
	// is believed.
	CA *x509.CertPool
	// AllowedNames are the common names the front proxy's certificate
	// may have (--requestheader-allowed-names). Empty allows any
	// certificate that chains to CA, as in Kubernetes.
	AllowedNames []string

	UsernameHeaders     []string // nil: X-Remote-User
	UIDHeaders          []string // nil: X-Remote-Uid
	GroupHeaders        []string // nil: X-Remote-Group
	ExtraHeaderPrefixes []string // nil: X-Remote-Extra-

	// Verifier verifies the front proxy's certificate and remembers its
	// answers per connection; nil means one of the RequestHeader's own.
	// Give the server's ClientCert the same one to verify a connection
	// once for both.
	Verifier *ConnVerifier
	// Now is the clock certificates are checked against; nil means
	// time.Now.
	Now func() time.Time

	own ConnVerifier // used when Verifier is nil
}

// verifier returns the ConnVerifier in effect.
func (h *RequestHeader) verifier() *ConnVerifier {
	if h.Verifier != nil {
		return h.Verifier
	}
	return &h.own
}

// NotAllowedError is the error for a front proxy certificate that
// chains to the request-header CA but whose common name is not one of
// the allowed names.
type NotAllowedError struct {
	CommonName string
}

func (e *NotAllowedError) Error() string {
	return "x509: subject with cn=" + e.CommonName + " is not in the allowed list"
}

// HeaderNames are the header names of a front proxy.
type HeaderNames struct {
	Username, UID, Group, ExtraPrefix []string
}

// names returns the header names in effect.
func (h *RequestHeader) names() HeaderNames {
	return HeaderNames{
		Username:    orDefault(h.UsernameHeaders, DefaultUsernameHeader),
		UID:         orDefault(h.UIDHeaders, DefaultUIDHeader),
		Group:       orDefault(h.GroupHeaders, DefaultGroupHeader),
		ExtraPrefix: orDefault(h.ExtraHeaderPrefixes, DefaultExtraHeaderPrefix),
	}
}

// DefaultHeaderNames are the names of a RequestHeader with no names set.
func DefaultHeaderNames() HeaderNames { return (&RequestHeader{}).names() }

func orDefault(names []string, def string) []string {
	if names == nil {
		return []string{def}
	}
	return names
}

// AuthenticateRequest implements Authenticator.
func (h *RequestHeader) AuthenticateRequest(r *http.Request) (User, bool, error) {
	names := h.names()
	defer names.Strip(r.Header)
	leaf, err := h.verifier().verifyClient(r.TLS, h.CA, now(h.Now))
	if leaf == nil || err != nil {
		return User{}, false, err
	}
	if len(h.AllowedNames) > 0 && !slices.Contains(h.AllowedNames, leaf.Subject.CommonName) {
		return User{}, false, &NotAllowedError{CommonName: leaf.Subject.CommonName}
	}
	u, ok := names.User(r.Header)
	return u, ok, nil
}

// User reads the user the headers h assert, and false if they name none.
// It does not check who sent them: that is RequestHeader's job.
func (n HeaderNames) User(h http.Header) (User, bool) {
	u := User{Name: firstValue(h, n.Username)}
	if u.Name == "" {
		return User{}, false
	}
	u.UID = firstValue(h, n.UID)
	for _, name := range n.Group {
		for _, v := range h.Values(name) {
			if v != "" {
				u.Groups = append(u.Groups, v)
			}
		}
	}
	// Prefixes first, then headers: the values of one key keep the order
	// of the prefixes.
	for _, prefix := range n.ExtraPrefix {
		for name, vs := range h {
			if prefix == "" || !hasPrefixFold(name, prefix) {
				continue
			}
			key := strings.ToLower(name[len(prefix):])
			if k, err := url.PathUnescape(key); err == nil {
				key = k
			}
			if u.Extra == nil {
				u.Extra = map[string][]string{}
			}
			u.Extra[key] = append(u.Extra[key], vs...)
		}
	}
	return u, true
}

// Strip removes every header named in n from h, matching names
// case-insensitively so that a key net/http left uncanonical goes too.
func (n HeaderNames) Strip(h http.Header) {
	for name := range h {
		if n.names(name) {
			delete(h, name)
		}
	}
}

// names reports whether the header name is one of n's.
func (n HeaderNames) names(name string) bool {
	for _, list := range [][]string{n.Username, n.UID, n.Group} {
		for _, s := range list {
			if s != "" && strings.EqualFold(name, s) {
				return true
			}
		}
	}
	for _, prefix := range n.ExtraPrefix {
		if prefix != "" && hasPrefixFold(name, prefix) {
			return true
		}
	}
	return false
}

func firstValue(h http.Header, names []string) string {
	for _, name := range names {
		if v := h.Get(name); v != "" {
			return v
		}
	}
	return ""
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
