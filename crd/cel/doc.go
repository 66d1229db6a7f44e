// Package cel evaluates the x-kubernetes-validations rules of
// CustomResourceDefinitions with github.com/google/cel-go, for package
// crd (github.com/apisem/apisem/crd), as kube-apiserver does
// (k8s.io/apiextensions-apiserver pkg/apiserver/schema/cel). It is a
// module of its own so that the library does not depend on cel-go.
//
//	rules := crd.Options{Rules: cel.Compiler{}}
//	defs := rules.Resource()
//	s, err := server.New(server.Options{Resources: []*server.Resource{defs}})
//	c := rules.Start(s, defs)
//
// # Rules
//
// A rule is evaluated with self bound to the value of the schema that
// holds it (a map for an object, a list, or a scalar; numbers of type
// number are doubles, integers ints), when that value is present and not
// null. At the root, self holds apiVersion, kind and, of metadata, the
// name and generateName. A rule that names oldSelf is a transition rule,
// evaluated only on update when the old value exists (the item of a list
// of type map with the same keys, the same member of an object or map);
// optionalOldSelf makes oldSelf an optional value on create instead.
//
// A rule that is false gives a field error at the value's path (joined
// with fieldPath when set): of type reason (FieldValueInvalid by
// default, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate),
// whose detail is messageExpression's result, else message, else
// `failed rule: <rule>`. An object or a list is not printed as the bad
// value: `spec: Invalid value: <message>`; a scalar is:
// `spec.replicas: Invalid value: 11: <message>`. Errors of evaluation read
// `<error> evaluating rule: <rule or message>` with the schema's type as
// the value.
//
// # Cost
//
// Each evaluation is bounded by Kubernetes' per-call limit (1,000,000
// cost units) and all rules of one object by its budget (10,000,000),
// with Kubernetes' messages when they are exceeded. Kubernetes also
// estimates the worst-case cost of every rule from the schema's
// maxLength, maxItems and maxProperties when a definition is written and
// refuses rules that could exceed the limit; here rules are declared
// with dynamic types, so that static estimate is not made: costly rules
// are accepted and stopped at run time instead.
//
// # Not supported
//
// Kubernetes' CEL libraries (lists, regex, urls, quantity, ip, cidr,
// semver, format) beyond cel-go's strings extension, static type
// checking against the schema (type errors surface at run time), and
// validation ratcheting.
package cel
