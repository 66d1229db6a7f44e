package cel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structural "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	kcel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	sjson "sigs.k8s.io/json"

	"github.com/apisem/apisem/crd/schema"
	"github.com/apisem/apisem/status"
)

// Kubernetes' limits (k8s.io/apiserver pkg/apis/cel).
const (
	// PerCallLimit is the cost one evaluation of a rule may reach.
	PerCallLimit = celconfig.PerCallLimit
	// CostBudget is the cost all the rules of one object may reach.
	CostBudget = celconfig.RuntimeCELCostBudget
)

// Compiler checks and compiles validation rules with Kubernetes' own code;
// it implements schema.RuleCompiler. The zero value uses Kubernetes' limits.
type Compiler struct {
	// PerCallLimit bounds the cost of one evaluation; 0 is PerCallLimit.
	// It does not change the estimates made when a definition is
	// checked, which always use Kubernetes' limit.
	PerCallLimit uint64
	// CostBudget bounds the cost of all evaluations for one object; 0 is
	// CostBudget.
	CostBudget int64
	// MaxCompileWork bounds the work of compiling the rules of a schema,
	// which Kubernetes does not bound (see DefaultMaxCompileWork): Check
	// refuses a schema over it, and Compile fails. 0 is
	// DefaultMaxCompileWork; a negative value sets no limit.
	MaxCompileWork int64
}

var _ schema.RuleCompiler = Compiler{}

// kubePath is where Kubernetes' definition validation reports the schema
// Check hands it: the top-level schema of a definition whose versions
// share one.
const kubePath = "spec.validation.openAPIV3Schema"

// Check returns the errors Kubernetes' definition validation
// (k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation) finds
// with the rules of root: the checks of each rule's fields, compilation
// and type errors, estimated costs over the limits, and defaults that
// break a rule, with paths under path.
//
// It runs that validation on a definition made of root alone and keeps
// the errors that concern rules: the rest of the definition is package
// crd's to check, and whether the rules are compiled at all depends on
// the whole schema being valid, which only the whole validation knows.
func (c Compiler) Check(path string, root *schema.JSONSchemaProps) (errs []status.FieldError) {
	defer recoverAs(&errs, path)
	in, hasRules, err := internalSchema(root)
	if err != nil {
		return []status.FieldError{internalError(path, err)}
	}
	if !hasRules {
		return nil
	}
	if why := c.overWork(root, true); why != "" {
		return []status.FieldError{status.Forbidden(path, why)}
	}
	kerrs := crdvalidation.ValidateCustomResourceDefinition(context.Background(), definition(in))
	var ruleDefaults map[string]bool
	for _, e := range kerrs {
		rest, ok := strings.CutPrefix(e.Field, kubePath)
		if !ok || (rest != "" && rest[0] != '.' && rest[0] != '[') {
			continue
		}
		switch {
		case e.Detail == "must be empty to be structural":
			// Rules under allOf, anyOf, oneOf or not: package crd
			// reports that the schema is not structural.
			continue
		case isRulePath(rest), rest == "" && strings.HasPrefix(e.Detail, "x-kubernetes-validations estimated rule cost total"):
		case isDefaultPath(rest):
			// A default that breaks a rule; a default's other errors are
			// package crd's.
			if ruleDefaults == nil {
				ruleDefaults = defaultRuleErrors(root)
			}
			if !ruleDefaults[e.Error()] {
				continue
			}
		default:
			continue
		}
		errs = append(errs, fromKube(e, path))
	}
	return errs
}

// Compile compiles the rules of root for validating objects, as
// kube-apiserver does when it serves a definition; it is nil when root
// has no rules. Problems Check would report do not stop it: a rule that
// does not compile fails every object it applies to, as in Kubernetes.
func (c Compiler) Compile(root *schema.JSONSchemaProps) (_ schema.RuleValidator, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validation rules: %v", r)
		}
	}()
	in, hasRules, err := internalSchema(root)
	if err != nil || !hasRules {
		return nil, err
	}
	if why := c.overWork(root, false); why != "" {
		return nil, errors.New(why)
	}
	st, err := structural.NewStructural(in)
	if err != nil {
		return nil, err
	}
	limit := c.PerCallLimit
	if limit == 0 {
		limit = PerCallLimit
	}
	budget := c.CostBudget
	if budget == 0 {
		budget = CostBudget
	}
	v := kcel.NewValidator(st, true, limit)
	if v == nil {
		return nil, nil
	}
	return &validator{v: v, st: st, budget: budget}, nil
}

