package server

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apisem/apisem/meta"
)

// recordFrom, when set, is a kube-apiserver's URL: the transcript tests
// send their requests there (../shared/reference, loopback, anonymous
// allowed everything) and rewrite the answers in testdata/transcripts.
var recordFrom = flag.String("record-from", "", "record the transcripts' answers from the kube-apiserver at this URL")

// A transcript is requests in order and what kube-apiserver 1.37.1
// answered each, stored in testdata/transcripts/<name>.json and recorded
// with -record-from. Replayed here, every answer must be the same once
// the values a cluster makes up are put in a common form (normalize).
type transcript struct {
	About     string     `json:"about"`
	Exchanges []exchange `json:"exchanges"`
}

// An exchange is one request and its recorded answer. Its User-Agent is
// "recorded" unless Header says otherwise; Header's Host is the
// request's. In Path, {{continue N}} stands for the N-th continue token
// that an answer carried (from 1), the reference's when recording, ours
// when replaying.
type exchange struct {
	// RefOnly requests are the reference's setup (a namespace to work
	// in): they are not replayed.
	RefOnly     bool              `json:"refOnly,omitempty"`
	Method      string            `json:"method"`
	Path        string            `json:"path"`
	Header      map[string]string `json:"header,omitempty"`
	Body        string            `json:"body,omitempty"`
	Code        int               `json:"code"`
	ContentType string            `json:"contentType"`
	Answer      string            `json:"answer"`
	// BinaryAnswer holds an answer that is not UTF-8 (protobuf), which
	// Answer could not keep.
	BinaryAnswer []byte `json:"binaryAnswer,omitempty"`
}

