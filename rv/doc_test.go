package rv

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/apisem/apisem/status"
)

// The package documentation's tables are rendered here from the code and
// must appear verbatim in doc.go, so the worked examples cannot drift from
// what the resolvers do. (The expectations themselves, with full error
// texts, are the rows of listTests, watchTests and getTests.)

// footnotes names each error the tables show, with its HTTP code.
var footnotes = map[string]struct {
	note string
	code int
}{
	"specifying resource version is not allowed when using continue":                        {"a", 400},
	"resourceVersionMatch is forbidden unless resourceVersion is provided":                  {"b", 422},
	`resourceVersionMatch "exact" is forbidden for resourceVersion "0"`:                     {"c", 422},
	"resourceVersionMatch is forbidden when continue is provided":                           {"d", 422},
	"resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided":      {"e", 422},
	"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan":               {"f", 422},
	"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled": {"g", 422},
	"invalid resource version": {"h", 400},
}

// errCell renders an error as its code and footnotes: "422 (b,d)".
func errCell(t *testing.T, err error) string {
	t.Helper()
	var se *status.Error
	if !errors.As(err, &se) {
		t.Fatalf("error %v is not a *status.Error", err)
	}
	var notes []string
	if d := se.Status.Details; d != nil {
		for _, c := range d.Causes {
			_, detail, _ := strings.Cut(c.Message, ": ")
			notes = append(notes, footnote(t, detail))
		}
	} else {
		msg, _, _ := strings.Cut(se.Error(), ": ")
		notes = append(notes, footnote(t, msg))
	}
	return strconv.Itoa(se.Code()) + " (" + strings.Join(notes, ",") + ")"
}

func footnote(t *testing.T, msg string) string {
	t.Helper()
	n, ok := footnotes[msg]
	if !ok {
		t.Fatalf("no footnote for %q", msg)
	}
	return n.note
}

func readCell(t *testing.T, r Read, err error) string {
	if err != nil {
		return errCell(t, err)
	}
	s := r.Semantics.String()
	if r.Version != 0 {
		s += " " + r.Version.String()
	}
	return s
}

func watchCell(t *testing.T, w Watch, err error) string {
	if err != nil {
		return errCell(t, err)
	}
	s := w.Start.String()
	if w.Version != 0 {
		s += " " + w.Version.String()
	}
	if w.InitialEvents {
		s += "+init"
	}
	if w.EndBookmark {
		s += "+end"
	}
	return s
}

var docVersions = []string{"", "0", "5"}

func table(rows [][]string) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		tw.Write([]byte(strings.Join(r, "\t") + "\n"))
	}
	tw.Flush()
	// tabwriter pads the last cells too; doc comments must not end in
	// spaces.
	// spaces. Each line is indented as a doc comment code block is.
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i := range lines {
		lines[i] = "\t" + strings.TrimRight(lines[i], " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func renderGetTable(t *testing.T) string {
	rows := [][]string{{`rv=""`, `rv="0"`, `rv="5"`, `rv="abc"`}, nil}
	for _, v := range append(docVersions, "abc") {
		r, err := ResolveGet(v)
		rows[1] = append(rows[1], readCell(t, r, err))
	}
	return table(rows)
}

func renderListTable(t *testing.T) string {
	rows := [][]string{{"resourceVersionMatch", "paging", `rv=""`, `rv="0"`, `rv="5"`}}
	pagings := []struct {
		name  string
		limit int64
		cont  string
	}{{"-", 0, ""}, {"limit=500", 500, ""}, {"limit=500&continue", 500, "tok"}}
	for _, m := range []Match{MatchUnset, MatchExact, MatchNotOlderThan} {
		for _, p := range pagings {
			name := string(m)
			if m == MatchUnset {
				name = "unset"
			}
			row := []string{name, p.name}
			for _, v := range docVersions {
				o := ListOptions{ResourceVersionMatch: m, ResourceVersion: v, Limit: p.limit, Continue: p.cont}
				r, err := o.ResolveList()
				row = append(row, readCell(t, r, err))
			}
			rows = append(rows, row)
		}
	}
	return table(rows)
}

func renderWatchTable(t *testing.T) string {
	rows := [][]string{{"WatchList", "sendInitialEvents", "resourceVersionMatch", `rv=""`, `rv="0"`, `rv="5"`}}
	for _, c := range []struct {
		cfg Config
		sie OptBool
		m   Match
	}{
		{Config{}, BoolUnset, MatchUnset},
		{Config{}, BoolTrue, MatchNotOlderThan},
		{Config{}, BoolFalse, MatchNotOlderThan},
		{Config{}, BoolUnset, MatchNotOlderThan},
		{Config{}, BoolTrue, MatchUnset},
		{watchListOff, BoolUnset, MatchUnset},
		{watchListOff, BoolTrue, MatchNotOlderThan},
	} {
		gate, m := "on", string(c.m)
		if c.cfg.DisableWatchList {
			gate = "off"
		}
		if m == "" {
			m = "unset"
		}
		row := []string{gate, c.sie.String(), m}
		for _, v := range docVersions {
			o := ListOptions{Watch: true, AllowWatchBookmarks: true, SendInitialEvents: c.sie, ResourceVersionMatch: c.m, ResourceVersion: v}
			w, err := o.ResolveWatch(c.cfg)
			row = append(row, watchCell(t, w, err))
		}
		rows = append(rows, row)
	}
	return table(rows)
}

// TestDocTables checks that doc.go shows each table exactly as the code
// resolves it. Run with -v to print the tables.
func TestDocTables(t *testing.T) {
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var doc strings.Builder
	for _, line := range strings.Split(string(src), "\n") {
		if c, ok := strings.CutPrefix(line, "//"); ok {
			doc.WriteString(c + "\n")
		}
	}
	for msg, n := range footnotes {
		want := "\t(" + n.note + ") " + strconv.Itoa(n.code) + " " + msg
		if !strings.Contains(doc.String(), want) {
			t.Errorf("doc.go lacks the footnote %q", want)
		}
	}
	for _, tab := range []struct{ name, text string }{
		{"get", renderGetTable(t)},
		{"list", renderListTable(t)},
		{"watch", renderWatchTable(t)},
	} {
		t.Logf("%s table:\n%s", tab.name, tab.text)
		if !strings.Contains(doc.String(), tab.text) {
			t.Errorf("doc.go does not show the %s table as the code resolves it; want:\n%s", tab.name, tab.text)
		}
	}
}
