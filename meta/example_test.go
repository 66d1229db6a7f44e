package meta_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/apisem/apisem/meta"
)

// ConfigMap is a user's type: it embeds TypeMeta and ObjectMeta as every
// Kubernetes type does, and so is a meta.Object.
type ConfigMap struct {
	meta.TypeMeta   `json:",inline"`
	meta.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// The same metadata in Kubernetes' JSON and protobuf forms.
func Example() {
	cm := &ConfigMap{
		TypeMeta: meta.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: meta.ObjectMeta{
			Name: "app", Namespace: "demo", ResourceVersion: "7",
			CreationTimestamp: meta.NewTime(time.Date(2026, 7, 24, 10, 0, 0, 500, time.UTC)),
			Labels:            map[string]string{"tier": "web"},
		},
		Data: map[string]string{"k": "v"},
	}
	var obj meta.Object = cm
	obj.Meta().UID = "0b1e" // a store fills in system fields through Meta

	j, _ := json.Marshal(cm)
	fmt.Printf("%s\n", j)

	b := meta.AppendObjectMeta(nil, &cm.ObjectMeta)
	fmt.Printf("%d protobuf bytes (SizeObjectMeta %d)\n", len(b), meta.SizeObjectMeta(&cm.ObjectMeta))
	back, err := meta.ConsumeObjectMeta(b)
	fmt.Println(back.Name, back.UID, back.CreationTimestamp.Format(time.RFC3339), back.Labels, err)

	l := meta.ListMeta{ResourceVersion: "9", Continue: "tok"}
	lj, _ := json.Marshal(l)
	fmt.Printf("%s %x\n", lj, meta.AppendListMeta(nil, &l))
	// Output:
	// {"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app","namespace":"demo","uid":"0b1e","resourceVersion":"7","creationTimestamp":"2026-07-24T10:00:00Z","labels":{"tier":"web"}},"data":{"k":"v"}}
	// 49 protobuf bytes (SizeObjectMeta 49)
	// app 0b1e 2026-07-24T10:00:00Z map[tier:web] <nil>
	// {"resourceVersion":"9","continue":"tok"} 0a001201391a03746f6b
}
