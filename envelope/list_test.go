package envelope

import (
	"bytes"
	"errors"
	"testing"

	"github.com/apisem/apisem/meta"
	"github.com/google/go-cmp/cmp"
)

// A ConfigMapList: metadata first, then each item as field 2.
func TestList(t *testing.T) {
	items := []configMap{
		{Metadata: meta.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}},
		{Metadata: meta.ObjectMeta{Name: "b"}},
	}
	lm := meta.ListMeta{ResourceVersion: "12", Continue: "next", RemainingItemCount: ptr[int64](3)}

	b := AppendListMetadata(nil, &lm)
	b = AppendListItem(b, appendConfigMap(nil, &items[0]))
	b = AppendListItemFunc(b, 0, func(b []byte) []byte { return appendConfigMap(b, &items[1]) })

	want := "0a0e 0a00 12023132 1a046e657874 2003" +
		"121b 0a11 0a0161 12001a0022002a00320038004200 12060a016b120176" +
		"1213 0a11 0a0162 12001a0022002a00320038004200"
	if !bytes.Equal(b, mustHex(t, want)) {
		t.Errorf("list = %x; want %s", b, want)
	}

	var got []configMap
	gotMeta, err := ConsumeList(b, func(item []byte) error {
		cm, err := consumeConfigMap(item)
		got = append(got, cm)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lm, gotMeta); diff != "" {
		t.Errorf("list metadata (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(items, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	stop := errors.New("stop")
	if _, err := ConsumeList(b, func([]byte) error { return stop }); err != stop {
		t.Errorf("ConsumeList with failing item func = %v; want its error", err)
	}
	// Repeated list metadata merges, as protobuf requires.
	merged, err := ConsumeList(mustHex(t, "0a04 12023132 0a06 1a046e657874"), nil)
	if err != nil || merged.ResourceVersion != "12" || merged.Continue != "next" {
		t.Errorf("merged list metadata = %+v, %v", merged, err)
	}
	for _, in := range []string{"0801", "1001", "0a02 0801", "12"} {
		if _, err := ConsumeList(mustHex(t, in), func([]byte) error { return nil }); !errors.Is(err, ErrMalformed) {
			t.Errorf("ConsumeList(%s) = err %v; want ErrMalformed", in, err)
		}
	}
}
