package table

import (
	"strconv"
	"time"

	"github.com/apisem/apisem/meta"
)

// Column is one column of a resource's Table: its definition
// (metav1.TableColumnDefinition) and how to compute its cell.
type Column struct {
	Name        string
	Type        string // an OpenAPI type: string, integer, number, boolean, date
	Format      string // "name" for the primary name column
	Description string
	Priority    int32 // 0 is shown by default, higher only with -o wide
	// Cell returns the column's cell for obj at time now (for ages).
	Cell func(obj meta.Object, now time.Time) any
	// Text, when set, returns the cell of a column of strings and is
	// used instead of Cell, saving the allocation of a string returned
	// as any on every row of a list's Table. A copy of a column that
	// changes its Cell must set Text to nil or to its match.
	Text func(obj meta.Object, now time.Time) string
}

// Descriptions of the name and creationTimestamp columns, as Kubernetes
// writes them (its ObjectMeta documentation,
// k8s.io/apimachinery/pkg/apis/meta/v1/types_swagger_doc_generated.go).
const (
	NameDescription = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"

	CreationTimestampDescription = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// NameColumn and AgeColumn are the Name and Age columns most resources
// start and end their Table with, as kubectl prints them.
var (
	NameColumn = Column{Name: "Name", Type: "string", Format: "name", Description: NameDescription,
		Cell: func(o meta.Object, _ time.Time) any { return o.Meta().Name },
		Text: func(o meta.Object, _ time.Time) string { return o.Meta().Name }}
	AgeColumn = Column{Name: "Age", Type: "string", Description: CreationTimestampDescription,
		Cell: func(o meta.Object, now time.Time) any { return Age(o.Meta().CreationTimestamp.Time, now) },
		Text: func(o meta.Object, now time.Time) string { return Age(o.Meta().CreationTimestamp.Time, now) }}
)

// CustomResourceAgeColumn is the column Kubernetes gives a custom
// resource without additionalPrinterColumns: its age, from
// .metadata.creationTimestamp, of type date.
var CustomResourceAgeColumn = Column{Name: "Age", Type: "date", Description: CreationTimestampDescription,
	Cell: func(o meta.Object, now time.Time) any { return Age(o.Meta().CreationTimestamp.Time, now) },
	Text: func(o meta.Object, now time.Time) string { return Age(o.Meta().CreationTimestamp.Time, now) }}

// Age prints how long ago t was, the way kubectl's AGE column does:
// seconds up to two minutes, then minutes and seconds, minutes, hours and
// minutes, hours, days and hours, days, years and days, years, each step
// dropping the finer unit once the coarser one is large. A zero t is
// "<unknown>"; a t more than a second in the future is "<invalid>".
func Age(t, now time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	d := now.Sub(t)
	switch {
	case d < -time.Second:
		return "<invalid>"
	case d < 0:
		return "0s"
	}
	s := int64(d / time.Second)
	m := s / 60
	h := m / 60
	days := h / 24
	years := days / 365
	f := strconv.FormatInt
	switch {
	case s < 120:
		return f(s, 10) + "s"
	case m < 10:
		if s%60 == 0 {
			return f(m, 10) + "m"
		}
		return f(m, 10) + "m" + f(s%60, 10) + "s"
	case m < 180:
		return f(m, 10) + "m"
	case h < 8:
		if m%60 == 0 {
			return f(h, 10) + "h"
		}
		return f(h, 10) + "h" + f(m%60, 10) + "m"
	case h < 48:
		return f(h, 10) + "h"
	case h < 24*8:
		if h%24 == 0 {
			return f(days, 10) + "d"
		}
		return f(days, 10) + "d" + f(h%24, 10) + "h"
	case days < 365*2:
		return f(days, 10) + "d"
	case days < 365*8:
		if days%365 == 0 {
			return f(years, 10) + "y"
		}
		return f(years, 10) + "y" + f(days%365, 10) + "d"
	}
	return f(years, 10) + "y"
}
