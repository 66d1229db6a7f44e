package rv

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/apisem/apisem/status"
	"github.com/google/go-cmp/cmp"
)

// The texts of the errors the tables below expect, Kubernetes' own.
const (
	invalidPrefix        = `ListOptions.meta.k8s.io "" is invalid: `
	msgContinueWithRV    = "specifying resource version is not allowed when using continue"
	fMatchWithoutRV      = "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
	fMatchWithContinue   = "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"
	fExactZero           = `resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`
	fInitialEventsList   = "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"
	fInitialEventsMatch  = "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
	fInitialEventsGate   = "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"
	fWatchMatchWithout   = "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"
	fWatchMatchExact     = `resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"`
	fListMatchUnknownFoo = `resourceVersionMatch: Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""`
)

// wantErr describes an expected *status.Error: its code and full message.
type wantErr struct {
	code int
	msg  string
}

// invalid422 is the 422 Kubernetes builds from the given field errors.
func invalid422(fieldErrs ...string) *wantErr {
	if len(fieldErrs) == 1 {
		return &wantErr{422, invalidPrefix + fieldErrs[0]}
	}
	msg := invalidPrefix + "["
	for i, e := range fieldErrs {
		if i > 0 {
			msg += ", "
		}
		msg += e
	}
	return &wantErr{422, msg + "]"}
}

func badRequest(msg string) *wantErr { return &wantErr{400, msg} }

func badRV(s, reason string) *wantErr {
	return badRequest(`invalid resource version: resourceVersion: Invalid value: "` + s +
		`": strconv.ParseUint: parsing "` + s + `": ` + reason)
}

// checkErr fails t unless err matches want (nil meaning no error).
func checkErr(t *testing.T, call string, err error, want *wantErr) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("%s = error %q; want success", call, err)
		}
		return
	}
	var se *status.Error
	if !errors.As(err, &se) {
		t.Errorf("%s = error %v (%T); want *status.Error %d %q", call, err, err, want.code, want.msg)
		return
	}
	if se.Code() != want.code || se.Error() != want.msg {
		t.Errorf("%s = error %d %q; want %d %q", call, se.Code(), se.Error(), want.code, want.msg)
	}
	wantReason := map[int]status.Reason{400: status.ReasonBadRequest, 422: status.ReasonInvalid}[want.code]
	if !errors.Is(err, wantReason) {
		t.Errorf("%s: errors.Is(err, %s) = false", call, wantReason)
	}
}

