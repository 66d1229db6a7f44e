package servertest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/server/servertest"
)

// exampleTB stands in for the *testing.T a test has: it runs the
// cleanups when the example ends.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (tb *exampleTB) Helper()                           {}
func (tb *exampleTB) Cleanup(f func())                  { tb.cleanups = append(tb.cleanups, f) }
func (tb *exampleTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (tb *exampleTB) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (tb *exampleTB) end() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}

// A test starts a server of its own and talks to it over HTTP; the server
// is gone when the test ends.
func ExampleNew() {
	t := &exampleTB{} // in a test: the test's *testing.T
	defer t.end()

	_, url := servertest.New(t, server.Options{})
	resp, err := http.Get(url + "/livez")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output: 200 OK
}
