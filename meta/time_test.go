package meta

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// Times RFC 3339 cannot write in UTC are refused, not stored to be served
// as no client reads them (issue 24; see the package doc).
func TestTimeRange(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		micro    bool
		err      string // "" accepts
	}{
		{"year 0 in UTC", `"0000-01-01T00:00:00Z"`, false, ""},
		{"year 0 by an offset", `"0000-01-01T01:00:00+01:00"`, false, ""},
		{"last second of 9999", `"9999-12-31T23:59:59Z"`, false, ""},
		{"year -1 by an offset", `"0000-01-01T00:00:00+01:00"`, false,
			`parsing time "0000-01-01T00:00:00+01:00": year -1 in UTC is outside of range [0,9999]`},
		{"year -1, lenient form (the fuzzer's)", `"0000-01-01T0:00:00+01:00"`, false,
			`parsing time "0000-01-01T0:00:00+01:00": year -1 in UTC is outside of range [0,9999]`},
		{"year -1, escaped", `"0000-01-01T00:00:00\u002b01:00"`, false,
			`parsing time "0000-01-01T00:00:00+01:00": year -1 in UTC is outside of range [0,9999]`},
		{"year 10000 by an offset", `"9999-12-31T23:00:00-01:00"`, false,
			`parsing time "9999-12-31T23:00:00-01:00": year 10000 in UTC is outside of range [0,9999]`},
		{"MicroTime year 0", `"0000-01-01T00:00:00.000000Z"`, true, ""},
		{"MicroTime year -1", `"0000-01-01T00:00:00.000000+01:00"`, true,
			`parsing time "0000-01-01T00:00:00.000000+01:00": year -1 in UTC is outside of range [0,9999]`},
		{"MicroTime year 10000", `"9999-12-31T23:59:59.999999-00:01"`, true,
			`parsing time "9999-12-31T23:59:59.999999-00:01": year 10000 in UTC is outside of range [0,9999]`},
	} {
		var err error
		if tt.micro {
			err = new(MicroTime).UnmarshalJSON([]byte(tt.in))
		} else {
			err = new(Time).UnmarshalJSON([]byte(tt.in))
		}
		got := ""
		if err != nil {
			got = err.Error()
			if pe := new(time.ParseError); !errors.As(err, &pe) {
				t.Errorf("%s: error %T; want a *time.ParseError", tt.name, err)
			}
		}
		if got != tt.err {
			t.Errorf("%s: UnmarshalJSON(%s) = %q; want %q", tt.name, tt.in, got, tt.err)
		}
	}

	// The fuzzer's input (issue 24): refused, not written back as
	// -0001-12-31T23:00:00Z.
	var m ObjectMeta
	if err := json.Unmarshal([]byte(`{"mAnAgedFields":[{"fieldsV1":{},"time":"0000-01-01T0:00:00+01:00"}]}`), &m); err == nil {
		b, _ := json.Marshal(&m)
		t.Errorf("Unmarshal accepted a time of year -1, written back as %s", b)
	}
}

func TestConsumeTimeRange(t *testing.T) {
	for _, tt := range []struct {
		secs int64
		ok   bool
	}{
		{minUnix, true}, {maxUnix, true}, {minUnix - 1, false}, {maxUnix + 1, false},
		{-1 << 63, false}, {1<<63 - 1, false},
	} {
		b := appendInt(nil, tsSeconds, tt.secs)
		tm, err := ConsumeTime(b)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeTime(%d seconds) = %v, %v; want ok %v or ErrMalformed", tt.secs, tm, err, tt.ok)
		}
		mt, err := ConsumeMicroTime(appendInt(b, tsNanos, 999_999_999))
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeMicroTime(%d seconds) = %v, %v; want ok %v or ErrMalformed", tt.secs, mt, err, tt.ok)
		}
		if err == nil {
			if _, err := json.Marshal(mt); err != nil {
				t.Errorf("Marshal(%v): %v", mt, err)
			}
		}
	}
	if minUnix != time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix() || maxUnix != time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix() {
		t.Errorf("minUnix, maxUnix = %d, %d; not years 0 to 9999", minUnix, maxUnix)
	}
}
