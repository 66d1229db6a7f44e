package server_test

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
)

// Counter writes its own JSON: every write of it is encoded once, by
// AppendJSON instead of encoding/json's reflection.
type Counter struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Count           int64 `json:"count"`
}

// AppendJSON writes what json.Marshal writes of c, metadata by
// server.AppendMetaJSON.
func (c *Counter) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{`...)
	if c.Kind != "" || c.APIVersion != "" {
		b, err := json.Marshal(c.TypeMeta) // not on the server's path
		if err != nil {
			return dst, err
		}
		dst = append(append(dst, b[1:len(b)-1]...), ',')
	}
	dst, err := server.AppendMetaJSON(append(dst, `"metadata":`...), &c.ObjectMeta)
	if err != nil {
		return dst, err
	}
	dst = strconv.AppendInt(append(dst, `,"count":`...), c.Count, 10)
	return append(dst, '}'), nil
}

var _ server.JSONAppender = (*Counter)(nil)

// A type that writes its own JSON implements server.JSONAppender, byte
// for byte what encoding/json writes.
func ExampleJSONAppender() {
	c := &Counter{ObjectMeta: meta.ObjectMeta{Name: "c1", Labels: map[string]string{"b": "2", "a": "1"}}, Count: 3}
	fast, _ := c.AppendJSON(nil)
	slow, _ := json.Marshal(c)
	fmt.Println(string(fast))
	fmt.Println(string(fast) == string(slow))
	// Output:
	// {"metadata":{"name":"c1","labels":{"a":"1","b":"2"}},"count":3}
	// true
}