// replay sends the transcript's requests to h (or, with -record-from, to
// the reference, and rewrites the file) and compares the answers.
func replay(t *testing.T, h http.Handler, name string) {
	t.Helper()
	file := filepath.Join("testdata", "transcripts", name+".json")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tr transcript
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	send := func(x exchange) (int, string, string) {
		r := httptest.NewRequest(x.Method, x.Path, strings.NewReader(x.Body))
		r.Header.Set("User-Agent", "recorded")
		for k, v := range x.Header {
			r.Header.Set(k, v)
		}
		if host := x.Header["Host"]; host != "" {
			r.Host = host
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Header().Get("Content-Type"), w.Body.String()
	}
	if *recordFrom != "" {
		send = recordSender(t, *recordFrom)
	}
	var conts []string
	var got []exchange
	for _, x := range tr.Exchanges {
		if x.RefOnly && *recordFrom == "" {
			continue
		}
		req := x
		req.Path = continueRef.ReplaceAllStringFunc(x.Path, func(s string) string {
			n, _ := strconv.Atoi(continueRef.FindStringSubmatch(s)[1])
			if n < 1 || n > len(conts) {
				t.Fatalf("%s %s: no continue token %d yet", x.Method, x.Path, n)
			}
			return conts[n-1]
		})
		x.Code, x.ContentType, x.Answer = send(req)
		if x.Method == http.MethodHead {
			x.Answer = "" // a server sends no body (the recorder keeps it)
		}
		for _, m := range continueField.FindAllStringSubmatch(x.Answer, -1) {
			if !slices.Contains(conts, m[1]) {
				conts = append(conts, m[1])
			}
		}
		got = append(got, x)
	}
	if *recordFrom != "" {
		for i, x := range got {
			if !utf8.ValidString(x.Answer) {
				got[i].Answer, got[i].BinaryAnswer = "", []byte(x.Answer)
			}
		}
		tr.Exchanges = got
		b, err := json.MarshalIndent(tr, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	var want []exchange
	for _, x := range tr.Exchanges {
		if x.BinaryAnswer != nil {
			x.Answer = string(x.BinaryAnswer)
		}
		if !x.RefOnly {
			want = append(want, x)
		}
	}
	normalize(want)
	normalize(got)
	for i := range want {
		w, g := want[i], got[i]
		if g.Code != w.Code || g.ContentType != w.ContentType || g.Answer != w.Answer {
			t.Errorf("%s %s:\n got %d %s %s\nwant %d %s %s", w.Method, w.Path,
				g.Code, g.ContentType, g.Answer, w.Code, w.ContentType, w.Answer)
		}
	}
}

// recordSender sends requests to a kube-apiserver over HTTPS (its
// self-signed certificate is not checked: loopback only).
func recordSender(t *testing.T, base string) func(exchange) (int, string, string) {
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	t.Cleanup(c.CloseIdleConnections)
	return func(x exchange) (int, string, string) {
		r, err := http.NewRequest(x.Method, base+x.Path, strings.NewReader(x.Body))
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("User-Agent", "recorded")
		for k, v := range x.Header {
			r.Header.Set(k, v)
		}
		if host := x.Header["Host"]; host != "" {
			r.Host = host
		}
		resp, err := c.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
}

var (
	continueRef   = regexp.MustCompile(`\{\{continue (\d+)\}\}`)
	continueField = regexp.MustCompile(`"continue":\s*"([^"]+)"`)
	// The fields below match in a message too, where the object is quoted
	// (\" for "): q is an optional run of backslashes before a quote.
	rvField    = regexp.MustCompile(`(` + q + `"resourceVersion` + q + `":\s*` + q + `")(\d+)(` + q + `")|(in record \()(\d+)(\))`)
	madeUp     = regexp.MustCompile(`(` + q + `"(?:uid|creationTimestamp|deletionTimestamp|time|gitVersion|gitCommit|buildDate|serverAddress)` + q + `":\s*` + q + `")[^"\\]*(` + q + `")`)
	uuid       = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	madeUpYAML = regexp.MustCompile(`(?m)^(\s*serverAddress: ).*$`)
)

const q = `\\*`

// rvMatch returns the revision a match of rvField names and the text
// around it.
func rvMatch(m []string) (before, n, after string) {
	if m[2] != "" {
		return m[1], m[2], m[3]
	}
	return m[4], m[5], m[6]
}

// normalize puts what a cluster makes up in a form that two servers can
// agree on: uids, times, build facts and addresses become placeholders,
// continue tokens their order of appearance, and resourceVersions their
// rank among those the answers show (a cluster's revisions have gaps
// where other writers, its leases, wrote; the order of what a client
// sees is the same).
func normalize(xs []exchange) {
	var revs []uint64
	for _, x := range xs {
		for _, m := range rvField.FindAllStringSubmatch(x.Answer, -1) {
			_, v, _ := rvMatch(m)
			n, _ := strconv.ParseUint(v, 10, 64)
			revs = append(revs, n)
		}
	}
	slices.Sort(revs)
	revs = slices.Compact(revs)
	var conts []string
	for i := range xs {
		a := madeUp.ReplaceAllString(xs[i].Answer, `${1}*${2}`)
		a = uuid.ReplaceAllString(a, `*`)
		a = madeUpYAML.ReplaceAllString(a, `$1*`)
		a = rvField.ReplaceAllStringFunc(a, func(s string) string {
			before, v, after := rvMatch(rvField.FindStringSubmatch(s))
			n, _ := strconv.ParseUint(v, 10, 64)
			k, _ := slices.BinarySearch(revs, n)
			return before + "rv" + strconv.Itoa(k+1) + after
		})
		a = continueField.ReplaceAllStringFunc(a, func(s string) string {
			c := continueField.FindStringSubmatch(s)[1]
			k := slices.Index(conts, c)
			if k < 0 {
				conts = append(conts, c)
				k = len(conts) - 1
			}
			return `"continue":"continue` + strconv.Itoa(k+1) + `"`
		})
		xs[i].Answer = a
	}
}

// configMap is a stand-in for the core ConfigMap (a namespaced core kind
// whose list items carry no kind), so that a transcript's requests read
// as they were sent to the reference.
type configMap struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (c *configMap) Types() *meta.TypeMeta { return &c.TypeMeta }
func (c *configMap) DeepCopyObject() Object {
	d := *c
	c.ObjectMeta.DeepCopyInto(&d.ObjectMeta)
	d.Data = maps.Clone(c.Data)
	return &d
}

// configMapServer serves configmaps (and nothing else) as the reference
// does.
func configMapServer(t *testing.T, opts Options) *Server {
	opts.Resources = []*Resource{{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList",
		Plural: "configmaps", Singular: "configmap", ShortNames: []string{"cm"}, Namespaced: true,
		New: func() Object { return &configMap{} }}}
	return newTestServer(t, opts)
}

// A deletecollection with limit deletes one page, with continue the page
// after the token's, and answers with the page as listed; without limit
// it deletes everything, and answers with the list before the deletions
// (an object that finalizers hold is listed unmarked).
func TestTranscriptDeleteCollectionPage(t *testing.T) {
	replay(t, configMapServer(t, Options{}), "deletecollection-page")
}

// An empty store answers lists, and the bookmark that ends a streaming
// list's initial events, with a resourceVersion (its revision, 1 before
// the first write, as an empty etcd's), never without.
func TestTranscriptEmptyStore(t *testing.T) {
	replay(t, configMapServer(t, Options{}), "empty-store")
}

// A path with an empty name before a subresource reaches the
// subresource's handler, which needs the name (a built-in's router takes
// "" for the name; a custom resource's verb is the collection's), and
// /api/v1/watch, /proxy and their /apis forms are a plain-text 500, as
// kube-apiserver answers them.
func TestTranscriptEmptyNameAndWatchPaths(t *testing.T) {
	s := newTestServer(t, Options{Resources: []*Resource{
		{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps", Singular: "configmap",
			Namespaced: true, New: func() Object { return &configMap{} }},
		{Version: "v1", Kind: "Pod", ListKind: "PodList", Plural: "pods", Singular: "pod",
			Namespaced: true, StatusSubresource: true, New: func() Object { return &configMap{} }},
		{Group: "example.com", Version: "v1", Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget",
			Namespaced: true, StatusSubresource: true, Custom: true, TypedListItems: true, New: func() Object { return &configMap{} }},
	}})
	replay(t, s, "empty-name-watch-paths")
}

// kube-apiserver's router compares Accept types exactly and writes its
// 406, 415 and 405 texts; ?pretty=false overrides a curl User-Agent;
// /version is indented JSON, refused (406) in any other type.
func TestTranscriptRouter(t *testing.T) {
	replay(t, configMapServer(t, Options{}), "router")
}

// Unaggregated discovery answers in YAML and indented JSON as asked, and
// refuses what it does not serve with the 406 of the handler that serves
// it on a cluster.
func TestTranscriptDiscoveryForms(t *testing.T) {
	s := newTestServer(t, Options{Resources: []*Resource{
		{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps", Singular: "configmap",
			Namespaced: true, New: func() Object { return &configMap{} }},
		{Group: "example.com", Version: "v1", Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget",
			ShortNames: []string{"wd"}, Namespaced: true, StatusSubresource: true, Custom: true, TypedListItems: true,
			New: func() Object { return &configMap{} }},
	}})
	replay(t, s, "discovery-forms")
}

// An empty namespace in a resource's path lists and watches every
// namespace; for a built-in resource, the handlers of one object and
// deletecollection refuse it with a 400 and a create with the 422 of
// validation; a custom resource's other verbs are Go's plain 404.
func TestTranscriptEmptyNamespace(t *testing.T) {
	s := newTestServer(t, Options{Resources: []*Resource{
		{Version: "v1", Kind: "Pod", ListKind: "PodList", Plural: "pods", Singular: "pod",
			Namespaced: true, StatusSubresource: true, New: func() Object { return &configMap{} }},
		{Version: "v1", Kind: "ConfigMap", ListKind: "ConfigMapList", Plural: "configmaps", Singular: "configmap",
			Namespaced: true, New: func() Object { return &configMap{} }},
		{Group: "example.com", Version: "v1", Kind: "Widget", ListKind: "WidgetList", Plural: "widgets", Singular: "widget",
			Namespaced: true, StatusSubresource: true, Custom: true, TypedListItems: true, New: func() Object { return &configMap{} }},
	}})
	replay(t, s, "empty-namespace")
}

// Errors of writes and reads answer as a cluster's: among them the 422 of
// a strict patch, whose patched object has its top-level keys sorted, and
// a delete's failed precondition, whose 409 names the kind.
func TestTranscriptWriteErrors(t *testing.T) {
	replay(t, configMapServer(t, Options{}), "write-errors")
}
