package schema

import "testing"

// BenchmarkValidate measures the schema validation of one object, as a
// write runs it: a schema without logical junctors (the common case,
// which must not pay for them) and one whose oneOf and anyOf fail, where
// kube-openapi's match counts are kept to choose the errors reported.
func BenchmarkValidate(b *testing.B) {
	for _, bc := range []struct{ name, schema, obj string }{
		{"plain", `{type: object, properties: {spec: {type: object, properties: {
			color: {type: string, enum: [red, green]}, replicas: {type: integer, minimum: 0, maximum: 10},
			at: {type: string, format: date-time}, tags: {type: array, items: {type: string, maxLength: 8}},
			labels: {type: object, additionalProperties: {type: string}}}}}}`,
			`{"spec":{"color":"red","replicas":3,"at":"2024-01-02T03:04:05Z","tags":["a","b","c"],"labels":{"a":"1","b":"2"}}}`},
		{"junctors", `{type: object, properties: {spec: {type: object,
			properties: {a: {type: string}, b: {type: string}, o: {type: object, properties: {x: {type: integer}, z: {type: integer}},
				anyOf: [{required: [z]}, {properties: {x: {minimum: 5}}}]}},
			oneOf: [{required: [a]}, {required: [b]}]}}}`,
			`{"spec":{"o":{"x":3}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			v, err := Compile(mustSchema(b, bc.schema))
			if err != nil {
				b.Fatal(err)
			}
			obj := mustValue(b, bc.obj)
			b.ReportAllocs()
			for b.Loop() {
				v.validateObject(obj, nil, false)
			}
		})
	}
}