var listTests = []struct {
	name string
	opts ListOptions
	want Read
	err  *wantErr
}{
	// The spec's "resourceVersionMatch and paging parameters for list"
	// table, row by row, cell by cell.
	{"spec: match unset, limit unset, rv unset: Most Recent",
		ListOptions{}, Read{Semantics: MostRecent}, nil},
	{`spec: match unset, limit unset, rv "0": Any`,
		ListOptions{ResourceVersion: "0"}, Read{Semantics: Any}, nil},
	{`spec: match unset, limit unset, rv N: Not older than`,
		ListOptions{ResourceVersion: "5"}, Read{Semantics: NotOlderThan, Version: 5}, nil},
	{"spec: match unset, limit, rv unset: Most Recent",
		ListOptions{Limit: 500}, Read{Semantics: MostRecent, Limit: 500}, nil},
	{`spec: match unset, limit, rv "0": Any (apisem keeps the limit)`,
		ListOptions{Limit: 500, ResourceVersion: "0"}, Read{Semantics: Any, Limit: 500}, nil},
	{"spec: match unset, limit, rv N: Exact (legacy)",
		ListOptions{Limit: 500, ResourceVersion: "5"}, Read{Semantics: Exact, Version: 5, Limit: 500}, nil},
	{"spec: match unset, limit+continue, rv unset: Continue Token, Exact",
		ListOptions{Limit: 500, Continue: "tok"}, Read{Semantics: ContinueExact, Continue: "tok", Limit: 500}, nil},
	{`spec: match unset, limit+continue, rv "0": Invalid, treated as Continue Token, Exact`,
		ListOptions{Limit: 500, Continue: "tok", ResourceVersion: "0"}, Read{Semantics: ContinueExact, Continue: "tok", Limit: 500}, nil},
	{"spec: match unset, limit+continue, rv N: Invalid, 400",
		ListOptions{Limit: 500, Continue: "tok", ResourceVersion: "5"}, Read{}, badRequest(msgContinueWithRV)},
	{"spec: Exact, limit unset, rv unset: Invalid",
		ListOptions{ResourceVersionMatch: MatchExact}, Read{}, invalid422(fMatchWithoutRV)},
	{`spec: Exact, limit unset, rv "0": Invalid`,
		ListOptions{ResourceVersionMatch: MatchExact, ResourceVersion: "0"}, Read{}, invalid422(fExactZero)},
	{"spec: Exact, limit unset, rv N: Exact",
		ListOptions{ResourceVersionMatch: MatchExact, ResourceVersion: "5"}, Read{Semantics: Exact, Version: 5}, nil},
	{"spec: Exact, limit, rv unset: Invalid",
		ListOptions{ResourceVersionMatch: MatchExact, Limit: 500}, Read{}, invalid422(fMatchWithoutRV)},
	{`spec: Exact, limit, rv "0": Invalid`,
		ListOptions{ResourceVersionMatch: MatchExact, Limit: 500, ResourceVersion: "0"}, Read{}, invalid422(fExactZero)},
	{"spec: Exact, limit, rv N: Exact",
		ListOptions{ResourceVersionMatch: MatchExact, Limit: 500, ResourceVersion: "5"}, Read{Semantics: Exact, Version: 5, Limit: 500}, nil},
	{"spec: NotOlderThan, limit unset, rv unset: Invalid",
		ListOptions{ResourceVersionMatch: MatchNotOlderThan}, Read{}, invalid422(fMatchWithoutRV)},
	{`spec: NotOlderThan, limit unset, rv "0": Any`,
		ListOptions{ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "0"}, Read{Semantics: Any}, nil},
	{"spec: NotOlderThan, limit unset, rv N: Not older than",
		ListOptions{ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "5"}, Read{Semantics: NotOlderThan, Version: 5}, nil},
	{"spec: NotOlderThan, limit, rv unset: Invalid",
		ListOptions{ResourceVersionMatch: MatchNotOlderThan, Limit: 500}, Read{}, invalid422(fMatchWithoutRV)},
	{`spec: NotOlderThan, limit, rv "0": Any`,
		ListOptions{ResourceVersionMatch: MatchNotOlderThan, Limit: 500, ResourceVersion: "0"}, Read{Semantics: Any, Limit: 500}, nil},
	{"spec: NotOlderThan, limit, rv N: Not older than",
		ListOptions{ResourceVersionMatch: MatchNotOlderThan, Limit: 500, ResourceVersion: "5"}, Read{Semantics: NotOlderThan, Version: 5, Limit: 500}, nil},

	// The remaining ListOptions rules, alone and together
	// (several are one 422 listing each, in Kubernetes' order).
	{"validation: Exact with continue",
		ListOptions{ResourceVersionMatch: MatchExact, ResourceVersion: "5", Continue: "tok"}, Read{}, invalid422(fMatchWithContinue)},
	{"validation: NotOlderThan with continue and no rv",
		ListOptions{ResourceVersionMatch: MatchNotOlderThan, Continue: "tok", Limit: 500}, Read{}, invalid422(fMatchWithoutRV, fMatchWithContinue)},
	{"validation: unsupported match",
		ListOptions{ResourceVersionMatch: "foo", ResourceVersion: "5"}, Read{}, invalid422(fListMatchUnknownFoo)},
	{"validation: match is case-sensitive",
		ListOptions{ResourceVersionMatch: "exact", ResourceVersion: "5"}, Read{},
		invalid422(`resourceVersionMatch: Unsupported value: "exact": supported values: "Exact", "NotOlderThan", ""`)},
	{"validation: unsupported match, no rv, continue",
		ListOptions{ResourceVersionMatch: "foo", Continue: "tok"}, Read{}, invalid422(fMatchWithoutRV, fMatchWithContinue, fListMatchUnknownFoo)},
	{"validation: sendInitialEvents=true on a list",
		ListOptions{SendInitialEvents: BoolTrue}, Read{}, invalid422(fInitialEventsList)},
	{"validation: sendInitialEvents=false on a list (any value is forbidden)",
		ListOptions{SendInitialEvents: BoolFalse, ResourceVersion: "5"}, Read{}, invalid422(fInitialEventsList)},
	{`validation: Exact "0" and sendInitialEvents`,
		ListOptions{ResourceVersionMatch: MatchExact, ResourceVersion: "0", SendInitialEvents: BoolTrue}, Read{}, invalid422(fExactZero, fInitialEventsList)},
	{"validation: before the continue check",
		ListOptions{ResourceVersionMatch: MatchExact, ResourceVersion: "5", Continue: "tok", Limit: 1}, Read{}, invalid422(fMatchWithContinue)},

	// Storage-level checks (k8s.io/apiserver/pkg/storage/interfaces.go).
	{"storage: continue without limit reads the rest of the snapshot",
		ListOptions{Continue: "tok"}, Read{Semantics: ContinueExact, Continue: "tok"}, nil},
	{"storage: continue with a non-numeric rv is the continue 400, not the parse 400",
		ListOptions{Continue: "tok", ResourceVersion: "abc"}, Read{}, badRequest(msgContinueWithRV)},
	{"parse: non-numeric rv",
		ListOptions{ResourceVersion: "abc"}, Read{}, badRV("abc", "invalid syntax")},
	{"parse: non-numeric rv with NotOlderThan passes validation, then is a 400",
		ListOptions{ResourceVersion: "abc", ResourceVersionMatch: MatchNotOlderThan}, Read{}, badRV("abc", "invalid syntax")},
	{"parse: negative rv",
		ListOptions{ResourceVersion: "-1", Limit: 5}, Read{}, badRV("-1", "invalid syntax")},
	{"parse: rv beyond uint64",
		ListOptions{ResourceVersion: "18446744073709551616"}, Read{}, badRV("18446744073709551616", "value out of range")},
	{"parse: largest rv",
		ListOptions{ResourceVersion: "18446744073709551615", ResourceVersionMatch: MatchExact},
		Read{Semantics: Exact, Version: math.MaxUint64}, nil},

	// apisem decisions.
	{"negative limit means no paging: rv N is Not older than",
		ListOptions{Limit: -1, ResourceVersion: "5"}, Read{Semantics: NotOlderThan, Version: 5}, nil},
	{`"00" is "0": Any`,
		ListOptions{ResourceVersion: "00", Limit: 500}, Read{Semantics: Any, Limit: 500}, nil},
	{`"00" is "0": Exact is invalid`,
		ListOptions{ResourceVersion: "00", ResourceVersionMatch: MatchExact}, Read{}, invalid422(fExactZero)},
	{`"00" is "0": tolerated with continue`,
		ListOptions{ResourceVersion: "00", Continue: "tok"}, Read{Semantics: ContinueExact, Continue: "tok"}, nil},
	{"watch options are ignored by a list",
		ListOptions{Watch: true, AllowWatchBookmarks: true, TimeoutSeconds: 30, ResourceVersion: "5"},
		Read{Semantics: NotOlderThan, Version: 5}, nil},
}

