package cel

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	celgo "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/status"
)

// Kubernetes' limits (k8s.io/apiserver pkg/apis/cel).
const (
	// PerCallLimit is the cost one evaluation of a rule may reach.
	PerCallLimit = 1_000_000
	// CostBudget is the cost all the rules of one object may reach.
	CostBudget = 10_000_000
	// maxMessageBytes is the longest messageExpression result kept.
	maxMessageBytes = 5 * 1024
)

// Compiler compiles validation rules with cel-go; it implements
// crd.RuleCompiler. The zero value uses Kubernetes' limits.
type Compiler struct {
	// PerCallLimit bounds the cost of one evaluation; 0 is PerCallLimit.
	PerCallLimit uint64
	// CostBudget bounds the cost of all evaluations for one object; 0 is
	// CostBudget.
	CostBudget int64
}

var _ crd.RuleCompiler = Compiler{}

// rule is one compiled rule.
type rule struct {
	src       crd.ValidationRule
	prog      celgo.Program
	msg       celgo.Program // messageExpression, or nil
	usesOld   bool
	fieldPath string // fieldPath without its leading dot
}

// node is a schema with the rules at and below it.
type node struct {
	schema     *crd.JSONSchemaProps
	typ        string
	rules      []rule
	props      map[string]*node
	items      *node
	additional *node
	listType   string
	mapKeys    []string
}

// validator is a compiled schema; it implements crd.RuleValidator.
type validator struct {
	root   *node
	budget int64
}

// Compile compiles the rules of root. It answers a nil validator (with no
// errors) when root has no rules.
func (c Compiler) Compile(path string, root *crd.JSONSchemaProps) (crd.RuleValidator, []status.FieldError) {
	if !hasRules(root) {
		return nil, nil
	}
	limit := c.PerCallLimit
	if limit == 0 {
		limit = PerCallLimit
	}
	budget := c.CostBudget
	if budget == 0 {
		budget = CostBudget
	}
	env, err := celgo.NewEnv(
		celgo.Variable("self", celgo.DynType),
		celgo.Variable("oldSelf", celgo.DynType),
		celgo.OptionalTypes(),
		celgo.CrossTypeNumericComparisons(true),
		celgo.DefaultUTCTimeZone(true),
		ext.Strings(ext.StringsVersion(2)),
	)
	if err != nil {
		return nil, []status.FieldError{{Type: status.CauseTypeInternal, Field: path, Detail: err.Error()}}
	}
	var errs []status.FieldError
	n := compileNode(env, limit, path, root, &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	return &validator{root: n, budget: budget}, nil
}

func hasRules(s *crd.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(&p) {
			return true
		}
	}
	if s.AdditionalProperties != nil && hasRules(s.AdditionalProperties.Schema) {
		return true
	}
	return hasRules(s.Items)
}

