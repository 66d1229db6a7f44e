// Package connlimit caps the connections an http.Server accepts, in total
// and per client address, and keeps room for health checks, so that a
// flood of connections (slow request bodies, say) neither takes a server
// to its file-descriptor limit nor leaves its health endpoints unanswered.
//
// # Three zones
//
// Each connection is placed when it is accepted, by the counts of the
// connections open then:
//
//   - Served: fewer than Max connections are open, and fewer than
//     MaxPerClient from the client's address. The connection is served as
//     usual.
//   - Reserve: over either cap, but fewer than Reserve connections are in
//     the reserve, and fewer than ReservePerClient from the client's
//     address. The connection is served health checks only (Health): any
//     other request is answered at once, without reading its body, with
//     kube-apiserver's plain-text 429 "Too many requests, please try again
//     later." and Retry-After: 1, and every response closes the
//     connection. A reserve connection lives at most ReserveTimeout,
//     whatever the server's own timeouts.
//   - Closed: over that too. The connection is closed as soon as it is
//     accepted, so that clients learn at once, instead of waiting in the
//     listen backlog, that the server is full.
//
// A probe on a new connection is thus served while connections from other
// addresses fill the server, and while its own address is over its cap if
// the reserve has room: slow-body connections that reach the reserve are
// answered and closed at once; only connections that send nothing hold a
// reserve slot, for at most ReserveTimeout.
//
// A client address is an IPv4 address or an IPv6 /64 prefix, the block a
// single host is usually given. Connections from other kinds of address
// (Unix sockets) count towards Max only.
//
// # Use
//
// Limits.Serve wires a listener and an http.Server together; package
// server does it in Serve and ListenAndServe (Options.Limits.Connections).
//
// # Non-goals
//
// No rate limit on new connections, no limit on requests (an HTTP/2
// connection carries many: the server's in-flight limits bound those) and
// no trust in forwarded addresses: behind a proxy that does not keep the
// client's address, every client is the proxy.
package connlimit
