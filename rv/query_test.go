package rv

import (
	"errors"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apisem/apisem/status"
	"github.com/google/go-cmp/cmp"
)

var queryTests = []struct {
	query string
	want  ListOptions
	err   *wantErr
	// escapes marks rows where ParseQuery deliberately differs from
	// Kubernetes' url.Values decoding (which drops a malformed pair).
	escapes bool
}{
	{query: "", want: ListOptions{}},
	{query: "labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&fieldSelector=metadata.name%3Dx",
		want: ListOptions{LabelSelector: "app=web,tier in (a,b)", FieldSelector: "metadata.name=x"}},
	{query: "labelSelector=app=web", want: ListOptions{LabelSelector: "app=web"}},
	{query: "watch=true&allowWatchBookmarks=true&resourceVersion=12&resourceVersionMatch=NotOlderThan&timeoutSeconds=413&limit=500&continue=tok&sendInitialEvents=true",
		want: ListOptions{Watch: true, AllowWatchBookmarks: true, ResourceVersion: "12", ResourceVersionMatch: MatchNotOlderThan,
			TimeoutSeconds: 413, Limit: 500, Continue: "tok", SendInitialEvents: BoolTrue}},

	// Bools: only "0" and "false" in any case are false.
	{query: "watch=1", want: ListOptions{Watch: true}},
	{query: "watch=0", want: ListOptions{}},
	{query: "watch=false", want: ListOptions{}},
	{query: "watch=FALSE", want: ListOptions{}},
	{query: "watch=fAlSe", want: ListOptions{}},
	{query: "watch=", want: ListOptions{Watch: true}},
	{query: "watch", want: ListOptions{Watch: true}},
	{query: "watch=no", want: ListOptions{Watch: true}},
	{query: "watch=f", want: ListOptions{Watch: true}},
	{query: "watch=00", want: ListOptions{Watch: true}},
	{query: "watch=%66alse", want: ListOptions{}},
	{query: "allowWatchBookmarks=0", want: ListOptions{}},
	{query: "sendInitialEvents=false", want: ListOptions{SendInitialEvents: BoolFalse}},
	{query: "sendInitialEvents=0", want: ListOptions{SendInitialEvents: BoolFalse}},
	{query: "sendInitialEvents=", want: ListOptions{SendInitialEvents: BoolTrue}},
	{query: "sendInitialEvents", want: ListOptions{SendInitialEvents: BoolTrue}},

	// Integers: strconv.ParseInt, the raw Go error as a 400.
	{query: "limit=-5", want: ListOptions{Limit: -5}},
	{query: "limit=%2B5", want: ListOptions{Limit: 5}},
	{query: "limit=+5", err: badRequest(`strconv.ParseInt: parsing " 5": invalid syntax`)},
	{query: "limit=007", want: ListOptions{Limit: 7}},
	{query: "limit=abc", err: badRequest(`strconv.ParseInt: parsing "abc": invalid syntax`)},
	{query: "limit=", err: badRequest(`strconv.ParseInt: parsing "": invalid syntax`)},
	{query: "limit", err: badRequest(`strconv.ParseInt: parsing "": invalid syntax`)},
	{query: "limit=1.5", err: badRequest(`strconv.ParseInt: parsing "1.5": invalid syntax`)},
	{query: "limit=0x10", err: badRequest(`strconv.ParseInt: parsing "0x10": invalid syntax`)},
	{query: "limit=9223372036854775808", err: badRequest(`strconv.ParseInt: parsing "9223372036854775808": value out of range`)},
	{query: "timeoutSeconds=5m", err: badRequest(`strconv.ParseInt: parsing "5m": invalid syntax`)},
	{query: "limit=%20", err: badRequest(`strconv.ParseInt: parsing " ": invalid syntax`)},
	{query: "limit=+", err: badRequest(`strconv.ParseInt: parsing " ": invalid syntax`)},
	// Several bad: the first in ListOptions' field order names the error,
	// whatever the query order.
	{query: "limit=y&timeoutSeconds=x", err: badRequest(`strconv.ParseInt: parsing "x": invalid syntax`)},

	// The first value of a repeated parameter wins.
	{query: "limit=1&limit=2", want: ListOptions{Limit: 1}},
	{query: "limit=1&limit=abc", want: ListOptions{Limit: 1}},
	{query: "limit=abc&limit=1", err: badRequest(`strconv.ParseInt: parsing "abc": invalid syntax`)},
	{query: "watch=0&watch=1", want: ListOptions{}},
	{query: "resourceVersion=&resourceVersion=5", want: ListOptions{}},

	// Escaped names, empty pairs, unknown parameters.
	{query: "resource%56ersion=5", want: ListOptions{ResourceVersion: "5"}},
	{query: "%6c%69%6d%69%74=5", want: ListOptions{Limit: 5}},
	{query: "resourceVersion+=5", want: ListOptions{}},
	{query: "&&limit=5&&", want: ListOptions{Limit: 5}},
	{query: "=5&limit=5", want: ListOptions{Limit: 5}},
	{query: "pretty=true&dryRun=All&timeout=5s&Limit=3&LIMIT=4", want: ListOptions{}},
	{query: "pretty=%zz&limit=5", want: ListOptions{Limit: 5}},
	{query: "lim%zzit=5&limit=6", want: ListOptions{Limit: 6}},
	{query: "a;b=1&limit=5", want: ListOptions{Limit: 5}},
	{query: "resourceVersionMatchX=Exact&resourceVersionMatc=Exact", want: ListOptions{}},
	{query: "resourceVersionMatch%00=Exact", want: ListOptions{}},
	{query: strings.Repeat("%41", 30) + "=1&limit=5", want: ListOptions{Limit: 5}},
	{query: "limit=5&limit=%zz", want: ListOptions{Limit: 5}},

	// Malformed values of parameters in use: a 400, where Kubernetes
	// (url.Values) would silently drop the pair.
	{query: "labelSelector=%zz", escapes: true,
		err: badRequest(`unable to decode query parameter "labelSelector": invalid URL escape "%zz"`)},
	{query: "continue=abc%2", escapes: true,
		err: badRequest(`unable to decode query parameter "continue": invalid URL escape "%2"`)},
	{query: "limit=5;watch=1", escapes: true,
		err: badRequest(`unable to decode query parameter "limit": invalid semicolon separator in query`)},
	{query: "limit=%zz&limit=5", escapes: true,
		err: badRequest(`unable to decode query parameter "limit": invalid URL escape "%zz"`)},
	{query: "labelSelector=%zz&limit=x", escapes: true,
		err: badRequest(`unable to decode query parameter "labelSelector": invalid URL escape "%zz"`)},
}

