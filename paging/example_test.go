package paging_test

import (
	"fmt"
	"sort"

	"github.com/apisem/apisem/paging"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// snapshot is a toy store: the sorted keys of one revision.
type snapshot struct {
	revision rv.Version
	keys     []string
}

// list serves one page of the collection prefix as a store would.
func (s snapshot) list(c *paging.Codec, prefix string, limit int64, cont string) (first, last int, next string, remaining *int64, err error) {
	start := prefix
	if cont != "" {
		var tok paging.Token
		if start, tok, err = c.Decode(cont, prefix); err != nil {
			return 0, 0, "", nil, err
		}
		if tok.Version != s.revision {
			return 0, 0, "", nil, c.Expired(tok) // compacted, in this toy
		}
	}
	i := sort.SearchStrings(s.keys, start)
	end := len(s.keys)
	if limit = paging.Limit(limit, 0); limit > 0 && int64(end-i) > limit {
		end = i + int(limit)
	}
	if n, ok := paging.RemainingItemCount(int64(len(s.keys)-end), false); ok {
		remaining = &n
		rel, err := paging.NextStart(s.keys[end-1], prefix)
		if err != nil {
			return 0, 0, "", nil, err
		}
		next = c.Encode(paging.Token{Version: s.revision, Start: rel})
	}
	return i + 1, end, next, remaining, nil
}

// The spec's "Retrieving large results sets in chunks": 1,253 pods listed
// 500 at a time, all pages at revision 10245.
func Example() {
	s := snapshot{revision: 10245}
	for i := 1; i <= 1253; i++ {
		s.keys = append(s.keys, fmt.Sprintf("pods/default/pod-%04d", i))
	}
	var c paging.Codec // zero value: unsigned tokens, as Kubernetes
	cont := ""
	for page := 1; ; page++ {
		first, last, next, remaining, err := s.list(&c, "pods/", 500, cont)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("page %d: pods %d-%d, resourceVersion %s", page, first, last, s.revision)
		if remaining != nil {
			fmt.Printf(", remainingItemCount %d, continue %s", *remaining, next)
		}
		fmt.Println()
		if next == "" {
			break
		}
		cont = next
	}

	// The same token after the store compacted revision 10245: 410, with
	// a token that continues inconsistently at the latest revision.
	s.revision = 10300
	_, _, _, _, err := s.list(&c, "pods/", 500, cont)
	fmt.Println(status.CodeForError(err), status.ReasonForError(err))
	// Output:
	// page 1: pods 1-500, resourceVersion 10245, remainingItemCount 753, continue AQCFUGRlZmF1bHQvcG9kLTA1MDAA
	// page 2: pods 501-1000, resourceVersion 10245, remainingItemCount 253, continue AQCFUGRlZmF1bHQvcG9kLTEwMDAA
	// page 3: pods 1001-1253, resourceVersion 10245
	// 410 Expired
}

// A hostile token cannot reach outside its collection.
func ExampleCodec_Decode() {
	c := paging.Codec{Keys: [][]byte{[]byte("a 32-byte secret key for signing")}}
	tok := c.Encode(paging.Token{Version: 42, Start: "ns1/pod-7\x00"})

	key, t, err := c.Decode(tok, "pods/")
	fmt.Printf("%q %d %v\n", key, t.Version, err)

	var unsigned paging.Codec
	forged := unsigned.Encode(paging.Token{Version: 42, Start: "../secrets/ns1/db"})
	_, _, err = unsigned.Decode(forged, "pods/")
	fmt.Println(err)
	_, _, err = c.Decode(unsigned.Encode(paging.Token{Version: 42, Start: "ns1/pod-7\x00"}), "pods/")
	fmt.Println(err)
	// Output:
	// "pods/ns1/pod-7\x00" 42 <nil>
	// invalid continue token: continue key is not valid: ../secrets/ns1/db
	// invalid continue token: continue key is not valid: token is not signed
}

// The 410 for a compacted snapshot carries an inconsistent continue token.
func ExampleCodec_Expired() {
	var c paging.Codec
	err := c.Expired(paging.Token{Version: 10245, Start: "ns1/pod-500\x00"})
	_, t, _ := c.Decode(err.Status.Metadata.Continue, "pods/")
	fmt.Println(err.Code(), err.Status.Reason)
	fmt.Printf("continue at version %d from %q\n", t.Version, t.Start)
	// Output:
	// 410 Expired
	// continue at version 0 from "ns1/pod-500\x00"
}
