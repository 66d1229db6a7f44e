package auth

import "crypto/tls"

// Verifications returns how many times the client certificate of the
// connection of state was verified.
func Verifications(state *tls.ConnectionState) int { return verifiedConns.verificationsOf(state) }

// VerifiedConns returns how many connections the verification cache
// remembers.
func VerifiedConns() int { return verifiedConns.len() }
