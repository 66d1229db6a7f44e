// Package jsonvalue works on JSON values as a decoder leaves them in Go:
// map[string]any for an object, []any for an array, string, bool, nil,
// and int64 or float64 (or json.Number) for a number. server.Unstructured
// holds its content so, and so does package crd's validation of custom
// resources.
//
// The Nested functions read and write a member at a path of member
// names, with the results and messages of k8s.io/apimachinery's
// unstructured helpers (`.spec.replicas accessor error: x is of the type
// string, expected int64`), which a Kubernetes API server puts in its
// answers. Unlike those, they neither copy what they return nor what they
// set; DeepCopy copies when a caller needs to.
//
// It is a package of its own, not part of server, so that package crd,
// hooks and controllers can work on an object's content without the
// server, and so that the server and crd share one copy of these rules.
package jsonvalue