// validator is a compiled schema; it implements schema.RuleValidator.
type validator struct {
	v      *kcel.Validator
	st     *structural.Structural
	budget int64
}

// Validate evaluates the rules against obj and, on update, old. On
// update, validation ratcheting applies (Kubernetes' CRDValidationRatcheting,
// on by default since 1.30): a rule without oldSelf that fails on a value
// equal to its old value (correlated by path, through the keys of map
// lists) is not enforced. Kubernetes sends such failures as warnings;
// they are dropped here.
func (v *validator) Validate(obj, old map[string]any) (errs []status.FieldError) {
	defer recoverAs(&errs, "<nil>")
	var o any
	var opts []kcel.Option
	if old != nil {
		o = old
		opts = append(opts, kcel.WithRatcheting(common.NewCorrelatedObject(obj, old, &model.Structural{Structural: v.st})))
	}
	kerrs, _ := v.v.Validate(context.Background(), nil, v.st, obj, o, v.budget, opts...)
	for _, e := range kerrs {
		errs = append(errs, fromKube(e, ""))
	}
	return errs
}

// recoverAs turns a panic in Kubernetes' code into an internal error at
// path, so that a bad rule or object fails one request and not the
// server. (cel-go recovers panics in evaluation itself; this covers the
// code around it.)
func recoverAs(errs *[]status.FieldError, path string) {
	if r := recover(); r != nil {
		*errs = append(*errs, internalError(path, fmt.Errorf("validation rules: %v", r)))
	}
}

func internalError(path string, err error) status.FieldError {
	return status.FieldError{Type: status.CauseTypeInternal, Field: path, Detail: err.Error()}
}

// internalSchema converts s to Kubernetes' internal schema type, as
// kube-apiserver does: through its JSON into apiextensions/v1, then by
// its conversion. hasRules reports whether s holds rules; when it does
// not, s is not converted (nor encoded: the largest real schemas have
// none).
func internalSchema(s *schema.JSONSchemaProps) (_ *apiextensions.JSONSchemaProps, hasRules bool, _ error) {
	if !holdsRules(s) {
		return nil, false, nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil, false, err
	}
	in, err := internalFromJSON(b)
	return in, true, err
}

// holdsRules reports whether s or a schema within it has
// x-kubernetes-validations rules.
func holdsRules(s *schema.JSONSchemaProps) bool {
	return s != nil && rulesIn(*s)
}

// rulesIn is holdsRules of a schema taken by value: a property of a map
// is copied on the stack, where the address of the copy would move it to
// the heap.
func rulesIn(s schema.JSONSchemaProps) bool {
	if len(s.XValidations) > 0 || holdsRules(s.Items) || holdsRules(s.Not) {
		return true
	}
	if s.AdditionalProperties != nil && holdsRules(s.AdditionalProperties.Schema) {
		return true
	}
	for _, l := range [][]schema.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for _, p := range l {
			if rulesIn(p) {
				return true
			}
		}
	}
	for _, p := range s.Properties {
		if rulesIn(p) {
			return true
		}
	}
	return false
}

func internalFromJSON(b []byte) (*apiextensions.JSONSchemaProps, error) {
	var v1 apiextensionsv1.JSONSchemaProps
	if err := sjson.UnmarshalCaseSensitivePreserveInts(b, &v1); err != nil {
		return nil, err
	}
	var in apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &in, nil); err != nil {
		return nil, err
	}
	return &in, nil
}

