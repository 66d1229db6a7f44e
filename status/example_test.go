package status_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/apisem/apisem/status"
)

func Example() {
	err := fmt.Errorf("get failed: %w",
		status.NewNotFound(status.GroupResource{Resource: "configmaps"}, "settings"))

	fmt.Println(status.IsNotFound(err), errors.Is(err, status.ReasonNotFound))
	fmt.Println(status.CodeForError(err), status.ReasonForError(err))
	_ = json.NewEncoder(os.Stdout).Encode(status.FromError(err))
	// Output:
	// true true
	// 404 NotFound
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"settings\" not found","reason":"NotFound","details":{"name":"settings","kind":"configmaps"},"code":404}
}

func ExampleNewInvalid() {
	err := status.NewInvalid(status.GroupKind{Group: "meta.k8s.io", Kind: "ListOptions"}, "",
		status.Forbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"))
	fmt.Println(err.Status.Code, err)
	// Output:
	// 422 ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided
}

// New writes a status no other constructor does: here Kubernetes' answer
// to a path no route serves, a NotFound without a resource's name.
func ExampleNew() {
	err := status.New(404, status.ReasonNotFound, "the server could not find the requested resource", &status.Details{})
	fmt.Println(status.IsNotFound(err))
	_ = json.NewEncoder(os.Stdout).Encode(status.FromError(err))
	// Output:
	// true
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}
}