func TestResolveList(t *testing.T) {
	for _, tt := range listTests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			got, err := o.ResolveList()
			checkErr(t, "ResolveList", err, tt.err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveList(%+v) mismatch (-want +got):\n%s", tt.opts, diff)
			}
			if o != tt.opts {
				t.Errorf("ResolveList changed its options to %+v", o)
			}
		})
	}
}

var getTests = []struct {
	rv   string
	want Read
	err  *wantErr
}{
	// The spec's get table.
	{"", Read{Semantics: MostRecent}, nil},
	{"0", Read{Semantics: Any}, nil},
	{"5", Read{Semantics: NotOlderThan, Version: 5}, nil},
	// Parse errors, with the 400 of etcd (see ResolveGet).
	{"abc", Read{}, badRV("abc", "invalid syntax")},
	{"+5", Read{}, badRV("+5", "invalid syntax")},
	{" 5", Read{}, badRV(" 5", "invalid syntax")},
	{"0x5", Read{}, badRV("0x5", "invalid syntax")},
	{"1_000", Read{}, badRV("1_000", "invalid syntax")},
	{"18446744073709551616", Read{}, badRV("18446744073709551616", "value out of range")},
	{"000", Read{Semantics: Any}, nil},
	{"007", Read{Semantics: NotOlderThan, Version: 7}, nil},
}

