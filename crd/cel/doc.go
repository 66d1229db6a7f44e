// Package cel checks and evaluates the x-kubernetes-validations rules of
// CustomResourceDefinitions for package crd (github.com/apisem/apisem/crd)
// with the code kube-apiserver runs: k8s.io/apiextensions-apiserver
// (pkg/apiserver/schema/cel, and pkg/apis/apiextensions/validation for
// definitions) and k8s.io/apiserver's CEL libraries, at the version in
// go.mod. It is a module of its own so that the library does not depend
// on them.
//
//	rules := crd.Options{Rules: cel.Compiler{}}
//	defs := rules.Resource()
//	s, err := server.New(server.Options{Resources: []*server.Resource{defs}})
//	c := rules.Start(s, defs)
//
// A schema goes to Kubernetes' types as kube-apiserver decodes it: its
// JSON into apiextensions/v1, then Kubernetes' conversion to the internal
// and structural forms. Errors come back with Kubernetes' paths, types,
// values and messages, and in its order, which visits the members of an
// object in Go map order: when several rules fail, their order may vary
// from one request to the next, as on a cluster.
//
// # Definitions
//
// When a definition is written, Check refuses it (a 422) for what a
// cluster refuses in its rules: a rule that does not compile or does not
// type-check against the schema (`self.replicas.startsWith('a')` on an
// integer), a rule whose estimated worst-case cost exceeds the per-rule
// limit, rules whose total exceeds the per-definition limit (with
// Kubernetes' "exceeds budget by factor of" messages; maxLength, maxItems
// and maxProperties bound the estimates), oldSelf where the old value
// cannot be found, invalid messages, reasons and fieldPaths, and
// defaults that break a rule. It runs Kubernetes' whole validation on a
// definition made of the schema alone and keeps the errors about rules:
// whether and where rules are compiled depends on the rest of the
// schema.
//
// # Rules
//
// A rule is evaluated with self bound to the value of the schema that
// holds it, typed by the schema, when that value is present and not
// null; at the root, self holds apiVersion, kind and, of metadata, the
// name and generateName. Property names are escaped as Kubernetes
// escapes them (foo-bar is self.foo__dash__bar, a.b self.a__dot__b, x__y
// self.x__underscores__y, a reserved word like namespace
// self.__namespace__). Kubernetes' libraries are there: regex, lists,
// sets, strings, quantity, ip, cidr, url, semver, format, optionals.
//
// A rule that names oldSelf is a transition rule, evaluated only on
// update when the old value exists (the item of a list of type map with
// the same keys, the same member of an object or map); optionalOldSelf
// makes oldSelf an optional value on create instead.
//
// A rule that is false gives a field error at the value's path (joined
// with fieldPath when set): of type reason (FieldValueInvalid by
// default), whose detail is messageExpression's result, else message,
// else `failed rule: <rule>`. Evaluation errors, cost limits (1,000,000
// per evaluation, 10,000,000 for all rules of an object) and
// messageExpression failures read as they do on a cluster.
//
// # Ratcheting
//
// On update, a rule without oldSelf that fails on a value equal to its
// old value is not enforced (Kubernetes' CRDValidationRatcheting, on by
// default since 1.30): values are matched by path, through the members
// of objects and maps and the keys of lists of type map; the items of
// other lists (sets too) ratchet only when the whole list is unchanged. Kubernetes sends
// such failures as warnings; they are dropped here.
//
// # Safety
//
// Every evaluation is bounded by the cost limits, and a panic in
// Kubernetes' code becomes an internal error of the one request or
// definition (cel-go recovers its own). Kubernetes does not bound the
// work of compiling a schema's rules, which grows with the square of the
// depth of nested rules and the cube with defaults above them; Compiler
// estimates it from the schema and refuses schemas over MaxCompileWork
// (by default about a second or two of one core, almost forty times what
// Gateway API's largest definition needs), with an error of its own.
//
// # Not supported
//
// On update of a definition, package crd checks only the schemas that
// changed; Kubernetes checks all, forgiving the estimated costs of the
// unchanged ones and compiling the expressions the definition already had
// with the libraries of its stored version (those can differ only across
// Kubernetes versions). Kubernetes' feature gates keep their defaults.
// Ratcheted failures are not sent as warnings.
package cel
