package negotiation_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/status"
)

// What real clients get from a list endpoint, and from one whose type has
// no protobuf form.
func ExampleEndpoint_NegotiateAccept() {
	list := negotiation.Endpoint{Response: negotiation.List}
	jsonOnly := negotiation.Endpoint{Response: negotiation.List, MediaTypes: negotiation.JSON | negotiation.YAML}
	clients := []struct{ name, accept string }{
		{"kubectl get", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"},
		{"client-go", "application/json, */*"},
		{"client-go protobuf", "application/vnd.kubernetes.protobuf,application/json"},
		{"metadata informer", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"},
		{"curl", "*/*"},
		{"yaml please", "application/yaml"},
		{"html only", "text/html"},
	}
	short := map[negotiation.MediaType]string{negotiation.JSON: "json", negotiation.YAML: "yaml", negotiation.Protobuf: "protobuf"}
	show := func(ep negotiation.Endpoint, accept string) string {
		res, err := ep.NegotiateAccept(accept)
		if err != nil {
			return fmt.Sprintf("%d %s", status.CodeForError(err), status.ReasonForError(err))
		}
		if res.Target == negotiation.TargetNone {
			return short[res.MediaType]
		}
		return short[res.MediaType] + " as " + res.Target.Kind() + " " + res.Target.APIVersion()
	}
	fmt.Printf("%-19s %-53s %s\n", "client", "all media types", "no protobuf")
	for _, c := range clients {
		fmt.Printf("%-19s %-53s %s\n", c.name, show(list, c.accept), show(jsonOnly, c.accept))
	}
	// Output:
	// client              all media types                                       no protobuf
	// kubectl get         json as Table meta.k8s.io/v1                          json as Table meta.k8s.io/v1
	// client-go           json                                                  json
	// client-go protobuf  protobuf                                              json
	// metadata informer   protobuf as PartialObjectMetadataList meta.k8s.io/v1  json as PartialObjectMetadataList meta.k8s.io/v1
	// curl                json                                                  json
	// yaml please         yaml                                                  yaml
	// html only           406 NotAcceptable                                     406 NotAcceptable
}

// Errors become Status bodies in the negotiated media type; the 406 of
// negotiation itself falls back to indented JSON.
func ExampleEndpoint_WriteError() {
	ep := negotiation.Endpoint{}
	show := func(accept string, err error) {
		r := httptest.NewRequest("GET", "/api/v1/namespaces/default/configmaps/app", nil)
		r.Header.Set("Accept", accept)
		w := httptest.NewRecorder()
		ep.WriteError(w, r, err)
		fmt.Printf("%d %s\n%s\n", w.Code, w.Header().Get("Content-Type"), w.Body)
	}
	show("application/json", status.NewNotFound(status.GroupResource{Resource: "configmaps"}, "app"))
	_, err := ep.NegotiateAccept("text/html")
	show("text/html", err)
	// Output:
	// 404 application/json
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"app\" not found","reason":"NotFound","details":{"name":"app","kind":"configmaps"},"code":404}
	//
	// 406 application/json
	// {
	//   "kind": "Status",
	//   "apiVersion": "v1",
	//   "metadata": {},
	//   "status": "Failure",
	//   "message": "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf",
	//   "reason": "NotAcceptable",
	//   "code": 406
	// }
}

// configMap stands for a user's type; negotiation sees it only through the
// Converter's functions.
type configMap struct {
	meta.ObjectMeta
	Data map[string]string
}

// A Converter with user-defined columns answers kubectl's Table request.
func ExampleConverter() {
	conv := &negotiation.Converter[*configMap]{
		Meta: func(cm *configMap) negotiation.Meta {
			return negotiation.Meta{ObjectMeta: &cm.ObjectMeta, JSON: []byte(`{"name":"` + cm.Name + `"}`)}
		},
		Columns: []negotiation.Column[*configMap]{
			{Definition: negotiation.NameColumn(), Cell: func(cm *configMap) any { return cm.Name }},
			{Definition: negotiation.TableColumnDefinition{Name: "Data", Type: "integer"}, Cell: func(cm *configMap) any { return len(cm.Data) }},
		},
	}
	ep := negotiation.Endpoint{Response: negotiation.List}
	res, _ := ep.NegotiateAccept("application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	include, _ := negotiation.ParseIncludeObject("None")
	items := []*configMap{{ObjectMeta: meta.ObjectMeta{Name: "app"}, Data: map[string]string{"a": "1", "b": "2"}}, {ObjectMeta: meta.ObjectMeta{Name: "db"}}}
	body, err := conv.EncodeList(res, include, meta.ListMeta{ResourceVersion: "42"}, items)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(strings.Replace(string(body), negotiation.NameColumnDescription, "...", 1))
	// Output:
	// {"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"42"},"columnDefinitions":[{"name":"Name","type":"string","format":"name","description":"...","priority":0},{"name":"Data","type":"integer","format":"","description":"","priority":0}],"rows":[{"cells":["app",2],"object":null},{"cells":["db",0],"object":null}]}
}

// Decode with fieldValidation=Strict fails listing every problem; Warn
// decodes and returns one warning per problem, for the Warning header.
func ExampleDecode() {
	type spec struct {
		Replicas int `json:"replicas"`
	}
	var obj struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec spec `json:"spec"`
	}
	body := []byte(`{"metadata":{"name":"a","name":"b"},"spec":{"replica":3}}`)
	q, _ := negotiation.ParseWriteOptions(map[string][]string{"fieldValidation": {"Strict"}}, negotiation.CreateOptions)
	_, err := negotiation.Decode(body, negotiation.JSON, &obj, negotiation.DecodeOptions{Kind: "Widget", Version: "v1", FieldValidation: q.FieldValidation})
	fmt.Println(status.CodeForError(err), err)

	warnings, err := negotiation.Decode(body, negotiation.JSON, &obj, negotiation.DecodeOptions{Kind: "Widget", Version: "v1"})
	h := http.Header{}
	negotiation.WriteWarnings(h, warnings)
	fmt.Println(err, obj.Metadata.Name)
	for _, w := range h.Values("Warning") {
		fmt.Println("Warning:", w)
	}

	_, err = negotiation.ParseWriteOptions(map[string][]string{"fieldValidation": {"strict"}}, negotiation.CreateOptions)
	fmt.Println(err)
	// Output:
	// 400 Widget in version "v1" cannot be handled as a Widget: strict decoding error: duplicate field "metadata.name", unknown field "spec.replica"
	// <nil> b
	// Warning: 299 - "duplicate field \"metadata.name\""
	// Warning: 299 - "unknown field \"spec.replica\""
	// CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"
}

// stdoutFlusher writes a response body to standard output.
type stdoutFlusher struct{ h http.Header }

func (s stdoutFlusher) Header() http.Header         { return s.h }
func (s stdoutFlusher) Write(b []byte) (int, error) { return os.Stdout.Write(b) }
func (s stdoutFlusher) WriteHeader(code int)        { fmt.Println(code, s.h.Get("Content-Type")) }
func (s stdoutFlusher) Flush()                      {}

// An event framed once and written by two watch streams, as a server's
// watchers of one change write it.
func ExampleAppendEvent() {
	obj := []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","resourceVersion":"8"}}`)
	frame := negotiation.AppendEvent(nil, negotiation.JSON, "MODIFIED", obj)
	ep := negotiation.Endpoint{Response: negotiation.Watch}
	res, _ := ep.NegotiateAccept("application/json")
	for range 2 {
		sw, err := negotiation.NewStreamWriter(stdoutFlusher{http.Header{}}, res)
		if err != nil {
			fmt.Println(err)
			return
		}
		_ = sw.WriteEvents([]negotiation.Event{{Frame: frame}})
	}
	fmt.Printf("object of %d bytes\n", len(negotiation.EventObject(negotiation.JSON, frame)))
	// Output:
	// 200 application/json
	// {"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","resourceVersion":"8"}}}
	// 200 application/json
	// {"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","resourceVersion":"8"}}}
	// object of 86 bytes
}

// A JSON watch stream: one event per line, ERROR events carry a Status.
func ExampleStreamWriter() {
	ep := negotiation.Endpoint{Response: negotiation.Watch}
	res, _ := ep.NegotiateAccept("application/json, */*")
	sw, err := negotiation.NewStreamWriter(stdoutFlusher{http.Header{}}, res)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = sw.WriteEvent("ADDED", []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","resourceVersion":"7"}}`))
	_ = sw.WriteEvents([]negotiation.Event{
		{Type: "MODIFIED", Object: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","resourceVersion":"8"}}`)},
		{Type: "BOOKMARK", Object: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}`)},
	})
	_ = sw.WriteError(status.NewExpired("too old resource version: 7 (8)"))
	_ = sw.WriteError(errors.New("storage unavailable"))
	// Output:
	// 200 application/json
	// {"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","resourceVersion":"7"}}}
	// {"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","resourceVersion":"8"}}}
	// {"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"9"}}}
	// {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 7 (8)","reason":"Expired","code":410}}
	// {"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage unavailable","code":500}}
}