// definition is a valid definition whose only schema is s, at kubePath.
func definition(s *apiextensions.JSONSchemaProps) *apiextensions.CustomResourceDefinition {
	return &apiextensions.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "checks.rules.apisem.io"},
		Spec: apiextensions.CustomResourceDefinitionSpec{
			Group:   "rules.apisem.io",
			Version: "v1",
			Names: apiextensions.CustomResourceDefinitionNames{
				Plural: "checks", Singular: "check", Kind: "Check", ListKind: "CheckList",
			},
			Scope:                 apiextensions.NamespaceScoped,
			Versions:              []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
			Validation:            &apiextensions.CustomResourceValidation{OpenAPIV3Schema: s},
			Conversion:            &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter},
			PreserveUnknownFields: new(bool),
		},
		Status: apiextensions.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
}

// isRulePath reports whether rest, a path below a schema, is in an
// x-kubernetes-validations list.
func isRulePath(rest string) bool {
	const k = ".x-kubernetes-validations"
	return strings.Contains(rest+".", k+".") || strings.Contains(rest, k+"[")
}

// isDefaultPath reports whether rest, a path below a schema, is in a
// default value.
func isDefaultPath(rest string) bool {
	const k = ".default"
	return strings.Contains(rest+".", k+".") || strings.Contains(rest, k+"[")
}

// defaultRuleErrors is the set of errors that Kubernetes' check of the
// defaults of s (pkg/apiserver/schema/defaulting) finds because of its
// rules: those it finds with them and not without them.
func defaultRuleErrors(s *schema.JSONSchemaProps) map[string]bool {
	with := defaultErrors(s)
	s = s.DeepCopy()
	dropRules(s)
	for e := range defaultErrors(s) {
		delete(with, e)
	}
	return with
}

// defaultErrors is the set of errors of Kubernetes' check of the
// defaults of s, at kubePath.
func defaultErrors(s *schema.JSONSchemaProps) map[string]bool {
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	in, err := internalFromJSON(b)
	if err != nil {
		return nil
	}
	st, err := structural.NewStructural(in)
	if err != nil {
		return nil
	}
	kerrs, _ := defaulting.ValidateDefaults(context.Background(), field.NewPath("spec", "validation", "openAPIV3Schema"), st, true, true)
	out := make(map[string]bool, len(kerrs))
	for _, e := range kerrs {
		out[e.Error()] = true
	}
	return out
}

func dropRules(s *schema.JSONSchemaProps) {
	if s == nil {
		return
	}
	s.XValidations = nil
	for k, p := range s.Properties {
		dropRules(&p)
		s.Properties[k] = p
	}
	dropRules(s.Items)
	dropRules(s.Not)
	for _, l := range [][]schema.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range l {
			dropRules(&l[i])
		}
	}
	if s.AdditionalProperties != nil {
		dropRules(s.AdditionalProperties.Schema)
	}
}

// fromKube converts a Kubernetes field error. Paths under kubePath move
// under path (also in the one detail that prints a path). The bad value
// is printed by Kubernetes' own rules, so that the error reads the same.
func fromKube(e *field.Error, path string) status.FieldError {
	out := status.FieldError{Type: status.CauseType(e.Type), Field: e.Field, Detail: e.Detail}
	if path != "" {
		out.Field = path + strings.TrimPrefix(e.Field, kubePath)
		const within = "uncorrelatable portion of the schema within " + kubePath
		if i := strings.Index(out.Detail, within); i >= 0 {
			out.Detail = out.Detail[:i] + strings.Replace(out.Detail[i:], kubePath, path, 1)
		}
	}
	switch e.Type {
	case field.ErrorTypeRequired, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeInternal:
		return out
	}
	body := (&field.Error{Type: e.Type, BadValue: e.BadValue}).ErrorBody()
	if v, ok := strings.CutPrefix(body, e.Type.String()+": "); ok {
		out.BadValue = printed(v)
	} else {
		out.BadValue = status.OmitValue
	}
	return out
}

// printed is a bad value as Kubernetes prints it.
type printed string

func (p printed) String() string { return string(p) }
