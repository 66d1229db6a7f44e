package validation

import (
	"strconv"
	"testing"
)

// Typical metadata: the validators should cost no allocation when the
// input is valid, which is the common case on every write.
func typicalLabels() map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":       "web",
		"app.kubernetes.io/instance":   "web-prod",
		"app.kubernetes.io/managed-by": "Helm",
		"pod-template-hash":            "5d8f9c7b6",
		"tier":                         "frontend",
	}
}

func BenchmarkLabels(b *testing.B) {
	labels := typicalLabels()
	b.ReportAllocs()
	for b.Loop() {
		if errs := Labels("metadata.labels", labels); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkLabelsInvalid(b *testing.B) {
	labels := typicalLabels()
	labels["bad key!"] = "-bad value-"
	b.ReportAllocs()
	for b.Loop() {
		if errs := Labels("metadata.labels", labels); errs == nil {
			b.Fatal("no error")
		}
	}
}

func BenchmarkAnnotations(b *testing.B) {
	annotations := map[string]string{
		"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`,
		"deployment.kubernetes.io/revision":                "3",
		"Example.COM/Mixed-Case":                           "v",
	}
	for i := range 20 {
		annotations["example.com/key-"+strconv.Itoa(i)] = "value"
	}
	b.ReportAllocs()
	for b.Loop() {
		if errs := Annotations("metadata.annotations", annotations); errs != nil {
			b.Fatal(errs)
		}
	}
}

func BenchmarkIsQualifiedName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if IsQualifiedName("app.kubernetes.io/managed-by") != nil {
			b.Fatal("invalid")
		}
	}
}
