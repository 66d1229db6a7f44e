package store

import (
	"encoding/json"
	"maps"
	"slices"
)

// widget is the stored type of the tests: metadata plus a map and a slice,
// so that isolation tests can mutate both.
type widget struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	ObjectMeta `json:"metadata"`
	Spec       map[string]string `json:"spec,omitempty"`
	Items      []string          `json:"items,omitempty"`
}

func (w *widget) DeepCopy() *widget {
	if w == nil {
		return nil
	}
	out := &widget{Kind: w.Kind, APIVersion: w.APIVersion}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = maps.Clone(w.Spec)
	out.Items = slices.Clone(w.Items)
	return out
}

func newWidget(ns, name string) *widget {
	return &widget{ObjectMeta: ObjectMeta{Namespace: ns, Name: name}}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
