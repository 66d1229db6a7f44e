package builtin

import (
	"context"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	flowcontrolclient "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	flowcontrollisters "k8s.io/client-go/listers/flowcontrol/v1"
)

// The client and lister of the API Priority and Fairness ensurer
// (pkg/registry/flowcontrol/ensurer), on the server: the methods it
// calls; the others are those of the nil interfaces embedded.
type (
	fsClient struct {
		flowcontrolclient.FlowSchemaInterface
		ctx context.Context
		c   typedClient[*flowcontrolv1.FlowSchema]
	}
	fsLister struct {
		flowcontrollisters.FlowSchemaLister
		ctx context.Context
		c   typedClient[*flowcontrolv1.FlowSchema]
	}
	plClient struct {
		flowcontrolclient.PriorityLevelConfigurationInterface
		ctx context.Context
		c   typedClient[*flowcontrolv1.PriorityLevelConfiguration]
	}
	plLister struct {
		flowcontrollisters.PriorityLevelConfigurationLister
		ctx context.Context
		c   typedClient[*flowcontrolv1.PriorityLevelConfiguration]
	}
)

func (f fsClient) Create(ctx context.Context, o *flowcontrolv1.FlowSchema, opts metav1.CreateOptions) (*flowcontrolv1.FlowSchema, error) {
	return f.c.write(ctx, o, opts.FieldManager, false)
}

func (f fsClient) Update(ctx context.Context, o *flowcontrolv1.FlowSchema, opts metav1.UpdateOptions) (*flowcontrolv1.FlowSchema, error) {
	return f.c.write(ctx, o, opts.FieldManager, true)
}

func (f fsClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return f.c.delete(ctx, "", name, opts.Preconditions)
}

func (l fsLister) Get(name string) (*flowcontrolv1.FlowSchema, error) {
	return l.c.get(l.ctx, "", name)
}

func (l fsLister) List(sel labels.Selector) ([]*flowcontrolv1.FlowSchema, error) {
	all, err := l.c.list(l.ctx)
	return selected(all, sel), err
}

func (p plClient) Create(ctx context.Context, o *flowcontrolv1.PriorityLevelConfiguration, opts metav1.CreateOptions) (*flowcontrolv1.PriorityLevelConfiguration, error) {
	return p.c.write(ctx, o, opts.FieldManager, false)
}

func (p plClient) Update(ctx context.Context, o *flowcontrolv1.PriorityLevelConfiguration, opts metav1.UpdateOptions) (*flowcontrolv1.PriorityLevelConfiguration, error) {
	return p.c.write(ctx, o, opts.FieldManager, true)
}

func (p plClient) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return p.c.delete(ctx, "", name, opts.Preconditions)
}

func (l plLister) Get(name string) (*flowcontrolv1.PriorityLevelConfiguration, error) {
	return l.c.get(l.ctx, "", name)
}

func (l plLister) List(sel labels.Selector) ([]*flowcontrolv1.PriorityLevelConfiguration, error) {
	all, err := l.c.list(l.ctx)
	return selected(all, sel), err
}

// selected are the objects of all whose labels sel matches.
func selected[T metav1.Object](all []T, sel labels.Selector) []T {
	out := all[:0]
	for _, o := range all {
		if sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, o)
		}
	}
	return out
}
