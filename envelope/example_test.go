package envelope_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"google.golang.org/protobuf/encoding/protowire"
)

// ConfigMap is a user's own type with the field numbers of core/v1
// ConfigMap: metadata 1, data 2.
type ConfigMap struct {
	Metadata meta.ObjectMeta
	Data     map[string]string
}

func (c *ConfigMap) Append(b []byte) []byte {
	b = meta.AppendObjectMetadata(b, &c.Metadata)
	return envelope.AppendStringMap(b, 2, c.Data)
}

func (c *ConfigMap) Consume(b []byte) error {
	return envelope.RangeFields(b, func(f envelope.Field) error {
		switch f.Num {
		case 1:
			body, err := f.AsBytes()
			if err != nil {
				return err
			}
			c.Metadata, err = meta.ConsumeObjectMeta(body)
			return err
		case 2:
			entry, err := f.AsBytes()
			if err != nil {
				return err
			}
			k, v, err := envelope.ConsumeStringMapEntry(entry)
			if err != nil {
				return err
			}
			if c.Data == nil {
				c.Data = make(map[string]string)
			}
			c.Data[k] = v
		}
		return nil // unknown fields are skipped
	})
}

// Encode an object straight into an envelope, as a server answers
// Accept: application/vnd.kubernetes.protobuf, and decode it back.
func ExampleAppendEnvelopeFunc() {
	cm := ConfigMap{
		Metadata: meta.ObjectMeta{Name: "demo", Namespace: "default"},
		Data:     map[string]string{"k": "v"},
	}
	body := envelope.AppendEnvelopeFunc(nil, "v1", "ConfigMap", 0, cm.Append)
	fmt.Printf("% x\n", body)

	env, err := envelope.ConsumeEnvelope(body)
	if err != nil {
		panic(err)
	}
	var got ConfigMap
	if err := got.Consume(env.Raw); err != nil {
		panic(err)
	}
	fmt.Println(env.APIVersion, env.Kind, got.Metadata.Namespace+"/"+got.Metadata.Name, got.Data)

	_, err = envelope.ConsumeEnvelope([]byte(`{"kind":"ConfigMap"}`))
	fmt.Println(err)
	// Output:
	// 6b 38 73 00 0a 0f 0a 02 76 31 12 09 43 6f 6e 66 69 67 4d 61 70 12 25 0a 1b 0a 04 64 65 6d 6f 12 00 1a 07 64 65 66 61 75 6c 74 22 00 2a 00 32 00 38 00 42 00 12 06 0a 01 6b 12 01 76 1a 00 22 00
	// v1 ConfigMap default/demo map[k:v]
	// provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]
}

// A protobuf watch stream: each frame is a WatchEvent whose object is an
// envelope. The last event is an ERROR carrying a Status.
func ExampleFrameReader() {
	var stream bytes.Buffer
	w := envelope.NewFrameWriter(&stream)
	var buf []byte
	for _, name := range []string{"a", "b"} {
		cm := ConfigMap{Metadata: meta.ObjectMeta{Name: name}}
		buf = envelope.AppendWatchEventFunc(buf[:0], "ADDED", 0, func(b []byte) []byte {
			return envelope.AppendEnvelopeFunc(b, "v1", "ConfigMap", 0, cm.Append)
		})
		if err := w.WriteFrame(buf); err != nil {
			panic(err)
		}
	}
	gone := envelope.Status{Status: "Failure", Message: "too old resource version: 1 (5)", Reason: "Expired", Code: 410}
	buf = envelope.AppendWatchEvent(buf[:0], "ERROR",
		envelope.AppendEnvelope(nil, "v1", "Status", envelope.AppendStatus(nil, &gone)))
	if err := w.WriteFrame(buf); err != nil {
		panic(err)
	}

	r := envelope.NewFrameReader(&stream)
	for {
		frame, err := r.ReadFrame()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		ev, err := envelope.ConsumeWatchEvent(frame)
		if err != nil {
			panic(err)
		}
		// The frame is done with before the next ReadFrame reuses its
		// buffer, so a view of the envelope, which copies nothing, will do.
		env, err := envelope.ConsumeEnvelopeView(ev.Object)
		if err != nil {
			panic(err)
		}
		switch string(env.Kind) {
		case "Status":
			st, err := envelope.ConsumeStatus(env.Raw)
			if err != nil {
				panic(err)
			}
			fmt.Println(ev.Type, st.Code, st.Reason, st.Message)
		default:
			var cm ConfigMap
			if err := cm.Consume(env.Raw); err != nil {
				panic(err)
			}
			fmt.Println(ev.Type, string(env.Kind), cm.Metadata.Name)
		}
	}
	// Output:
	// ADDED ConfigMap a
	// ADDED ConfigMap b
	// ERROR 410 Expired too old resource version: 1 (5)
}

// A list is its ListMeta as field 1 followed by each item as field 2.
func ExampleAppendListItemFunc() {
	items := []ConfigMap{{Metadata: meta.ObjectMeta{Name: "a"}}, {Metadata: meta.ObjectMeta{Name: "b"}}}
	remaining := int64(0)
	list := envelope.AppendListMetadata(nil, &meta.ListMeta{ResourceVersion: "7", RemainingItemCount: &remaining})
	for i := range items {
		list = envelope.AppendListItemFunc(list, 0, items[i].Append)
	}
	body := envelope.AppendEnvelope(nil, "v1", "ConfigMapList", list)

	env, _ := envelope.ConsumeEnvelope(body)
	meta, err := envelope.ConsumeList(env.Raw, func(item []byte) error {
		var cm ConfigMap
		err := cm.Consume(item)
		fmt.Println("item", cm.Metadata.Name)
		return err
	})
	fmt.Println(env.Kind, "resourceVersion", meta.ResourceVersion, "remaining", *meta.RemainingItemCount, err)

	// Unknown fields are visible to generic code through ConsumeField.
	for b := list; len(b) > 0; {
		f, n, err := envelope.ConsumeField(b)
		if err != nil {
			panic(err)
		}
		fmt.Println("field", f.Num, f.Type == protowire.BytesType, len(f.Bytes))
		b = b[n:]
	}
	// Output:
	// item a
	// item b
	// ConfigMapList resourceVersion 7 remaining 0 <nil>
	// field 1 true 9
	// field 2 true 19
	// field 2 true 19
}
