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

// The aggregated discovery document as discoveryProtobuf reads it back
// (apidiscovery.k8s.io/v2; the server's own types serve its JSON).
type (
	aggList struct {
		Kind       string     `json:"kind"`
		APIVersion string     `json:"apiVersion"`
		Items      []aggGroup `json:"items"`
	}
	aggGroup struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []aggVersion `json:"versions"`
	}
	aggVersion struct {
		Version   string        `json:"version"`
		Resources []aggResource `json:"resources"`
		Freshness string        `json:"freshness"`
	}
	aggResource struct {
		Resource         string           `json:"resource"`
		ResponseKind     *aggGVK          `json:"responseKind"`
		Scope            string           `json:"scope"`
		SingularResource string           `json:"singularResource"`
		Verbs            []string         `json:"verbs"`
		ShortNames       []string         `json:"shortNames"`
		Categories       []string         `json:"categories"`
		Subresources     []aggSubresource `json:"subresources"`
	}
	aggSubresource struct {
		Subresource   string   `json:"subresource"`
		ResponseKind  *aggGVK  `json:"responseKind"`
		AcceptedTypes []aggGVK `json:"acceptedTypes"`
		Verbs         []string `json:"verbs"`
	}
	aggGVK struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	}
)

// aggregatedProtobuf encodes an aggregated discovery document (its JSON)
// as kube-apiserver writes application/vnd.kubernetes.protobuf;
// g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList: the messages of
// k8s.io/api/apidiscovery/v2 (generated.proto) in the envelope, with
// metav1's ListMeta and ObjectMeta written whole and empty but for a
// group's name.
func aggregatedProtobuf(doc []byte) ([]byte, error) {
	var l aggList
	if err := json.Unmarshal(doc, &l); err != nil {
		return nil, err
	}
	return envelope.AppendEnvelopeFunc(nil, l.APIVersion, l.Kind, len(doc), func(b []byte) []byte {
		// ListMeta: selfLink 1, resourceVersion 2, continue 3.
		b = append(b, "\x0a\x06\x0a\x00\x12\x00\x1a\x00"...)
		for i := range l.Items {
			b = envelope.AppendMessageFunc(b, 2, 0, func(b []byte) []byte { return appendAggGroup(b, &l.Items[i]) })
		}
		return b
	}), nil
}

// appendAggGroup appends an APIGroupDiscovery: metadata 1, versions 2.
func appendAggGroup(b []byte, g *aggGroup) []byte {
	b = envelope.AppendMessageFunc(b, 1, 0, func(b []byte) []byte {
		// ObjectMeta: name 1, generateName 2, namespace 3, selfLink 4,
		// uid 5, resourceVersion 6 (strings), generation 7, and an empty
		// creationTimestamp 8.
		b = appendProtoString(b, 1, g.Metadata.Name)
		return append(b, "\x12\x00\x1a\x00\x22\x00\x2a\x00\x32\x00\x38\x00\x42\x00"...)
	})
	for i := range g.Versions {
		v := &g.Versions[i]
		// APIVersionDiscovery: version 1, resources 2, freshness 3.
		b = envelope.AppendMessageFunc(b, 2, 0, func(b []byte) []byte {
			b = appendProtoString(b, 1, v.Version)
			for j := range v.Resources {
				b = envelope.AppendMessageFunc(b, 2, 0, func(b []byte) []byte { return appendAggResource(b, &v.Resources[j]) })
			}
			return appendProtoString(b, 3, v.Freshness)
		})
	}
	return b
}

// appendAggResource appends an APIResourceDiscovery: resource 1,
// responseKind 2, scope 3, singularResource 4, verbs 5, shortNames 6,
// categories 7, subresources 8 (an APISubresourceDiscovery: subresource 1,
// responseKind 2, acceptedTypes 3, verbs 4).
func appendAggResource(b []byte, r *aggResource) []byte {
	b = appendProtoString(b, 1, r.Resource)
	b = appendGVK(b, 2, r.ResponseKind)
	b = appendProtoString(b, 3, r.Scope)
	b = appendProtoString(b, 4, r.SingularResource)
	for _, s := range r.Verbs {
		b = appendProtoString(b, 5, s)
	}
	for _, s := range r.ShortNames {
		b = appendProtoString(b, 6, s)
	}
	for _, s := range r.Categories {
		b = appendProtoString(b, 7, s)
	}
	for i := range r.Subresources {
		sub := &r.Subresources[i]
		b = envelope.AppendMessageFunc(b, 8, 0, func(b []byte) []byte {
			b = appendProtoString(b, 1, sub.Subresource)
			b = appendGVK(b, 2, sub.ResponseKind)
			for k := range sub.AcceptedTypes {
				b = appendGVK(b, 3, &sub.AcceptedTypes[k])
			}
			for _, s := range sub.Verbs {
				b = appendProtoString(b, 4, s)
			}
			return b
		})
	}
	return b
}

// appendGVK appends a GroupVersionKind (group 1, version 2, kind 3), if
// there is one.
func appendGVK(b []byte, num protowire.Number, k *aggGVK) []byte {
	if k == nil {
		return b
	}
	return envelope.AppendMessageFunc(b, num, 0, func(b []byte) []byte {
		return appendProtoString(appendProtoString(appendProtoString(b, 1, k.Group), 2, k.Version), 3, k.Kind)
	})
}
