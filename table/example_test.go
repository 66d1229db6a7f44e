package table_test

import (
	"fmt"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/table"
)

// A ConfigMap-like type and the columns kubectl get prints for it: the
// shared Name column, one of its own, and the shared Age column.
type Gizmo struct {
	meta.ObjectMeta
	Color string
}

func Example() {
	cols := []table.Column{
		table.NameColumn,
		{Name: "Color", Type: "string", Cell: func(o meta.Object, _ time.Time) any { return o.(*Gizmo).Color }},
		table.AgeColumn,
	}
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	g := &Gizmo{Color: "blue"}
	g.Name, g.CreationTimestamp = "g1", meta.NewTime(now.Add(-90*time.Minute))
	for _, c := range cols {
		fmt.Printf("%s=%v ", c.Name, c.Cell(g, now))
	}
	fmt.Println()
	// Output: Name=g1 Color=blue Age=90m
}

func ExampleAge() {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, ago := range []time.Duration{45 * time.Second, 150 * time.Second, 3*time.Hour + 20*time.Minute, 50 * time.Hour} {
		fmt.Println(table.Age(now.Add(-ago), now))
	}
	// Output:
	// 45s
	// 2m30s
	// 3h20m
	// 2d2h
}
