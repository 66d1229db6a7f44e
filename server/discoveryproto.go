package server

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/apisem/apisem/envelope"
)

// discoveryProtobuf encodes an unaggregated discovery document, given as
// the JSON the server keeps, in Kubernetes' protobuf form, in the
// envelope with the document's apiVersion and kind, byte for byte as
// kube-apiserver writes it: the messages APIVersions, APIGroupList,
// APIGroup and APIResourceList of k8s.io/apimachinery/pkg/apis/meta/v1
// (generated.proto), each field in number order, every singular field
// written even when empty, as gogo-protobuf's marshaller writes
// non-nullable fields. It runs per request: discovery is asked for rarely,
// and its JSON is the one stored form.
func discoveryProtobuf(doc []byte) ([]byte, error) {
	var head struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return nil, err
	}
	var appendRaw func([]byte) []byte
	switch head.Kind {
	case "APIVersions":
		var v apiVersions
		if err := json.Unmarshal(doc, &v); err != nil {
			return nil, err
		}
		appendRaw = func(b []byte) []byte {
			for _, s := range v.Versions {
				b = appendProtoString(b, 1, s)
			}
			return appendServerAddresses(b, 2, v.ServerAddressByClientCIDRs)
		}
	case "APIGroupList":
		var l apiGroupList
		if err := json.Unmarshal(doc, &l); err != nil {
			return nil, err
		}
		appendRaw = func(b []byte) []byte {
			for i := range l.Groups {
				b = envelope.AppendMessageFunc(b, 1, 0, func(b []byte) []byte { return appendAPIGroup(b, &l.Groups[i]) })
			}
			return b
		}
	case "APIGroup":
		var g apiGroup
		if err := json.Unmarshal(doc, &g); err != nil {
			return nil, err
		}
		appendRaw = func(b []byte) []byte { return appendAPIGroup(b, &g) }
	case "APIResourceList":
		var l apiResourceList
		if err := json.Unmarshal(doc, &l); err != nil {
			return nil, err
		}
		appendRaw = func(b []byte) []byte {
			b = appendProtoString(b, 1, l.GroupVersion)
			for i := range l.Resources {
				b = envelope.AppendMessageFunc(b, 2, 0, func(b []byte) []byte { return appendAPIResource(b, &l.Resources[i]) })
			}
			return b
		}
	default:
		return nil, fmt.Errorf("server: no protobuf form for discovery kind %q", head.Kind)
	}
	return envelope.AppendEnvelopeFunc(nil, head.APIVersion, head.Kind, len(doc), appendRaw), nil
}

// appendAPIGroup appends the fields of an APIGroup: name 1, versions 2,
// preferredVersion 3 (serverAddressByClientCIDRs 4 is empty in a group).
func appendAPIGroup(b []byte, g *apiGroup) []byte {
	b = appendProtoString(b, 1, g.Name)
	for i := range g.Versions {
		b = appendGroupVersion(b, 2, &g.Versions[i])
	}
	return appendGroupVersion(b, 3, &g.PreferredVersion)
}

// appendGroupVersion appends a GroupVersionForDiscovery: groupVersion 1,
// version 2.
func appendGroupVersion(b []byte, num protowire.Number, v *groupVersion) []byte {
	return envelope.AppendMessageFunc(b, num, 0, func(b []byte) []byte {
		return appendProtoString(appendProtoString(b, 1, v.GroupVersion), 2, v.Version)
	})
}

// appendServerAddresses appends ServerAddressByClientCIDRs: clientCIDR 1,
// serverAddress 2.
func appendServerAddresses(b []byte, num protowire.Number, as []serverAddress) []byte {
	for _, a := range as {
		b = envelope.AppendMessageFunc(b, num, 0, func(b []byte) []byte {
			return appendProtoString(appendProtoString(b, 1, a.ClientCIDR), 2, a.ServerAddress)
		})
	}
	return b
}

// appendAPIResource appends an APIResource: name 1, namespaced 2, kind 3,
// verbs 4 (a message of items 1), shortNames 5, singularName 6,
// categories 7, group 8, version 9, storageVersionHash 10.
func appendAPIResource(b []byte, r *apiResource) []byte {
	b = appendProtoString(b, 1, r.Name)
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, protowire.EncodeBool(r.Namespaced))
	b = appendProtoString(b, 3, r.Kind)
	if r.Verbs != nil {
		b = envelope.AppendMessageFunc(b, 4, 0, func(b []byte) []byte {
			for _, v := range r.Verbs {
				b = appendProtoString(b, 1, v)
			}
			return b
		})
	}
	for _, s := range r.ShortNames {
		b = appendProtoString(b, 5, s)
	}
	b = appendProtoString(b, 6, r.SingularName)
	for _, s := range r.Categories {
		b = appendProtoString(b, 7, s)
	}
	b = appendProtoString(b, 8, r.Group)
	b = appendProtoString(b, 9, r.Version)
	return appendProtoString(b, 10, r.StorageVersionHash)
}

func appendProtoString(b []byte, num protowire.Number, s string) []byte {
	return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), s)
}