func TestParseQuery(t *testing.T) {
	for _, tt := range queryTests {
		got, err := ParseQuery(tt.query)
		checkErr(t, "ParseQuery("+tt.query+")", err, tt.err)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseQuery(%q) mismatch (-want +got):\n%s", tt.query, diff)
		}
	}
}

// TestParseValues runs the same table through url.ParseQuery and
// ParseValues, which is what Kubernetes decodes.
func TestParseValues(t *testing.T) {
	for _, tt := range queryTests {
		q, _ := url.ParseQuery(tt.query)
		got, err := ParseValues(q)
		if tt.escapes {
			// url.ParseQuery dropped the malformed pair, so Kubernetes
			// never sees it; ParseQuery's 400 has no url.Values twin.
			if _, ok := err.(*status.Error); err != nil && !ok {
				t.Errorf("ParseValues(%v) = %T; want a *status.Error", q, err)
			}
			continue
		}
		checkErr(t, "ParseValues("+tt.query+")", err, tt.err)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseValues(%v) mismatch (-want +got):\n%s", q, diff)
		}
	}
}

func TestParseValuesEmptySlice(t *testing.T) {
	got, err := ParseValues(url.Values{"limit": nil, "watch": {}})
	if err != nil || got != (ListOptions{}) {
		t.Errorf("ParseValues with empty slices = %+v, %v; want zero, nil", got, err)
	}
}

// TestParseErrorsUnwrap: a bad integer wraps the strconv error, a bad
// escape the url one.
func TestParseErrorsUnwrap(t *testing.T) {
	_, err := ParseQuery("limit=abc")
	if !errors.Is(err, strconv.ErrSyntax) {
		t.Errorf("ParseQuery(limit=abc) = %v; want it to wrap strconv.ErrSyntax", err)
	}
	_, err = ParseQuery("limit=%zz")
	var ee url.EscapeError
	if !errors.As(err, &ee) {
		t.Errorf("ParseQuery(limit=%%zz) = %v; want it to wrap a url.EscapeError", err)
	}
	_, err = ParseQuery("limit=5&resourceVersion=abc")
	if err != nil {
		t.Errorf("ParseQuery keeps resourceVersion raw; got %v", err)
	}
}

// TestParseQueryAliases: values without escapes are substrings of the query,
// not copies (the reason ParseQuery is cheap).
func TestParseQueryAliases(t *testing.T) {
	q := "labelSelector=app&continue=" + strings.Repeat("x", 64)
	allocs := testing.AllocsPerRun(100, func() {
		o, err := ParseQuery(q)
		if err != nil || len(o.Continue) != 64 {
			t.Fatal(o, err)
		}
	})
	if allocs != 0 {
		t.Errorf("ParseQuery allocated %v times; want 0", allocs)
	}
}

func TestParseQueryLong(t *testing.T) {
	// Many parameters: linear, no limit of our own.
	q := strings.Repeat("x=1&", 20000) + "limit=5"
	o, err := ParseQuery(q)
	if err != nil || o.Limit != 5 {
		t.Errorf("ParseQuery(20000 params) = %+v, %v", o, err)
	}
}

