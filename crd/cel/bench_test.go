package cel

import "testing"

// BenchmarkValidate evaluates the rules of testSchema on one object, as
// every write of a custom resource does.
func BenchmarkValidate(b *testing.B) {
	rv, err := Compiler{}.Compile(schema(b, testSchema))
	if err != nil {
		b.Fatal(err)
	}
	obj := object(b, `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2,"mode":"a","replicas":3,"tags":["a","b"],
		"ports":[{"name":"http","port":80}],"labels":{"a":"x"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if errs := rv.Validate(obj, obj); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
