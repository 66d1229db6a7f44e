package auth

import "crypto/tls"

// Verifications returns how many times v verified the client certificate
// of the connection of state.
func (v *ConnVerifier) Verifications(state *tls.ConnectionState) int {
	return v.verificationsOf(state)
}

// Len returns the number of connections v remembers.
func (v *ConnVerifier) Len() int { return v.len() }

// Own returns the ConnVerifier c uses when Verifier is nil.
func (c *ClientCert) Own() *ConnVerifier { return &c.own }

// Own returns the ConnVerifier h uses when Verifier is nil.
func (h *RequestHeader) Own() *ConnVerifier { return &h.own }