// FuzzParseQuery: decoding and resolving any query never panics, every
// error is a *status.Error (400 from decoding, 400 or 422 from resolving),
// and ParseQuery agrees with ParseValues(url.ParseQuery(q)), Kubernetes'
// decoding, whenever ParseQuery accepts the query or url.ParseQuery finds
// nothing malformed.
func FuzzParseQuery(f *testing.F) {
	for _, tt := range queryTests {
		f.Add(tt.query)
	}
	f.Add("limit=500&resourceVersion=123&resourceVersionMatch=NotOlderThan")
	f.Add("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	f.Fuzz(func(t *testing.T, q string) {
		got, err := ParseQuery(q)
		requireStatus(t, "ParseQuery", q, err, 400)

		vals, urlErr := url.ParseQuery(q)
		if urlErr == nil || err == nil {
			if strings.Count(q, "&") >= 10000 {
				return // url.ParseQuery gives up on so many parameters
			}
			ref, refErr := ParseValues(vals)
			if got != ref || (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() {
				t.Fatalf("ParseQuery(%q) = %+v, %v\nParseValues(%v) = %+v, %v", q, got, err, vals, ref, refErr)
			}
		}

		if _, err := ResolveGetQuery(q); err != nil {
			requireStatus(t, "ResolveGetQuery", q, err, 400)
		}
		if err != nil {
			return
		}
		r, err := got.ResolveList()
		requireStatus(t, "ResolveList", q, err, 400, 422)
		if err == nil && (r.Semantics < MostRecent || r.Semantics > ContinueExact || r.Limit < 0) {
			t.Fatalf("ResolveList(%q) = %+v", q, r)
		}
		for _, c := range []Config{{}, {DisableWatchList: true}} {
			w, err := got.ResolveWatch(c)
			requireStatus(t, "ResolveWatch", q, err, 400, 422)
			if err == nil && (w.Start < StartMostRecent || w.Start > StartExact || w.EndBookmark && !w.InitialEvents) {
				t.Fatalf("ResolveWatch(%q, %+v) = %+v", q, c, w)
			}
		}
	})
}

func requireStatus(t *testing.T, call, q string, err error, codes ...int) {
	t.Helper()
	if err == nil {
		return
	}
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("%s(%q) = %T %v; want a *status.Error", call, q, err, err)
	}
	for _, c := range codes {
		if se.Code() == c {
			return
		}
	}
	t.Fatalf("%s(%q) = %d %v; want a code in %v", call, q, se.Code(), err, codes)
}

// FuzzScanQuery: a scanned query's methods decode as ParseQuery and
// ResolveGetQuery do, Watch agrees with the decoded options wherever they
// decode, and the pairs given to other are exactly url.ParseQuery's minus
// the ListOptions parameters.
func FuzzScanQuery(f *testing.F) {
	for _, tt := range queryTests {
		f.Add(tt.query)
	}
	f.Add("w%61tch=1&dryRun=All&dryRun=%zz&fieldManager=a+b&force&x;y=1&&=v")
	f.Add("limit=x&watch=true&timeout=5s&propagationPolicy=Orphan")
	f.Fuzz(func(t *testing.T, q string) {
		if strings.Count(q, "&") >= 10000 {
			return // url.ParseQuery gives up on so many parameters
		}
		others := url.Values{}
		sq := ScanQuery(q, func(name, value string) { others[name] = append(others[name], value) })

		got, err := sq.ListOptions()
		want, wantErr := ParseQuery(q)
		if got != want || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("ScanQuery(%q).ListOptions() = %+v, %v; ParseQuery = %+v, %v", q, got, err, want, wantErr)
		}
		if err == nil && sq.Watch() != got.Watch {
			t.Fatalf("ScanQuery(%q).Watch() = %v; ListOptions().Watch = %v", q, sq.Watch(), got.Watch)
		}
		rd, err := sq.ResolveGet()
		wantRd, wantErr := ResolveGetQuery(q)
		if rd != wantRd || (err == nil) != (wantErr == nil) {
			t.Fatalf("ScanQuery(%q).ResolveGet() = %+v, %v; ResolveGetQuery = %+v, %v", q, rd, err, wantRd, wantErr)
		}

		vals, _ := url.ParseQuery(q)
		for _, name := range paramNames {
			delete(vals, name)
		}
		if len(vals) == 0 && len(others) == 0 {
			return
		}
		if !reflect.DeepEqual(vals, others) {
			t.Fatalf("ScanQuery(%q) gave other %v; url.ParseQuery has %v", q, others, vals)
		}
	})
}

// TestScanQueryWatch: the watch decision survives a malformed neighbour,
// and an escaped name is the parameter it spells.
func TestScanQueryWatch(t *testing.T) {
	tests := []struct {
		query string
		want  bool
	}{
		{"", false},
		{"watch", true},
		{"watch=0", false},
		{"watch=FALSE", false},
		{"w%61tch=1", true},
		{"watch=1&limit=x", true},
		{"watch=%zz", false},
		{"watch=false&watch=true", false},
	}
	for _, tt := range tests {
		q := ScanQuery(tt.query, nil)
		if got := q.Watch(); got != tt.want {
			t.Errorf("ScanQuery(%q).Watch() = %v; want %v", tt.query, got, tt.want)
		}
	}
}