func TestResolveGet(t *testing.T) {
	for _, tt := range getTests {
		got, err := ResolveGet(tt.rv)
		checkErr(t, "ResolveGet("+tt.rv+")", err, tt.err)
		if got != tt.want {
			t.Errorf("ResolveGet(%q) = %+v; want %+v", tt.rv, got, tt.want)
		}
	}
}

func TestResolveGetQuery(t *testing.T) {
	tests := []struct {
		query string
		want  Read
		err   *wantErr
	}{
		{"", Read{Semantics: MostRecent}, nil},
		{"resourceVersion=0", Read{Semantics: Any}, nil},
		{"resourceVersion=7&resourceVersion=9", Read{Semantics: NotOlderThan, Version: 7}, nil},
		{"limit=abc&watch=maybe&resource%56ersion=5", Read{Semantics: NotOlderThan, Version: 5}, nil},
		{"resourceVersion=abc", Read{}, badRV("abc", "invalid syntax")},
		{"resourceVersion=%zz", Read{}, badRequest(`unable to decode query parameter "resourceVersion": invalid URL escape "%zz"`)},
	}
	for _, tt := range tests {
		got, err := ResolveGetQuery(tt.query)
		checkErr(t, "ResolveGetQuery("+tt.query+")", err, tt.err)
		if got != tt.want {
			t.Errorf("ResolveGetQuery(%q) = %+v; want %+v", tt.query, got, tt.want)
		}
	}
}

var watchListOff = Config{DisableWatchList: true}