// compileNode compiles the rules of s, at path in the definition, and of
// the schemas below it; it is nil when there are none.
func compileNode(env *celgo.Env, limit uint64, path string, s *crd.JSONSchemaProps, errs *[]status.FieldError) *node {
	if !hasRules(s) {
		return nil
	}
	n := &node{schema: s, typ: s.Type, listType: deref(s.XListType), mapKeys: s.XListMapKeys}
	for i, r := range s.XValidations {
		rp := fmt.Sprintf("%s.x-kubernetes-validations[%d]", path, i)
		if c, ok := compileRule(env, limit, rp, r, errs); ok {
			n.rules = append(n.rules, c)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[k]
		if c := compileNode(env, limit, path+".properties["+k+"]", &p, errs); c != nil {
			if n.props == nil {
				n.props = map[string]*node{}
			}
			n.props[k] = c
		}
	}
	if s.AdditionalProperties != nil {
		n.additional = compileNode(env, limit, path+".additionalProperties", s.AdditionalProperties.Schema, errs)
	}
	n.items = compileNode(env, limit, path+".items", s.Items, errs)
	return n
}

// ruleValue is how Kubernetes prints a rule as a bad value: its internal
// Go struct as JSON.
type ruleValue struct {
	Rule              string
	Message           string
	MessageExpression string
	Reason            *string
	FieldPath         string
	OptionalOldSelf   *bool
}

func compileRule(env *celgo.Env, limit uint64, path string, r crd.ValidationRule, errs *[]status.FieldError) (rule, bool) {
	bad := ruleValue{r.Rule, r.Message, r.MessageExpression, r.Reason, r.FieldPath, r.OptionalOldSelf}
	if strings.TrimSpace(r.Rule) == "" {
		*errs = append(*errs, status.Required(path+".rule", "rule is not specified"))
		return rule{}, false
	}
	ast, iss := env.Compile(r.Rule)
	if iss.Err() != nil {
		*errs = append(*errs, status.InvalidValue(path+".rule", bad, "compilation failed: "+iss.String()))
		return rule{}, false
	}
	if t := ast.OutputType(); !t.IsExactType(types.BoolType) && !t.IsExactType(types.DynType) {
		*errs = append(*errs, status.InvalidValue(path+".rule", bad, "cel expression must evaluate to a bool"))
		return rule{}, false
	}
	opts := []celgo.ProgramOption{celgo.EvalOptions(celgo.OptTrackCost), celgo.CostLimit(limit), celgo.InterruptCheckFrequency(100)}
	prog, err := env.Program(ast, opts...)
	if err != nil {
		*errs = append(*errs, status.InvalidValue(path+".rule", bad, "program instantiation failed: "+err.Error()))
		return rule{}, false
	}
	c := rule{src: r, prog: prog, fieldPath: strings.TrimPrefix(r.FieldPath, ".")}
	for _, ref := range ast.NativeRep().ReferenceMap() {
		if ref.Name == "oldSelf" {
			c.usesOld = true
		}
	}
	if !c.usesOld && r.OptionalOldSelf != nil {
		*errs = append(*errs, status.InvalidValue(path+".optionalOldSelf", *r.OptionalOldSelf, "may not be set if oldSelf is not used in rule"))
		return rule{}, false
	}
	if r.MessageExpression != "" {
		mast, iss := env.Compile(r.MessageExpression)
		switch {
		case iss.Err() != nil:
			*errs = append(*errs, status.InvalidValue(path+".messageExpression", bad, "messageExpression compilation failed: "+iss.String()))
			return rule{}, false
		case !mast.OutputType().IsExactType(types.StringType) && !mast.OutputType().IsExactType(types.DynType):
			*errs = append(*errs, status.InvalidValue(path+".messageExpression", bad, "messageExpression must evaluate to a string"))
			return rule{}, false
		}
		if c.msg, err = env.Program(mast, opts...); err != nil {
			*errs = append(*errs, status.InvalidValue(path+".messageExpression", bad, "program instantiation failed: "+err.Error()))
			return rule{}, false
		}
	}
	return c, true
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Validate evaluates the rules against obj and, on update, old.
func (v *validator) Validate(obj, old map[string]any) []status.FieldError {
	if v == nil || v.root == nil || obj == nil {
		return nil
	}
	var errs []status.FieldError
	budget := v.budget
	var o any
	if old != nil {
		o = old
	}
	v.walk(&errs, &budget, "", v.root, obj, o)
	return errs
}

// fieldPath is how Kubernetes prints a path: the root, a nil path, is
// "<nil>".
func fieldPath(p string) string {
	if p == "" {
		return "<nil>"
	}
	return p
}

func child(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// walk evaluates the rules of n against x (old is its old value, or nil)
// and those of the schemas below. A negative budget stops everything.
func (v *validator) walk(errs *[]status.FieldError, budget *int64, path string, n *node, x, old any) {
	if n == nil || x == nil || *budget < 0 {
		return
	}
	v.evaluate(errs, budget, path, n, x, old)
	if *budget < 0 {
		return
	}
	switch x := x.(type) {
	case map[string]any:
		oldMap, _ := old.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if c := n.props[k]; c != nil {
				v.walk(errs, budget, child(path, k), c, x[k], lookup(oldMap, k))
			} else if n.additional != nil && n.props == nil {
				v.walk(errs, budget, path+"["+k+"]", n.additional, x[k], lookup(oldMap, k))
			}
			if *budget < 0 {
				return
			}
		}
	case []any:
		if n.items == nil {
			return
		}
		oldList, _ := old.([]any)
		for i, e := range x {
			v.walk(errs, budget, path+"["+strconv.Itoa(i)+"]", n.items, e, n.correlate(e, oldList))
			if *budget < 0 {
				return
			}
		}
	}
}

func lookup(m map[string]any, k string) any {
	if m == nil {
		return nil
	}
	return m[k]
}

// correlate is the old item that e replaces: for a list of type map, the
// old item with the same keys; for a set, the same value. Items of other
// lists have no old value, as in Kubernetes.
func (n *node) correlate(e any, old []any) any {
	switch n.listType {
	case "map":
		em, ok := e.(map[string]any)
		if !ok {
			return nil
		}
	next:
		for _, o := range old {
			om, ok := o.(map[string]any)
			if !ok {
				continue
			}
			for _, k := range n.mapKeys {
				if !sameScalar(em[k], om[k]) {
					continue next
				}
			}
			return o
		}
	case "set":
		for _, o := range old {
			if sameScalar(e, o) {
				return o
			}
		}
	}
	return nil
}

func sameScalar(a, b any) bool {
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

// evaluate runs the rules of n against x, as Kubernetes'
// validateExpressions does.
func (v *validator) evaluate(errs *[]status.FieldError, budget *int64, path string, n *node, x, old any) {
	if len(n.rules) == 0 {
		return
	}
	fp := fieldPath(path)
	if *budget <= 0 {
		*errs = append(*errs, status.InvalidValue(fp, n.typ, "validation failed due to running out of cost budget, no further validation rules will be run"))
		*budget = -1
		return
	}
	self := types.DefaultTypeAdapter.NativeToValue(typed(x, n.schema))
	var oldSelf ref.Val
	if old != nil {
		oldSelf = types.DefaultTypeAdapter.NativeToValue(typed(old, n.schema))
	}
	for _, r := range n.rules {
		optional := deref(r.src.OptionalOldSelf)
		if r.usesOld && oldSelf == nil && !optional {
			// Transition rules need an old value.
			continue
		}
		act := map[string]any{"self": self}
		switch {
		case optional && oldSelf != nil:
			act["oldSelf"] = types.OptionalOf(oldSelf)
		case optional:
			act["oldSelf"] = types.OptionalNone
		case oldSelf != nil:
			act["oldSelf"] = oldSelf
		}
		out, det, err := r.prog.Eval(act)
		if !spend(budget, det) {
			*errs = append(*errs, status.InvalidValue(fp, n.typ, "validation failed due to running out of cost budget, no further validation rules will be run"))
			*budget = -1
			return
		}
		if err != nil {
			msg := err.Error()
			switch {
			case strings.HasPrefix(msg, "no such overload"):
				*errs = append(*errs, status.InvalidValue(fp, n.typ, fmt.Sprintf("'%v': call arguments did not match a supported operator, function or macro signature for rule: %v", msg, ruleString(r.src))))
			case strings.HasPrefix(msg, "operation cancelled: actual cost limit exceeded"):
				*errs = append(*errs, status.InvalidValue(fp, n.typ, fmt.Sprintf("'%v': no further validation rules will be run due to call cost exceeds limit for rule: %v", msg, ruleString(r.src))))
				*budget = -1
				return
			default:
				*errs = append(*errs, status.InvalidValue(fp, n.typ, fmt.Sprintf("%v evaluating rule: %v", msg, ruleString(r.src))))
			}
			continue
		}
		if out == types.True {
			continue
		}
		at := path
		if r.fieldPath != "" {
			at = child(path, r.fieldPath)
		}
		detail, ok := "", false
		if r.msg != nil {
			var stop bool
			if detail, ok, stop = v.message(errs, budget, fieldPath(at), n.typ, r, act); stop {
				return
			}
		}
		if !ok {
			detail = ruleMessage(r.src)
		}
		var value any = x
		if n.typ == "object" || n.typ == "array" {
			value = status.OmitValue
		}
		*errs = append(*errs, fieldError(fieldPath(at), value, detail, r.src.Reason))
	}
}

// typed is x as Kubernetes presents it to CEL, by its schema s: an
// integer where s says number is a double, and a double where s says
// integer (a whole number, which the schema accepts) is an error when
// used. x is not copied unless something in it changes.
func typed(x any, s *crd.JSONSchemaProps) any {
	t, _ := retype(x, s)
	return t
}

// retype is typed, and whether it changed x.
func retype(x any, s *crd.JSONSchemaProps) (any, bool) {
	if s == nil {
		return x, false
	}
	switch v := x.(type) {
	case int64:
		if s.Type == "number" {
			return float64(v), true
		}
	case float64:
		if s.Type == "integer" {
			return types.NewErr("invalid data, expected int, got float64"), true
		}
	case map[string]any:
		var out map[string]any
		for k, e := range v {
			var es *crd.JSONSchemaProps
			if p, ok := s.Properties[k]; ok {
				es = &p
			} else if s.AdditionalProperties != nil {
				es = s.AdditionalProperties.Schema
			}
			if t, changed := retype(e, es); changed {
				if out == nil {
					out = maps.Clone(v)
				}
				out[k] = t
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, e := range v {
			if t, changed := retype(e, s.Items); changed {
				if out == nil {
					out = slices.Clone(v)
				}
				out[i] = t
			}
		}
		if out != nil {
			return out, true
		}
	}
	return x, false
}

// spend takes the cost of an evaluation from budget; false when the
// budget does not cover it.
func spend(budget *int64, det *celgo.EvalDetails) bool {
	if det == nil || det.ActualCost() == nil {
		return false
	}
	c := *det.ActualCost()
	if c > math.MaxInt64 || int64(c) > *budget {
		return false
	}
	*budget -= int64(c)
	return true
}

// message evaluates the rule's messageExpression. ok is false when it
// fails (the rule's message is used instead); stop when it exceeded the
// limits, which ends validation with an error.
func (v *validator) message(errs *[]status.FieldError, budget *int64, at, typ string, r rule, act map[string]any) (msg string, ok, stop bool) {
	out, det, err := r.msg.Eval(act)
	if !spend(budget, det) {
		*errs = append(*errs, status.InvalidValue(at, typ, "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"))
		*budget = -1
		return "", false, true
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "operation cancelled: actual cost limit exceeded") {
			*errs = append(*errs, status.InvalidValue(at, typ, fmt.Sprintf("no further validation rules will be run due to call cost exceeds limit for messageExpression: %q", r.src.MessageExpression)))
			*budget = -1
			return "", false, true
		}
		return "", false, false
	}
	s, isString := out.Value().(string)
	s = strings.TrimSpace(s)
	if !isString || s == "" || len(s) > maxMessageBytes || strings.Contains(s, "\n") {
		return "", false, false
	}
	return s, true, false
}

// ruleMessage is the detail of a rule that is false without a
// messageExpression.
func ruleMessage(r crd.ValidationRule) string {
	if r.Message == "" {
		return "failed rule: " + ruleString(r)
	}
	return strings.TrimSpace(r.Message)
}

// ruleString names a rule in errors: its message, else its text.
func ruleString(r crd.ValidationRule) string {
	if r.Message != "" {
		return strings.TrimSpace(r.Message)
	}
	return strings.TrimSpace(r.Rule)
}

// fieldError is the error of a false rule, of the type its reason names.
func fieldError(path string, value any, detail string, reason *string) status.FieldError {
	switch deref(reason) {
	case "FieldValueForbidden":
		return status.Forbidden(path, detail)
	case "FieldValueRequired":
		return status.Required(path, detail)
	case "FieldValueDuplicate":
		return status.FieldError{Type: status.CauseTypeFieldValueDuplicate, Field: path, BadValue: value}
	}
	return status.InvalidValue(path, value, detail)
}
