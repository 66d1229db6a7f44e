package demo

import (
	"encoding/json"
	"reflect"

	"github.com/apisem/apisem/server"
)

// withReplacements serves extra with the demo's resources: the demo's
// core resources first, then extra's, then the demo's of other groups
// (custom ones after the built-in groups in discovery, as in a cluster).
// A resource of extra replaces the demo's of the same group and plural,
// in extra's place, so a build that serves Kubernetes' own types
// (module builtin) serves its ConfigMaps, Secrets and Events, never two
// of them. builtin counts the resources before the demo's other groups.
func withReplacements(demo, extra []*server.Resource) (out []*server.Resource, builtin int) {
	replaced := func(r *server.Resource) bool {
		for _, e := range extra {
			if e.Group == r.Group && e.Plural == r.Plural {
				return true
			}
		}
		return false
	}
	var core, other []*server.Resource
	for _, r := range demo {
		switch {
		case replaced(r):
		case r.Group == "":
			core = append(core, r)
		default:
			other = append(other, r)
		}
	}
	out = append(core, extra...)
	return append(out, other...), len(out)
}

// asServed returns obj, a type of package api, as the Go type res
// stores: obj itself, or, for a resource that replaced the demo's, the
// object its JSON decodes to (the demo's types have Kubernetes' JSON
// form).
func asServed(res *server.Resource, obj server.Object) (server.Object, error) {
	o := res.New()
	if reflect.TypeOf(o) == reflect.TypeOf(obj) {
		return obj, nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, o); err != nil {
		return nil, err
	}
	return o, nil
}
