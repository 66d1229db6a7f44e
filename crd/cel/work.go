package cel

import (
	"fmt"

	"github.com/apisem/apisem/crd/schema"
)

// DefaultMaxCompileWork is the compile work Compiler allows a schema by
// default (see compileWork): about a second or two of one core. The most
// demanding definitions of Gateway API (v1.2, HTTPRoute) need 26,000.
const DefaultMaxCompileWork = 1_000_000

// Weights of compileWork, in units of about the time to declare the CEL
// type of one schema node (a few microseconds).
const (
	// nodeWork is the work of a schema node with rules: a CEL
	// environment of its own.
	nodeWork = 150
	// ruleWork is the work of compiling one rule and estimating its cost.
	ruleWork = 50
	// defaultWork is how many times a default compiles the rules below
	// it again when a definition is checked.
	defaultWork = 2
)

// compileWork estimates the work of compiling the rules of s as
// Kubernetes' code does it: each schema node with rules gets a CEL
// environment declaring the types of its whole subtree, and, when a
// definition is checked (defaults is true), each default is validated by
// compiling again every rule below it. The work of a chain of nested
// objects with rules and defaults grows with the cube of its depth, so
// that a schema of a few tens of kilobytes could take minutes; Kubernetes
// sets no limit.
func compileWork(s *schema.JSONSchemaProps, defaults bool) int64 {
	var total int64
	var walk func(s *schema.JSONSchemaProps, above int64) int64
	walk = func(s *schema.JSONSchemaProps, above int64) (size int64) {
		if s == nil {
			return 0
		}
		if defaults && s.Default != nil {
			above += defaultWork
		}
		size = 1
		for _, p := range s.Properties {
			size += walk(&p, above)
		}
		size += walk(s.Items, above)
		if s.AdditionalProperties != nil {
			size += walk(s.AdditionalProperties.Schema, above)
		}
		if n := int64(len(s.XValidations)); n > 0 {
			total += (nodeWork + ruleWork*n + size) * (1 + above)
		}
		return size
	}
	walk(s, 0)
	return total
}

// maxWork is c's limit of compile work, or -1 for none.
func (c Compiler) maxWork() int64 {
	switch {
	case c.MaxCompileWork == 0:
		return DefaultMaxCompileWork
	case c.MaxCompileWork < 0:
		return -1
	}
	return c.MaxCompileWork
}

// overWork is why the rules of s would take too long to compile, or "".
func (c Compiler) overWork(s *schema.JSONSchemaProps, defaults bool) string {
	limit := c.maxWork()
	if limit < 0 {
		return ""
	}
	if w := compileWork(s, defaults); w > limit {
		return fmt.Sprintf("x-kubernetes-validations estimated compile work for entire OpenAPIv3 schema (%d) exceeds the limit of %d (use fewer rules, on smaller parts of the schema, under fewer defaults)", w, limit)
	}
	return ""
}
