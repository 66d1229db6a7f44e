package api

import (
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"slices"
)

// Widget is the example's custom resource, widgets.example.apisem.dev/v1:
// JSON only, with its own Table columns, as a CustomResourceDefinition
// with additionalPrinterColumns would be served.
type Widget struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            WidgetSpec   `json:"spec"`
	Status          WidgetStatus `json:"status,omitzero"`
}

// WidgetSpec is what a widget should be.
type WidgetSpec struct {
	Color string   `json:"color,omitempty"`
	Size  int64    `json:"size,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

// WidgetStatus is what a widget's controller reports.
type WidgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// Types returns the object's TypeMeta.
func (w *Widget) Types() *meta.TypeMeta { return &w.TypeMeta }

// DeepCopyObject returns a deep copy of w.
func (w *Widget) DeepCopyObject() server.Object { return w.DeepCopy() }

// DeepCopy returns a deep copy of w.
func (w *Widget) DeepCopy() *Widget {
	out := &Widget{TypeMeta: w.TypeMeta, Spec: w.Spec, Status: w.Status}
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Tags = slices.Clone(w.Spec.Tags)
	return out
}

// widgetColors are the colors a widget may have.
var widgetColors = []string{"blue", "green", "red"}

func validateWidget(o, _ server.Object) []FieldError {
	w := o.(*Widget)
	var errs []FieldError
	if w.Spec.Color != "" && !slices.Contains(widgetColors, w.Spec.Color) {
		errs = append(errs, notSupported("spec.color", w.Spec.Color, widgetColors...))
	}
	if w.Spec.Size < 0 {
		errs = append(errs, invalid("spec.size", w.Spec.Size, "must be greater than or equal to 0"))
	}
	return errs
}
