package cel

import "testing"

// BenchmarkValidate evaluates the rules of testSchema on one object, as
// every write of a custom resource does (an update: with oldSelf and
// ratcheting).
func BenchmarkValidate(b *testing.B) {
	rv, err := Compiler{}.Compile(mustSchema(b, testSchema))
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

// BenchmarkCheck checks the rules of testSchema, as every write of a
// definition does.
func BenchmarkCheck(b *testing.B) {
	s := mustSchema(b, testSchema)
	b.ReportAllocs()
	for b.Loop() {
		Compiler{}.Check("p", s)
	}
}

// BenchmarkCompile compiles the rules of testSchema, as serving a
// definition does.
func BenchmarkCompile(b *testing.B) {
	s := mustSchema(b, testSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Compiler{}).Compile(s); err != nil {
			b.Fatal(err)
		}
	}
}
