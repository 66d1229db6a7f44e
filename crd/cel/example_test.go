package cel_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/apisem/apisem/crd"
	"github.com/apisem/apisem/crd/cel"
	"github.com/apisem/apisem/server"
)

const definition = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.min <= self.max"
              messageExpression: "'min %d exceeds max %d'.format([self.min, self.max])"
            - rule: "self.min == oldSelf.min"
              message: "min is immutable"
            properties:
              min: {type: integer}
              max: {type: integer, maximum: 100}
              memory:
                type: string
                maxLength: 32
                x-kubernetes-validations:
                - rule: "isQuantity(self) && quantity(self).isLessThan(quantity('1Gi'))"
                  message: "must be a quantity below 1Gi"
`

// Example serves a definition whose rules are evaluated: a rule that is
// false is a 422 with Kubernetes' message, a transition rule (with
// oldSelf) applies to updates, Kubernetes' CEL libraries (here quantity)
// are there, and a rule that does not type-check against its schema
// refuses its definition.
func Example() {
	opts := crd.Options{Rules: cel.Compiler{}}
	defs := opts.Resource()
	s, err := server.New(server.Options{Resources: []*server.Resource{defs}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	c := opts.Start(s, defs)
	defer c.Stop()
	list, err := crd.Parse([]byte(definition))
	if err != nil {
		log.Fatal(err)
	}
	if err := c.Install(context.Background(), list...); err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()

	send := func(method, path, body string) {
		req, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if method == "PATCH" {
			req.Header.Set("Content-Type", "application/merge-patch+json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		fmt.Println(resp.StatusCode)
		if resp.StatusCode >= 300 {
			fmt.Println(string(b))
		}
	}
	const widgets = "/apis/example.com/v1/namespaces/default/widgets"
	send("POST", widgets, `{"metadata":{"name":"w1"},"spec":{"min":1,"max":2}}`)
	send("POST", widgets, `{"metadata":{"name":"w2"},"spec":{"min":3,"max":2}}`)
	send("PATCH", widgets+"/w1", `{"spec":{"min":2}}`)
	send("PATCH", widgets+"/w1", `{"spec":{"memory":"2Gi"}}`)
	// A schema error of a blocking kind skips the rules.
	send("POST", widgets, `{"metadata":{"name":"w3"},"spec":{"min":3,"max":"two"}}`)
	// A rule that does not type-check is refused with its definition.
	send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"metadata":{"name":"gadgets.example.com"},
		"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gadgets","kind":"Gadget"},
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
		"properties":{"replicas":{"type":"integer"}},
		"x-kubernetes-validations":[{"rule":"self.replicas.startsWith('a')"}]}}}]}}`)
	// Output:
	// 201
	// 422
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.example.com \"w2\" is invalid: spec: Invalid value: min 3 exceeds max 2","reason":"Invalid","details":{"name":"w2","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: min 3 exceeds max 2","field":"spec"}]},"code":422}
	//
	// 422
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.example.com \"w1\" is invalid: spec: Invalid value: min is immutable","reason":"Invalid","details":{"name":"w1","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: min is immutable","field":"spec"}]},"code":422}
	//
	// 422
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.example.com \"w1\" is invalid: spec.memory: Invalid value: \"2Gi\": must be a quantity below 1Gi","reason":"Invalid","details":{"name":"w1","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"2Gi\": must be a quantity below 1Gi","field":"spec.memory"}]},"code":422}
	//
	// 422
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.example.com \"w3\" is invalid: [spec.max: Invalid value: \"string\": spec.max in body must be of type integer: \"string\", \u003cnil\u003e: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]","reason":"Invalid","details":{"name":"w3","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueTypeInvalid","message":"Invalid value: \"string\": spec.max in body must be of type integer: \"string\"","field":"spec.max"},{"reason":"FieldValueInvalid","message":"Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation","field":"\u003cnil\u003e"}]},"code":422}
	//
	// 422
	// {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CustomResourceDefinition.apiextensions.k8s.io \"gadgets.example.com\" is invalid: spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Invalid value: {\"Rule\":\"self.replicas.startsWith('a')\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: ERROR: \u003cinput\u003e:1:25: found no matching overload for 'startsWith' applied to 'int.(string)'\n | self.replicas.startsWith('a')\n | ........................^","reason":"Invalid","details":{"name":"gadgets.example.com","group":"apiextensions.k8s.io","kind":"CustomResourceDefinition","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: {\"Rule\":\"self.replicas.startsWith('a')\",\"Message\":\"\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: compilation failed: ERROR: \u003cinput\u003e:1:25: found no matching overload for 'startsWith' applied to 'int.(string)'\n | self.replicas.startsWith('a')\n | ........................^","field":"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule"}]},"code":422}
}