var watchTests = []struct {
	name string
	cfg  Config
	opts ListOptions
	want Watch
	err  *wantErr
}{
	// The spec's watch table, after Kubernetes' defaulting, as its watch
	// cache serves it.
	{"spec: rv unset: Get State and Start at Most Recent (defaulted to a watch-list)", Config{},
		ListOptions{Watch: true}, Watch{Start: StartMostRecent, InitialEvents: true}, nil},
	{`spec: rv "0": Get State and Start at Any (defaulted to a watch-list)`, Config{},
		ListOptions{Watch: true, ResourceVersion: "0"}, Watch{Start: StartAny, InitialEvents: true}, nil},
	{"spec: rv N: Start at Exact", Config{},
		ListOptions{Watch: true, ResourceVersion: "5"}, Watch{Start: StartExact, Version: 5}, nil},
	{"defaulting: watch-list with bookmarks ends its initial events with a bookmark", Config{},
		ListOptions{Watch: true, AllowWatchBookmarks: true},
		Watch{Start: StartMostRecent, InitialEvents: true, EndBookmark: true, Bookmarks: true}, nil},
	{`defaulting: watch-list at "0" with bookmarks`, Config{},
		ListOptions{Watch: true, AllowWatchBookmarks: true, ResourceVersion: "0"},
		Watch{Start: StartAny, InitialEvents: true, EndBookmark: true, Bookmarks: true}, nil},
	{"watch cache: rv N with bookmarks (the reflector's resumed watch)", Config{},
		ListOptions{Watch: true, AllowWatchBookmarks: true, ResourceVersion: "5", TimeoutSeconds: 413},
		Watch{Start: StartExact, Version: 5, Bookmarks: true, Timeout: 413 * time.Second}, nil},

	// Explicit sendInitialEvents.
	{"watch cache: sendInitialEvents=true, NotOlderThan, rv unset", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan, AllowWatchBookmarks: true},
		Watch{Start: StartMostRecent, InitialEvents: true, EndBookmark: true, Bookmarks: true}, nil},
	{`watch cache: sendInitialEvents=true, NotOlderThan, rv "0"`, Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "0", AllowWatchBookmarks: true},
		Watch{Start: StartAny, InitialEvents: true, EndBookmark: true, Bookmarks: true}, nil},
	{"watch cache: sendInitialEvents=true, NotOlderThan, rv N", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "5", AllowWatchBookmarks: true},
		Watch{Start: StartNotOlderThan, Version: 5, InitialEvents: true, EndBookmark: true, Bookmarks: true}, nil},
	{"no end bookmark without allowWatchBookmarks", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "5"},
		Watch{Start: StartNotOlderThan, Version: 5, InitialEvents: true}, nil},
	{"watch cache: sendInitialEvents=false, NotOlderThan, rv unset", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolFalse, ResourceVersionMatch: MatchNotOlderThan, AllowWatchBookmarks: true},
		Watch{Start: StartMostRecent, Bookmarks: true}, nil},
	{`watch cache: sendInitialEvents=false, NotOlderThan, rv "0"`, Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolFalse, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "0"},
		Watch{Start: StartAny}, nil},
	{"watch cache: sendInitialEvents=false, NotOlderThan, rv N", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolFalse, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "5", AllowWatchBookmarks: true},
		Watch{Start: StartExact, Version: 5, Bookmarks: true}, nil},

	// WatchList off, the legacy watch.
	{"watch cache: WatchList off, rv unset: legacy initial events, no end bookmark", watchListOff,
		ListOptions{Watch: true, AllowWatchBookmarks: true},
		Watch{Start: StartMostRecent, InitialEvents: true, Bookmarks: true}, nil},
	{`watch cache: WatchList off, rv "0": legacy initial events`, watchListOff,
		ListOptions{Watch: true, ResourceVersion: "0"}, Watch{Start: StartAny, InitialEvents: true}, nil},
	{"watch cache: WatchList off, rv N", watchListOff,
		ListOptions{Watch: true, ResourceVersion: "5"}, Watch{Start: StartExact, Version: 5}, nil},

	// Every watch rule.
	{"validation: match without sendInitialEvents", Config{},
		ListOptions{Watch: true, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "5"}, Watch{}, invalid422(fWatchMatchWithout)},
	{"validation: match without sendInitialEvents is not defaulted", Config{},
		ListOptions{Watch: true, ResourceVersionMatch: MatchNotOlderThan}, Watch{}, invalid422(fWatchMatchWithout)},
	{"validation: sendInitialEvents without match", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersion: "5"}, Watch{}, invalid422(fInitialEventsMatch)},
	{"validation: sendInitialEvents without match is not defaulted", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolFalse}, Watch{}, invalid422(fInitialEventsMatch)},
	{"validation: sendInitialEvents with Exact", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchExact, ResourceVersion: "5"},
		Watch{}, invalid422(fInitialEventsMatch, fWatchMatchExact)},
	{"validation: Exact without sendInitialEvents", Config{},
		ListOptions{Watch: true, ResourceVersionMatch: MatchExact, ResourceVersion: "5"},
		Watch{}, invalid422(fWatchMatchWithout, fWatchMatchExact)},
	{"validation: match with continue", Config{},
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan, Continue: "tok"},
		Watch{}, invalid422(fMatchWithContinue)},
	{"validation: defaulting sets the match, so continue with rv unset is refused", Config{},
		ListOptions{Watch: true, Continue: "tok"}, Watch{}, invalid422(fMatchWithContinue)},
	{"validation: WatchList off: sendInitialEvents forbidden", watchListOff,
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan},
		Watch{}, invalid422(fInitialEventsGate)},
	{"validation: WatchList off: sendInitialEvents=false forbidden too", watchListOff,
		ListOptions{Watch: true, SendInitialEvents: BoolFalse, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "5"},
		Watch{}, invalid422(fInitialEventsGate)},
	{"validation: WatchList off: sendInitialEvents without match", watchListOff,
		ListOptions{Watch: true, SendInitialEvents: BoolTrue},
		Watch{}, invalid422(fInitialEventsMatch, fInitialEventsGate)},
	{"validation: WatchList off: match without sendInitialEvents", watchListOff,
		ListOptions{Watch: true, ResourceVersionMatch: MatchNotOlderThan, ResourceVersion: "0"},
		Watch{}, invalid422(fWatchMatchWithout)},
	{"validation: every watch rule at once", watchListOff,
		ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: "foo", Continue: "tok"},
		Watch{}, invalid422(fInitialEventsMatch, fInitialEventsGate,
			`resourceVersionMatch: Unsupported value: "foo": supported values: "NotOlderThan"`, fMatchWithContinue)},

	// What a watch does not validate.
	{"validation: limit is ignored", Config{},
		ListOptions{Watch: true, ResourceVersion: "5", Limit: 500}, Watch{Start: StartExact, Version: 5}, nil},
	{"validation: continue without a match is ignored", Config{},
		ListOptions{Watch: true, ResourceVersion: "5", Continue: "tok"}, Watch{Start: StartExact, Version: 5}, nil},
	{"validation: continue is ignored by a legacy watch", watchListOff,
		ListOptions{Watch: true, Continue: "tok"}, Watch{Start: StartMostRecent, InitialEvents: true}, nil},

	// Parse errors come after validation.
	{"parse: non-numeric rv", Config{},
		ListOptions{Watch: true, ResourceVersion: "abc"}, Watch{}, badRV("abc", "invalid syntax")},
	{"parse: non-numeric rv in a watch-list", Config{},
		ListOptions{Watch: true, ResourceVersion: "abc", SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan},
		Watch{}, badRV("abc", "invalid syntax")},
	{"parse: validation first", Config{},
		ListOptions{Watch: true, ResourceVersion: "abc", ResourceVersionMatch: MatchNotOlderThan}, Watch{}, invalid422(fWatchMatchWithout)},

	// timeoutSeconds and apisem decisions.
	{"timeoutSeconds", Config{},
		ListOptions{Watch: true, ResourceVersion: "5", TimeoutSeconds: 30},
		Watch{Start: StartExact, Version: 5, Timeout: 30 * time.Second}, nil},
	{"negative timeoutSeconds stays negative", Config{},
		ListOptions{Watch: true, ResourceVersion: "5", TimeoutSeconds: -1},
		Watch{Start: StartExact, Version: 5, Timeout: -time.Second}, nil},
	{"huge timeoutSeconds saturates", Config{},
		ListOptions{Watch: true, ResourceVersion: "5", TimeoutSeconds: math.MaxInt64},
		Watch{Start: StartExact, Version: 5, Timeout: math.MaxInt64}, nil},
	{"hugely negative timeoutSeconds saturates", Config{},
		ListOptions{Watch: true, ResourceVersion: "5", TimeoutSeconds: math.MinInt64},
		Watch{Start: StartExact, Version: 5, Timeout: math.MinInt64}, nil},
	{`"00" is "0": defaulted`, Config{},
		ListOptions{Watch: true, ResourceVersion: "00"}, Watch{Start: StartAny, InitialEvents: true}, nil},
	{"ResolveWatch uses the watch rules without watch=true", Config{},
		ListOptions{ResourceVersion: "5", SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan},
		Watch{Start: StartNotOlderThan, Version: 5, InitialEvents: true}, nil},
}

