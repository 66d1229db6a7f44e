package patch

import "testing"

// A ConfigMap as the server holds it, and the patches kubectl label,
// client-side apply and a JSON patch client send it.
var (
	benchDoc = []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"demo","namespace":"default",` +
		`"uid":"7d1e5f0a-3c5e-4a43-9f51-0c7ae6f1d2b4","resourceVersion":"1234","creationTimestamp":"2026-01-02T03:04:05Z",` +
		`"labels":{"app":"demo","tier":"web"},"finalizers":["example.com/a","example.com/b"]},` +
		`"data":{"a":"1","b":"2","c":"3","d":"4"}}`)
	benchLabel = []byte(`{"metadata":{"labels":{"release":"v2"}}}`)
	benchApply = []byte(`{"metadata":{"$setElementOrder/finalizers":["example.com/a","example.com/c"],` +
		`"$deleteFromPrimitiveList/finalizers":["example.com/b"],"finalizers":["example.com/c"]},"data":{"a":"10"}}`)
	benchJSONPatch = []byte(`[{"op":"test","path":"/metadata/resourceVersion","value":"1234"},` +
		`{"op":"replace","path":"/data/a","value":"10"},{"op":"add","path":"/metadata/labels/release","value":"v2"}]`)
)

func benchApplyBody(b *testing.B, body []byte, contentType string, opts Options) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(benchDoc, body, contentType, opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergePatch is kubectl label's request, a one-label merge patch.
// "checked" adds the strict decoding of fieldValidation Warn (the default).
func BenchmarkMergePatch(b *testing.B) {
	b.Run("lenient", func(b *testing.B) { benchApplyBody(b, benchLabel, MergePatchType, Options{}) })
	b.Run("checked", func(b *testing.B) { benchApplyBody(b, benchLabel, MergePatchType, Options{CheckFields: true}) })
}

// BenchmarkJSONPatch is a test of the resourceVersion, a replace and an add.
func BenchmarkJSONPatch(b *testing.B) {
	b.Run("lenient", func(b *testing.B) { benchApplyBody(b, benchJSONPatch, JSONPatchType, Options{}) })
	b.Run("checked", func(b *testing.B) { benchApplyBody(b, benchJSONPatch, JSONPatchType, Options{CheckFields: true}) })
}

// BenchmarkStrategicLabel is kubectl label's change as a strategic merge
// patch.
func BenchmarkStrategicLabel(b *testing.B) {
	b.Run("lenient", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := StrategicMergePatch(benchDoc, benchLabel, schema); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("checked", func(b *testing.B) {
		benchApplyBody(b, benchLabel, StrategicMergePatchType, Options{Schema: schema, CheckFields: true})
	})
}

// BenchmarkStrategicApply is a client-side apply patch with all three list
// directives.
func BenchmarkStrategicApply(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := StrategicMergePatch(benchDoc, benchApply, schema); err != nil {
			b.Fatal(err)
		}
	}
}
