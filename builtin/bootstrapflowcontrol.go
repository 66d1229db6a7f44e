package builtin

import (
	"context"
	"fmt"
	"slices"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	flowcontrolclient "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
	flowcontrollisters "k8s.io/client-go/listers/flowcontrol/v1"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
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

// configConsumer is the field manager of kube-apiserver's APF
// configuration controller, which writes the FlowSchemas' status
// (k8s.io/apiserver/pkg/util/flowcontrol.ConfigConsumerAsFieldManager).
const configConsumer = "api-priority-and-fairness-config-consumer-v1"

// danglingFields are the fields the controller's apply of a FlowSchema's
// status owns.
var danglingFields = []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"Dangling\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)

// flowSchemaStatus gives each FlowSchema its Dangling condition, as
// kube-apiserver's APF controller does (by an apply of the status with
// its field manager): False, reason Found, when the priority level it
// names exists, else True, reason NotFound. A FlowSchema whose condition
// says so already is left alone.
func (b *bootstrapper) flowSchemaStatus(ctx context.Context, fsRes, plRes *server.Resource) error {
	if _, ok := fsRes.New().(*Object); !ok {
		return nil
	}
	st := b.s.StoreOf(fsRes)
	page, err := st.List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil {
		return err
	}
	pls := map[string]bool{}
	plPage, err := b.s.StoreOf(plRes).List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil {
		return err
	}
	for _, o := range plPage.Views() {
		pls[o.Meta().Name] = true
	}
	now := b.s.Now().UTC().Truncate(time.Second)
	for _, o := range page.Views() {
		fs, ok := o.(*Object).Value.(*flowcontrolv1.FlowSchema)
		if !ok {
			continue
		}
		want := danglingCondition(fs.Spec.PriorityLevelConfiguration.Name, pls[fs.Spec.PriorityLevelConfiguration.Name], now)
		if c := danglingOf(fs); c != nil && c.Status == want.Status && c.Reason == want.Reason && c.Message == want.Message {
			continue
		}
		_, err := st.GuaranteedUpdate(ctx, "", o.Meta().Name, store.UpdateOptions{ReadOnlyResult: true}, func(cur server.Object) (server.Object, error) {
			c := cur.DeepCopyObject().(*Object)
			fs := c.Value.(*flowcontrolv1.FlowSchema)
			if d := danglingOf(fs); d != nil {
				*d = want
			} else {
				fs.Status.Conditions = append(fs.Status.Conditions, want)
			}
			m := &c.ObjectMeta
			m.ManagedFields = slices.DeleteFunc(m.ManagedFields, func(e meta.ManagedFieldsEntry) bool {
				return e.Manager == configConsumer && e.Subresource == "status"
			})
			m.ManagedFields = append([]meta.ManagedFieldsEntry{{Manager: configConsumer, Operation: "Apply",
				APIVersion: "flowcontrol.apiserver.k8s.io/v1", Time: &meta.Time{Time: now}, FieldsType: "FieldsV1",
				FieldsV1: &meta.FieldsV1{Raw: danglingFields}, Subresource: "status"}}, m.ManagedFields...)
			return c, nil
		})
		if err != nil && !status.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func danglingOf(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaCondition {
	for i := range fs.Status.Conditions {
		if fs.Status.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Status.Conditions[i]
		}
	}
	return nil
}

func danglingCondition(pl string, found bool, now time.Time) flowcontrolv1.FlowSchemaCondition {
	c := flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, LastTransitionTime: metav1.NewTime(now)}
	if found {
		c.Status, c.Reason = flowcontrolv1.ConditionFalse, "Found"
		c.Message = fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", pl)
	} else {
		c.Status, c.Reason = flowcontrolv1.ConditionTrue, "NotFound"
		c.Message = fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", pl)
	}
	return c
}
