package validation

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/apisem/apisem/status"
)

// kube-apiserver renders etcd's refusal as a foreign error
// (responsewriters.ErrorToAPIStatus in k8s.io/apiserver); the JSON is the
// body reported in kubernetes/kubernetes#74600 and #112152.
func TestObjectTooLarge(t *testing.T) {
	tests := []struct {
		size, limit int
		want        string
	}{
		{MaxObjectBytes, 0, ""},
		{MaxObjectBytes + 1, 0, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request is too large","code":500}`},
		{11, 10, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcdserver: request is too large","code":500}`},
	}
	for _, tt := range tests {
		err := CheckObjectSize(tt.size, tt.limit)
		if tt.want == "" {
			if err != nil {
				t.Errorf("CheckObjectSize(%d, %d) = %v; want nil", tt.size, tt.limit, err)
			}
			continue
		}
		b, _ := json.Marshal(status.FromError(err))
		if string(b) != tt.want {
			t.Errorf("CheckObjectSize(%d, %d) renders %s; want %s", tt.size, tt.limit, b, tt.want)
		}
		if !errors.Is(err, status.ReasonInternalError) || status.CodeForError(err) != 500 {
			t.Errorf("CheckObjectSize(%d, %d) = %v; want a 500 InternalError", tt.size, tt.limit, err)
		}
	}
}

// The registry's 422 for an update without resourceVersion names the
// resource (Store.Update in k8s.io/apiserver/pkg/registry/generic/registry/store.go).
func TestResourceVersionRequired(t *testing.T) {
	b, _ := json.Marshal(status.FromError(ResourceVersionRequired(status.GroupResource{Group: "apps", Resource: "deployments"}, "web")))
	want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update","reason":"Invalid","details":{"name":"web","group":"apps","kind":"deployments","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: 0: must be specified for an update","field":"metadata.resourceVersion"}]},"code":422}`
	if string(b) != want {
		t.Errorf("ResourceVersionRequired renders\n%s; want\n%s", b, want)
	}
}