func TestResolveWatch(t *testing.T) {
	for _, tt := range watchTests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.opts
			got, err := o.ResolveWatch(tt.cfg)
			checkErr(t, "ResolveWatch", err, tt.err)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveWatch(%+v, %+v) mismatch (-want +got):\n%s", tt.opts, tt.cfg, diff)
			}
			if o != tt.opts {
				t.Errorf("ResolveWatch changed its options to %+v", o)
			}
		})
	}
}

// TestValidateMatchesResolve checks that Validate, after Default, gives
// the same 422s as the resolvers, for every row of both tables.
func TestValidateMatchesResolve(t *testing.T) {
	for _, tt := range listTests {
		o := tt.opts
		o.Watch = false
		err := o.Validate(Config{})
		if tt.err != nil && tt.err.code == 422 {
			checkErr(t, tt.name+": Validate", err, tt.err)
		} else if err != nil {
			t.Errorf("%s: Validate = %v; want nil", tt.name, err)
		}
	}
	for _, tt := range watchTests {
		o := tt.opts
		o.Watch = true
		o.Default(tt.cfg)
		err := o.Validate(tt.cfg)
		if tt.err != nil && tt.err.code == 422 {
			checkErr(t, tt.name+": Validate", err, tt.err)
		} else if err != nil {
			t.Errorf("%s: Validate = %v; want nil", tt.name, err)
		}
	}
}

