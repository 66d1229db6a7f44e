package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// The times both types accept: those RFC 3339 can write in UTC, years 0
// to 9999 (as Unix seconds, 0000-01-01T00:00:00Z and
// 9999-12-31T23:59:59Z). Kubernetes accepts an offset that moves a time
// out of that range (0000-01-01T00:00:00+01:00 is year -1 in UTC) and
// writes what no RFC 3339 parser, Go's included, reads back; we refuse
// such times when decoding, JSON or protobuf.
const (
	minUnix = -62167219200
	maxUnix = 253402300799
)

// checkRange returns a *time.ParseError for value, a time written in
// layout, when t is outside the years RFC 3339 writes in UTC.
func checkRange(t time.Time, layout, value string) error {
	if s := t.Unix(); s >= minUnix && s <= maxUnix {
		return nil
	}
	return &time.ParseError{Layout: layout, Value: value,
		Message: fmt.Sprintf(": year %d in UTC is outside of range [0,9999]", t.UTC().Year())}
}

// checkUnix is checkRange for protobuf's seconds.
func checkUnix(secs int64) error {
	if secs >= minUnix && secs <= maxUnix {
		return nil
	}
	return fmt.Errorf("%w: time of %d seconds is outside of years [0,9999]", ErrMalformed, secs)
}

// Time is metav1.Time: a time.Time with whole-second precision on the
// wire. JSON is RFC 3339 in UTC without a fraction, and null for the zero
// time; embedding time.Time gives it IsZero, so `omitzero` drops a zero
// creationTimestamp as Kubernetes (1.34 and later) does.
type Time struct {
	time.Time
}

// NewTime returns t as a Time.
func NewTime(t time.Time) Time { return Time{t} }

// MarshalJSON writes null for the zero time, else the UTC RFC 3339 form
// with the fraction dropped.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(time.RFC3339)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339)
	return append(b, '"'), nil
}

// UnmarshalJSON reads null as the zero time and a string with
// time.RFC3339, which accepts (and keeps) a fraction. The result is in
// local time, as Kubernetes' decoder returns it. A time outside years 0
// to 9999 in UTC is a *time.ParseError, unlike in Kubernetes (see the
// package doc).
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	// time.Time's decoder reads strict RFC 3339 without allocating, and
	// what it accepts time.Parse reads the same way; the rest (escapes,
	// lenient forms) goes the way Kubernetes reads it. Measured by
	// negotiation's BenchmarkTable, which decodes metadata per row.
	var p time.Time
	if p.UnmarshalJSON(b) == nil {
		// Strict RFC 3339 has no escapes: the string is b unquoted.
		if err := checkRange(p, time.RFC3339, string(b[1:len(b)-1])); err != nil {
			return err
		}
	} else {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		var err error
		if p, err = time.Parse(time.RFC3339, s); err != nil {
			return err
		}
		if err := checkRange(p, time.RFC3339, s); err != nil {
			return err
		}
	}
	t.Time = p.Local()
	return nil
}

// MicroTime is metav1.MicroTime: a time with microsecond precision,
// written in JSON as RFC 3339 in UTC with six fraction digits, and null
// when zero. Events use it.
type MicroTime struct {
	time.Time
}

// rfc3339Micro is the layout of MicroTime in JSON.
const rfc3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// MarshalJSON writes null for the zero time, else the UTC time with
// microseconds.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(rfc3339Micro)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, rfc3339Micro)
	return append(b, '"'), nil
}

// UnmarshalJSON reads null as the zero time, else the JSON layout (any
// fraction is accepted on parse). The result is in UTC. A time outside
// years 0 to 9999 in UTC is a *time.ParseError, as for Time.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	p, err := time.Parse(rfc3339Micro, s)
	if err != nil {
		return err
	}
	if err := checkRange(p, rfc3339Micro, s); err != nil {
		return err
	}
	t.Time = p.UTC()
	return nil
}

// Both times travel in protobuf as google.protobuf.Timestamp
// {seconds = 1, nanos = 2}, and the zero time as no bytes at all.
const (
	tsSeconds = 1
	tsNanos   = 2
)

// AppendTime appends the body of a metav1.Time: nothing for the zero time,
// otherwise the seconds and a nanos of 0, which Kubernetes always writes
// (its Time drops the fraction on the wire).
func AppendTime(b []byte, t Time) []byte {
	if t.IsZero() {
		return b
	}
	b = appendInt(b, tsSeconds, t.Unix())
	return appendInt(b, tsNanos, 0)
}

// SizeTime reports the size of AppendTime's output.
func SizeTime(t Time) int {
	if t.IsZero() {
		return 0
	}
	return sizeInt(tsSeconds, t.Unix()) + sizeInt(tsNanos, 0)
}

// ConsumeTime decodes the body of a metav1.Time. Empty input is the zero
// time; nanos are checked for their wire type and then ignored, as
// Kubernetes does. The result is in UTC. Seconds outside years 0 to 9999
// are malformed, unlike in Kubernetes (see the package doc).
func ConsumeTime(b []byte) (Time, error) {
	if len(b) == 0 {
		return Time{}, nil
	}
	secs, _, err := consumeTimestamp(b)
	if err != nil {
		return Time{}, err
	}
	if err := checkUnix(secs); err != nil {
		return Time{}, err
	}
	return Time{time.Unix(secs, 0).UTC()}, nil
}

// microNanos is the nanos of t truncated to whole microseconds.
func microNanos(t MicroTime) int64 { return int64(t.Nanosecond() / 1000 * 1000) }

// AppendMicroTime appends the body of a metav1.MicroTime: nothing for the
// zero time, else seconds and nanos truncated to microseconds, both always.
func AppendMicroTime(b []byte, t MicroTime) []byte {
	if t.IsZero() {
		return b
	}
	b = appendInt(b, tsSeconds, t.Unix())
	return appendInt(b, tsNanos, microNanos(t))
}

// SizeMicroTime reports the size of AppendMicroTime's output.
func SizeMicroTime(t MicroTime) int {
	if t.IsZero() {
		return 0
	}
	return sizeInt(tsSeconds, t.Unix()) + sizeInt(tsNanos, microNanos(t))
}

// ConsumeMicroTime decodes the body of a metav1.MicroTime. Empty input is
// the zero time; nanos out of range are taken as 0 and the rest truncated
// to microseconds. The result is in UTC. Seconds outside years 0 to 9999
// are malformed, as for ConsumeTime.
func ConsumeMicroTime(b []byte) (MicroTime, error) {
	if len(b) == 0 {
		return MicroTime{}, nil
	}
	secs, nanos, err := consumeTimestamp(b)
	if err != nil {
		return MicroTime{}, err
	}
	if err := checkUnix(secs); err != nil {
		return MicroTime{}, err
	}
	if nanos < 0 || nanos >= 1e9 {
		nanos = 0
	}
	return MicroTime{time.Unix(secs, int64(nanos)/1000*1000).UTC()}, nil
}

func consumeTimestamp(b []byte) (secs int64, nanos int32, err error) {
	for len(b) > 0 {
		f, n, err := consumeField(b)
		if err != nil {
			return 0, 0, err
		}
		switch f.num {
		case tsSeconds:
			secs, err = f.int64()
		case tsNanos:
			nanos, err = f.int32()
		}
		if err != nil {
			return 0, 0, err
		}
		b = b[n:]
	}
	return secs, nanos, nil
}
