package builtin

import (
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/printers"
	"k8s.io/kubernetes/pkg/printers/internalversion"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/table"
)

// newPrinter returns kube-apiserver's server-side printers, which make
// the Tables kubectl get prints.
func newPrinter() *printers.HumanReadableGenerator {
	return printers.NewTableGenerator().With(internalversion.AddHandlers)
}

// columns returns the kind's Table columns as Kubernetes' printer of its
// internal type defines them, each cell computed by that printer; nil
// for a kind without a printer, whose Table is the server's default
// (Name and Created At, as Kubernetes' default Table converter has it).
func (k *kind) columns(p *printers.HumanReadableGenerator) []table.Column {
	empty, err := scheme.New(k.internalGVK())
	if err != nil {
		return nil
	}
	t, err := generate(p, empty)
	if err != nil || len(t.ColumnDefinitions) == 0 {
		return nil
	}
	rc := &rowCache{k: k, p: p}
	cols := make([]table.Column, len(t.ColumnDefinitions))
	for i, d := range t.ColumnDefinitions {
		cols[i] = table.Column{
			Name: d.Name, Type: d.Type, Format: d.Format, Description: d.Description, Priority: d.Priority,
			Cell: func(o meta.Object, now time.Time) any { return rc.cell(o.(*Object), i, now) },
		}
		if d.Name == table.AgeColumn.Name && d.Type == table.AgeColumn.Type {
			// The printers' Age is the creation timestamp's age, which
			// the server's clock gives as the printers print it.
			cols[i] = table.AgeColumn
			cols[i].Description, cols[i].Priority = d.Description, d.Priority
		}
	}
	return cols
}

// rowCache remembers the cells of the last object printed, since the
// server asks for a row one cell at a time and the printer makes the
// whole row. Cells of durations (a DeviceTaintRule's TIMEADDED, an
// Event's LAST SEEN) are the printer's, from its clock: a row is
// remembered for the second it was printed in.
type rowCache struct {
	k *kind
	p *printers.HumanReadableGenerator

	mu    sync.Mutex
	obj   *Object // the object of cells; stored objects never change
	sec   int64   // the Unix second of the request that printed it
	cells []any
}

func (rc *rowCache) cell(o *Object, i int, now time.Time) any {
	sec := now.Unix()
	rc.mu.Lock()
	if rc.obj == o && rc.sec == sec {
		c := rc.cells
		rc.mu.Unlock()
		return at(c, i)
	}
	rc.mu.Unlock()
	cells := rc.row(o)
	rc.mu.Lock()
	rc.obj, rc.sec, rc.cells = o, sec, cells
	rc.mu.Unlock()
	return at(cells, i)
}

func at(cells []any, i int) any {
	if i < len(cells) {
		return cells[i]
	}
	return nil
}

// row prints o's row; nil when it cannot.
func (rc *rowCache) row(o *Object) []any {
	in, err := rc.k.internal(o)
	if err != nil {
		return nil
	}
	t, err := generate(rc.p, in)
	if err != nil || len(t.Rows) == 0 {
		return nil
	}
	return t.Rows[0].Cells
}

// generate prints obj's Table with every column (-o wide's too, which
// the server leaves out by their priority). A printer that fails on an
// object (an empty one) is an error, not a panic.
func generate(p *printers.HumanReadableGenerator, obj runtime.Object) (t *metav1.Table, err error) {
	defer func() {
		if r := recover(); r != nil {
			t, err = nil, fmt.Errorf("builtin: printing a %T: %v", obj, r)
		}
	}()
	return p.GenerateTable(obj, printers.GenerateOptions{Wide: true})
}
