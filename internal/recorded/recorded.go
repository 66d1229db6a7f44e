package recorded

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apisem/apisem/server/servertest"
)

// Exchange is one recorded request and its answer. The request names
// one object: by the URL, or for a POST by the "  name: " line of its
// YAML body.
type Exchange struct {
	Name string `json:"name"` // what the request shows, for failures
	Kind string `json:"kind"`
	// Before is sent first by fieldManager "test", to make the object
	// exist: server-side applied when Method is PATCH, else POSTed to its
	// collection; it must answer 201.
	Before      string `json:"before,omitempty"`
	Method      string `json:"method"`
	Path        string `json:"path"` // with its query
	ContentType string `json:"contentType"`
	// Body is sent with "RV" replaced by the resourceVersion that
	// Before's answer gave.
	Body     string          `json:"body"`
	Code     int             `json:"code"`
	Warnings []string        `json:"warnings,omitempty"`
	Answer   json.RawMessage `json:"answer"` // the body, compact JSON as kube-apiserver writes it
}

// Load reads the exchanges of a JSON file.
func Load(tb testing.TB, file string) []Exchange {
	tb.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	var out []Exchange
	if err := json.Unmarshal(b, &out); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	return out
}

var (
	// What differs per object and run: identities, versions and times.
	volatile = regexp.MustCompile(`"(uid|resourceVersion|creationTimestamp|time)":"[^"]*"`)
	// The object's name in a YAML body.
	objectName = regexp.MustCompile(`\n  name: (\S+)\n`)
)

// Normalize blanks what differs between two servers' answers that are
// the same: uid, resourceVersion, creationTimestamp and managedFields'
// times.
func Normalize(body string) string { return volatile.ReplaceAllString(body, `"$1":"-"`) }

// Headers are those of every request Replay sends: the answers were
// recorded in JSON for user agent "recorded".
var headers = []string{"Accept", "application/json", "User-Agent", "recorded"}

// Replay sends e to the server at url and reports where its answer
// differs. The object must not exist before, and is deleted after. As
// recorded, a request that succeeds stores the object it answers, and
// one that fails leaves the object as it was.
func Replay(tb testing.TB, url string, e Exchange) {
	tb.Helper()
	obj, _, _ := strings.Cut(e.Path, "?")
	if e.Method == "POST" {
		m := objectName.FindStringSubmatch(e.Body)
		if m == nil {
			tb.Fatalf("%s: no name in the body", e.Name)
		}
		obj += "/" + m[1]
	}
	body := e.Body
	if e.Before != "" {
		var r servertest.Reply
		if e.Method == "PATCH" {
			r = servertest.Do(tb, "PATCH", url+obj+"?fieldManager=test", e.Before, append(headers, "Content-Type", "application/apply-patch+yaml")...)
		} else {
			r = servertest.Do(tb, "POST", url+obj[:strings.LastIndexByte(obj, '/')]+"?fieldManager=test", e.Before, append(headers, "Content-Type", "application/yaml")...)
		}
		if r.Code != 201 {
			tb.Fatalf("%s: before: %d %s", e.Name, r.Code, r.Body)
		}
		var o struct {
			Metadata struct{ ResourceVersion string }
		}
		if err := json.Unmarshal([]byte(r.Body), &o); err != nil {
			tb.Fatalf("%s: before: %v", e.Name, err)
		}
		body = strings.Replace(body, `"RV"`, `"`+o.Metadata.ResourceVersion+`"`, 1)
	}
	pre := servertest.Do(tb, "GET", url+obj, "", headers...)
	r := servertest.Do(tb, e.Method, url+e.Path, body, append(headers, "Content-Type", e.ContentType)...)
	got, want := Normalize(strings.TrimSuffix(r.Body, "\n")), Normalize(string(e.Answer))
	if r.Code != e.Code || got != want || !slices.Equal(r.Header.Values("Warning"), e.Warnings) {
		tb.Errorf("%s:\n%s %s\n%s\n= %d %q\n  %s\nwant %d %q\n  %s", e.Name, e.Method, e.Path, body,
			r.Code, r.Header.Values("Warning"), got, e.Code, e.Warnings, want)
	}
	post := servertest.Do(tb, "GET", url+obj, "", headers...)
	if r.Code < 300 && post.Body != r.Body || r.Code >= 300 && post.Body != pre.Body {
		tb.Errorf("%s: stored %s\nbefore the request %s\nanswered %s", e.Name, post.Body, pre.Body, r.Body)
	}
	servertest.Do(tb, "DELETE", url+obj, "", headers...)
}
