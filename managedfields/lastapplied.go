package managedfields

import (
	"encoding/json"
	"maps"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// kubectl's client-side apply records what it applied in an annotation;
// Kubernetes' field manager keeps that annotation meaningful when kubectl
// moves to server-side apply, whose default field manager is "kubectl".
const (
	kubectlManager = "kubectl"
	// LastAppliedAnnotation is where kubectl's client-side apply keeps
	// the configuration it last applied.
	LastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// maxAnnotationsBytes is the limit on the total size of an object's
	// annotations (keys and values), 256 KiB.
	maxAnnotationsBytes = 256 << 10
)

// lastAppliedFields returns the fields of live's last-applied
// configuration that still hold the values it gives them: the conflicts
// kubectl's first server-side apply may take over. nil when live has no
// usable annotation.
func (f *FieldManager) lastAppliedFields(live map[string]any) *fieldpath.Set {
	raw := annotation(live, LastAppliedAnnotation)
	if raw == "" {
		return nil
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(raw), &last); err != nil || str(last["apiVersion"]) != f.opts.APIVersion {
		return nil
	}
	sorted := f.views.wants(live, last)
	liveT, err := f.typedOf(live, sorted)
	if err != nil {
		return nil
	}
	lastT, err := f.typedOf(last, sorted)
	if err != nil {
		return nil
	}
	set, err := lastT.ToFieldSet()
	if err != nil {
		return nil
	}
	cmp, err := lastT.Compare(liveT)
	if err != nil {
		return nil
	}
	return set.Difference(cmp.Modified).Difference(cmp.Added).Difference(cmp.Removed)
}

// updateLastApplied makes the last-applied annotation of obj, if it has
// one, the configuration kubectl just applied (without that annotation),
// so that a later client-side apply starts from it. The annotation is
// dropped when it would make the annotations too large. obj is copied
// where it changes.
func updateLastApplied(obj, config map[string]any) map[string]any {
	if annotation(obj, LastAppliedAnnotation) == "" {
		return obj
	}
	c := maps.Clone(config)
	if md, ok := c["metadata"].(map[string]any); ok {
		md = maps.Clone(md)
		c["metadata"] = md
		if a, ok := md["annotations"].(map[string]any); ok {
			a = maps.Clone(a)
			delete(a, LastAppliedAnnotation)
			md["annotations"] = a
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return obj
	}
	out := maps.Clone(obj)
	md := maps.Clone(out["metadata"].(map[string]any))
	out["metadata"] = md
	a := maps.Clone(md["annotations"].(map[string]any))
	md["annotations"] = a
	a[LastAppliedAnnotation] = string(b) + "\n"
	size := 0
	for k, v := range a {
		size += len(k) + len(str(v))
	}
	if size > maxAnnotationsBytes {
		delete(a, LastAppliedAnnotation)
	}
	return out
}

// annotation returns the annotation key of o, "" if it has none.
func annotation(o map[string]any, key string) string {
	md, _ := o["metadata"].(map[string]any)
	a, _ := md["annotations"].(map[string]any)
	return str(a[key])
}