func TestDefault(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		in   ListOptions
		want ListOptions
	}{
		{"watch, rv unset", Config{}, ListOptions{Watch: true},
			ListOptions{Watch: true, SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan}},
		{`watch, rv "0"`, Config{}, ListOptions{Watch: true, ResourceVersion: "0"},
			ListOptions{Watch: true, ResourceVersion: "0", SendInitialEvents: BoolTrue, ResourceVersionMatch: MatchNotOlderThan}},
		{"watch, rv N: unchanged", Config{}, ListOptions{Watch: true, ResourceVersion: "5"},
			ListOptions{Watch: true, ResourceVersion: "5"}},
		{"watch with sendInitialEvents=false: unchanged", Config{}, ListOptions{Watch: true, SendInitialEvents: BoolFalse},
			ListOptions{Watch: true, SendInitialEvents: BoolFalse}},
		{"watch with a match: unchanged", Config{}, ListOptions{Watch: true, ResourceVersionMatch: MatchExact},
			ListOptions{Watch: true, ResourceVersionMatch: MatchExact}},
		{"list: unchanged", Config{}, ListOptions{}, ListOptions{}},
		{"WatchList off: unchanged", watchListOff, ListOptions{Watch: true}, ListOptions{Watch: true}},
	}
	for _, tt := range tests {
		got := tt.in
		got.Default(tt.cfg)
		if got != tt.want {
			t.Errorf("%s: Default(%+v) = %+v; want %+v", tt.name, tt.in, got, tt.want)
		}
	}
}

// TestInvalidJSON pins the wire form of the two kinds of 422 cause.
func TestInvalidJSON(t *testing.T) {
	o := ListOptions{ResourceVersionMatch: "foo"}
	_, err := o.ResolveList()
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("ResolveList = %v; want a *status.Error", err)
	}
	want := &status.Details{Group: "meta.k8s.io", Kind: "ListOptions", Causes: []status.Cause{
		{Type: status.CauseTypeFieldValueForbidden, Field: "resourceVersionMatch",
			Message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{Type: status.CauseTypeFieldValueNotSupported, Field: "resourceVersionMatch",
			Message: `Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""`},
	}}
	if diff := cmp.Diff(want, se.Status.Details); diff != "" {
		t.Errorf("details mismatch (-want +got):\n%s", diff)
	}
}

func TestOptBool(t *testing.T) {
	for _, tt := range []struct {
		b          OptBool
		set, value bool
		s          string
	}{
		{BoolUnset, false, false, "unset"},
		{BoolFalse, true, false, "false"},
		{BoolTrue, true, true, "true"},
		{OptBool(7), true, false, "OptBool(?)"},
	} {
		if tt.b.IsSet() != tt.set || tt.b.Value() != tt.value || tt.b.String() != tt.s {
			t.Errorf("OptBool %d: IsSet %v Value %v String %q; want %v %v %q",
				tt.b, tt.b.IsSet(), tt.b.Value(), tt.b.String(), tt.set, tt.value, tt.s)
		}
	}
	if OptBoolOf(true) != BoolTrue || OptBoolOf(false) != BoolFalse {
		t.Error("OptBoolOf is wrong")
	}
}

func TestStrings(t *testing.T) {
	if s := Semantics(0).String(); s != "" {
		t.Errorf("Semantics(0) = %q", s)
	}
	if s := ContinueExact.String(); s != "ContinueExact" {
		t.Errorf("ContinueExact = %q", s)
	}
	if s := Semantics(99).String(); s != "Semantics(?)" {
		t.Errorf("Semantics(99) = %q", s)
	}
	if s := StartNotOlderThan.String(); s != "StartNotOlderThan" {
		t.Errorf("StartNotOlderThan = %q", s)
	}
	if s := WatchStart(99).String(); s != "WatchStart(?)" {
		t.Errorf("WatchStart(99) = %q", s)
	}
}
