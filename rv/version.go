package rv

import (
	"errors"
	"strconv"

	"github.com/apisem/apisem/status"
)

// Version is a resource version as apisem keeps it: an unsigned revision
// number, written on the wire as an opaque decimal string. Zero means "no
// version" (the query values "" and "0" both parse to zero; the decision
// types below keep the difference where it matters). Versions apisem emits
// are strictly increasing.
type Version uint64

// String returns the wire form: decimal, or "" for zero (Kubernetes clears
// metadata.resourceVersion rather than writing "0").
func (v Version) String() string {
	if v == 0 {
		return ""
	}
	return strconv.FormatUint(uint64(v), 10)
}

// AppendText appends the wire form of v to b.
func (v Version) AppendText(b []byte) ([]byte, error) {
	if v == 0 {
		return b, nil
	}
	return strconv.AppendUint(b, uint64(v), 10), nil
}

// Parse parses a resourceVersion as Kubernetes' storage layer does: "" and
// "0" are zero, anything else must be a decimal uint64. A bad value is the
// 400 BadRequest `invalid resource version: resourceVersion: Invalid value:
// "abc": strconv.ParseUint: parsing "abc": invalid syntax`
// (k8s.io/apiserver/pkg/storage/api_object_versioner.go),
// wrapping ErrInvalidVersion.
func Parse(s string) (Version, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		fe := status.InvalidValue("resourceVersion", s, err.Error())
		return 0, status.NewBadRequest("invalid resource version: " + fe.Error()).Wrap(ErrInvalidVersion)
	}
	return Version(n), nil
}

// Sentinel errors of the resourceVersion model. Storage and watch layers
// return them (wrapped) and translate them into Status errors at their
// boundary with the Kubernetes texts that fit the operation.
var (
	// ErrInvalidVersion: a resourceVersion that is not a decimal uint64.
	ErrInvalidVersion = errors.New("rv: invalid resource version")
	// ErrCompacted: the requested revision is older than retained history
	// (answered with 410 Expired).
	ErrCompacted = errors.New("rv: required revision has been compacted")
	// ErrFutureRevision: the requested revision has not been written yet
	// (answered, after a short wait, with 504 "Too large resource version").
	ErrFutureRevision = errors.New("rv: required revision is in the future")
)

// CompactedError reports a read or watch at a revision history no longer
// covers. It unwraps to ErrCompacted.
type CompactedError struct {
	// Requested is the revision asked for.
	Requested Version
	// Compacted is the compaction revision C, with etcd's meaning: the
	// state at C is still readable and a watch may start at C (receiving the
	// events after C); anything older is gone. Kubernetes prints it as the
	// M of "too old resource version: N (M)".
	Compacted Version
}

func (e *CompactedError) Error() string {
	return "rv: revision " + strconv.FormatUint(uint64(e.Requested), 10) +
		" has been compacted (oldest available " + strconv.FormatUint(uint64(e.Compacted), 10) + ")"
}

// Unwrap returns ErrCompacted.
func (e *CompactedError) Unwrap() error { return ErrCompacted }
