package schema_test

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/apisem/apisem/crd/schema"
)

// widgetSchema is the openAPIV3Schema of a version of a definition.
const widgetSchema = `
type: object
properties:
  spec:
    type: object
    required: [color]
    properties:
      color: {type: string, enum: [red, green]}
      replicas: {type: integer, minimum: 0, maximum: 10, default: 1}
`

// A custom resource as a server handles it: decoded, then defaulted and
// pruned, then validated.
func Example() {
	var s schema.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(widgetSchema), &s); err != nil {
		panic(err)
	}
	v, err := schema.Compile(&s)
	if err != nil {
		panic(err) // a pattern that does not compile
	}
	obj := map[string]any{"spec": map[string]any{"color": "blue", "size": int64(3)}}
	schema.Default(obj, &s)
	fmt.Println("unknown fields:", schema.Prune(obj, &s))
	b, _ := json.Marshal(obj)
	fmt.Println(string(b))
	errs, _ := v.Validate(obj, nil)
	for _, e := range errs {
		fmt.Println(e.Error())
	}
	// Output:
	// unknown fields: [spec.size]
	// {"spec":{"color":"blue","replicas":1}}
	// spec.color: Unsupported value: "blue": supported values: "red", "green"
}

// An update ratchets: the old object's color, which a newer schema no
// longer allows, is forgiven while the update leaves it as it was; a
// changed member must be valid.
func ExampleValidateUpdate() {
	var s schema.JSONSchemaProps
	if err := yaml.Unmarshal([]byte(widgetSchema), &s); err != nil {
		panic(err)
	}
	old := map[string]any{"spec": map[string]any{"color": "blue", "replicas": int64(1)}}
	for _, replicas := range []int64{2, 20} {
		obj := map[string]any{"spec": map[string]any{"color": "blue", "replicas": replicas}}
		errs, _ := schema.ValidateUpdate(&s, obj, old)
		fmt.Println(replicas, errs)
	}
	// Output:
	// 2 []
	// 20 [spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10]
}
