package server

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// discoveryPair is one discovery document as kube-apiserver 1.37.1
// answered it in JSON and in protobuf (testdata/discovery-protobuf.json,
// recorded from ../shared/reference with crd/testdata/definitions/widgets.yaml
// installed: go test -run TestDiscoveryProtobufRecorded -record-from=URL).
type discoveryPair struct {
	Path string `json:"path"`
	// Accept is the JSON form's; the protobuf form's is the same with
	// the protobuf media type.
	Accept   string `json:"accept,omitempty"`
	JSON     string `json:"json"`
	Protobuf []byte `json:"protobuf"`
}

// The protobuf form of each discovery document, unaggregated and
// aggregated, is the one kube-apiserver writes for the same JSON, byte for
// byte.
func TestDiscoveryProtobufRecorded(t *testing.T) {
	const file = "testdata/discovery-protobuf.json"
	var pairs []discoveryPair
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pairs); err != nil {
		t.Fatal(err)
	}
	if *recordFrom != "" {
		send := recordSender(t, *recordFrom)
		for i := range pairs {
			accept := pairs[i].Accept
			if accept == "" {
				accept = "application/json"
			}
			_, _, j := send(exchange{Method: "GET", Path: pairs[i].Path, Header: map[string]string{"Accept": accept}})
			pbAccept := "application/vnd.kubernetes.protobuf" + strings.TrimPrefix(accept, "application/json")
			_, _, pb := send(exchange{Method: "GET", Path: pairs[i].Path, Header: map[string]string{"Accept": pbAccept}})
			pairs[i].JSON, pairs[i].Protobuf = j, []byte(pb)
		}
		b, err := json.MarshalIndent(pairs, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, p := range pairs {
		encode := discoveryProtobuf
		if p.Accept != "" {
			encode = aggregatedProtobuf
		}
		got, err := encode([]byte(p.JSON))
		if err != nil || !bytes.Equal(got, p.Protobuf) {
			t.Errorf("%s: discoveryProtobuf = %v\n%q\nwant\n%q", p.Path, err, got, p.Protobuf)
		}
	}
}
