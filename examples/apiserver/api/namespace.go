package api

import "github.com/apisem/apisem/namespace"

// Namespace is package namespace's core v1 Namespace, which the example
// server serves with that package's lifecycle.
type Namespace = namespace.Namespace
