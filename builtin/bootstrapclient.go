package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store"
)

// typedClient reads and writes the objects of one resource of a server
// as k8s.io/api values (T, a pointer such as *rbacv1.ClusterRole), for
// Kubernetes' own start-up code (RBAC reconciliation, the API Priority
// and Fairness ensurer) to run against the server as it runs against
// kube-apiserver's loopback client. Writes go through the server's
// write pipeline (defaulting, validation, admission, managedFields);
// errors are k8s.io/apimachinery's StatusErrors, which that code tests
// with apierrors.IsNotFound and the like.
type typedClient[T runtime.Object] struct {
	s   *server.Server
	res *server.Resource
	new func() T
	// manager is the fieldManager of writes that name none.
	manager string
}

func (c typedClient[T]) typed(o server.Object) (T, error) {
	t := c.new()
	b, err := json.Marshal(o)
	if err == nil {
		err = json.Unmarshal(b, t)
	}
	return t, err
}

func (c typedClient[T]) object(t T) (server.Object, error) {
	b, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	o := c.res.New()
	if err := json.Unmarshal(b, o); err != nil {
		return nil, err
	}
	return o, nil
}

func (c typedClient[T]) get(ctx context.Context, namespace, name string) (T, error) {
	o, err := c.s.StoreOf(c.res).Get(ctx, namespace, name, rv.Read{Semantics: rv.MostRecent})
	if err != nil {
		var zero T
		return zero, kubeError(err)
	}
	return c.typed(o)
}

func (c typedClient[T]) list(ctx context.Context) ([]T, error) {
	page, err := c.s.StoreOf(c.res).List(ctx, "", store.ListOptions{Read: rv.Read{Semantics: rv.MostRecent}})
	if err != nil {
		return nil, kubeError(err)
	}
	var out []T
	for _, o := range page.Views() {
		t, err := c.typed(o)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func (c typedClient[T]) write(ctx context.Context, t T, manager string, update bool) (T, error) {
	var zero T
	if manager == "" {
		manager = c.manager
	}
	o, err := c.object(t)
	if err != nil {
		return zero, err
	}
	var out server.Object
	if update {
		out, err = c.s.UpdateAs(ctx, c.res, o, manager)
	} else {
		out, err = c.s.CreateAs(ctx, c.res, o, manager)
	}
	if err != nil {
		return zero, kubeError(err)
	}
	return c.typed(out)
}

func (c typedClient[T]) create(ctx context.Context, t T) (T, error) {
	return c.write(ctx, t, "", false)
}

func (c typedClient[T]) update(ctx context.Context, t T) (T, error) {
	return c.write(ctx, t, "", true)
}

// delete deletes namespace/name, when it meets pre (metav1's
// Preconditions, nil for none).
func (c typedClient[T]) delete(ctx context.Context, namespace, name string, pre *metav1.Preconditions) error {
	var p store.Preconditions
	if pre != nil {
		if pre.UID != nil {
			u := string(*pre.UID)
			p.UID = &u
		}
		p.ResourceVersion = pre.ResourceVersion
	}
	_, _, err := c.s.StoreOf(c.res).Delete(ctx, namespace, name, store.DeleteOptions{Preconditions: p, ReadOnlyResult: true})
	return kubeError(err)
}

// kubeError is err as k8s.io/apimachinery's StatusError when it is a
// status error (a Go error else, or nil).
func kubeError(err error) error {
	if err == nil {
		return nil
	}
	var se *status.Error
	if !errors.As(err, &se) {
		return err
	}
	b, merr := json.Marshal(se.Status)
	var st metav1.Status
	if merr == nil {
		merr = json.Unmarshal(b, &st)
	}
	if merr != nil {
		return fmt.Errorf("%w (%v)", err, merr)
	}
	return &apierrors.StatusError{ErrStatus: st}
}
