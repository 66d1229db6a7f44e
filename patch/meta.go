package patch

// ObjectMetaSchema returns the strategic merge patch strategies of
// Kubernetes' ObjectMeta, the "metadata" of every object: finalizers merge
// as a set, ownerReferences by uid (the patchStrategy and patchMergeKey
// tags of k8s.io/apimachinery's ObjectMeta). A type's schema puts it under
// "metadata". Each call returns a new value, which the caller may keep
// and change.
func ObjectMetaSchema() *Schema {
	return &Schema{Fields: map[string]*Schema{
		"finalizers":      {MergeList: true},
		"ownerReferences": {MergeList: true, MergeKey: "uid"},
	}}
}
