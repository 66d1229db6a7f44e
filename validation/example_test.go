package validation_test

import (
	"fmt"
	"github.com/apisem/apisem/meta"

	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/validation"
)

// A create whose metadata breaks two rules gets Kubernetes' 422, cause by
// cause.
func Example() {
	m := meta.ObjectMeta{
		Name:        "My_Widget",
		Namespace:   "prod",
		Labels:      map[string]string{"tier": "-front-"},
		Annotations: map[string]string{"example.com/owner": "team-a"},
		Finalizers:  []string{"example.com/cleanup"},
	}
	errs := validation.ValidateCreate(&m, true, validation.NameIsDNSSubdomain)
	err := status.NewInvalid(status.GroupKind{Group: "example.com", Kind: "Widget"}, m.Name, errs...)

	fmt.Println(err.Status.Code, err.Status.Reason)
	for _, c := range err.Status.Details.Causes {
		fmt.Printf("%s %s\n  %s\n", c.Type, c.Field, c.Message)
	}

	// An update may not change the uid; omitting it is fine.
	stored := meta.ObjectMeta{Name: "w", Namespace: "prod", UID: "8f1c", ResourceVersion: "12"}
	changed := stored
	changed.UID = "0000"
	validation.PrepareForUpdate(&changed, &stored)
	fmt.Println(validation.ValidateUpdate(&changed, &stored, true)[0])
	// Output:
	// 422 Invalid
	// FieldValueInvalid metadata.name
	//   Invalid value: "My_Widget": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
	// FieldValueInvalid metadata.labels
	//   Invalid value: "-front-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')
	// metadata.uid: Invalid value: "0000": field is immutable
}
