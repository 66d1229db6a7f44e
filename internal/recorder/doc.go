// Package recorder sends requests to a reference kube-apiserver (the one
// ../shared/reference starts, at the address in $API) and writes what it
// answered as testdata, for the repository's record-*.go commands. The
// tests replay those files against apisem; package recorded holds the
// replaying side.
package recorder
