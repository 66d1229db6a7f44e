package server

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/status"
)

// decodeObject decodes the body of a create or update into a new object
// of rs's type, with field validation v. It returns the warnings of Warn
// mode.
func (s *Server) decodeObject(r *http.Request, rs *resource, v negotiation.FieldValidation) (Object, []string, error) {
	body, media, err := rs.endpoint(negotiation.Object).ReadBody(r)
	if err != nil {
		return nil, nil, err
	}
	if media == negotiation.Protobuf {
		return decodeProto(body, rs)
	}
	o := rs.def.New()
	warnings, err := negotiation.Decode(body, media, o, rs.decodeOptions(v))
	if err != nil {
		if tm := o.Types(); rs.def.CheckTypes != nil && (tm.APIVersion != "" || tm.Kind != "") {
			// A body of a kind the endpoint's cannot be converted from
			// fails so before its fields are checked, as in Kubernetes'
			// decoding.
			if terr := rs.def.CheckTypes(tm.APIVersion, tm.Kind); terr != nil {
				return nil, nil, terr
			}
		}
		return nil, nil, err
	}
	if err := checkTypes(o.Types(), rs); err != nil {
		return nil, nil, err
	}
	*o.Types() = meta.TypeMeta{}
	return o, warnings, nil
}

// decodeOptions are the options of decoding a body into an object of
// rs's type.
func (rs *resource) decodeOptions(v negotiation.FieldValidation) negotiation.DecodeOptions {
	opts := negotiation.DecodeOptions{Kind: rs.def.Kind, Version: rs.def.Version, FieldValidation: v}
	if c := rs.def.Coerce; c != nil {
		opts.Coerce = func(o any, strict []error) []error { return c(o.(Object), strict) }
	}
	return opts
}

// checkTypes checks the kind and apiVersion a body carries against the
// endpoint's; a body may leave them out.
func checkTypes(tm *meta.TypeMeta, rs *resource) error {
	if c := rs.def.CheckTypes; c != nil {
		if err := c(tm.APIVersion, tm.Kind); err != nil {
			return err
		}
	}
	if tm.APIVersion != "" && tm.APIVersion != rs.codec.gv {
		return status.NewBadRequest("the API version in the data (" + tm.APIVersion +
			") does not match the expected API version (" + rs.codec.gv + ")")
	}
	if tm.Kind != "" && tm.Kind != rs.def.Kind {
		return status.NewBadRequest("the kind in the data (" + tm.Kind + ") does not match the expected kind (" + rs.def.Kind + ")")
	}
	return nil
}

// decodeProto decodes a protobuf envelope body. Kubernetes' protobuf
// decoding is never strict, and neither is this.
func decodeProto(body []byte, rs *resource) (Object, []string, error) {
	e, err := envelope.ConsumeEnvelope(body)
	if err != nil {
		return nil, nil, unrecognized(rs.def.Kind, err, body)
	}
	if err := checkTypes(&meta.TypeMeta{Kind: e.Kind, APIVersion: e.APIVersion}, rs); err != nil {
		return nil, nil, err
	}
	o, err := rs.def.DecodeProto(e.Raw)
	if err != nil {
		return nil, nil, status.NewBadRequest(rs.def.Kind + " in version " + strconv.Quote(rs.def.Version) +
			" cannot be handled as a " + rs.def.Kind + ": " + err.Error())
	}
	*o.Types() = meta.TypeMeta{}
	return o, nil, nil
}

// unrecognized is Kubernetes' 400 for a body that is not an object at all:
// the decoder's error and the first bytes, as text if they look like JSON.
func unrecognized(kind string, err error, body []byte) *status.Error {
	summary := "<empty>"
	if len(body) > 0 {
		n := min(len(body), 30)
		if body[0] == '{' {
			summary = string(body[:n]) + " ..."
		} else {
			summary = hex.EncodeToString(body[:n]) + " ..."
		}
	}
	return status.NewBadRequest("the object provided is unrecognized (must be of type " + kind + "): " + err.Error() + " (" + summary + ")")
}

// deleteBody is metav1.DeleteOptions.
type deleteBody struct {
	Kind               string   `json:"kind,omitempty"`
	APIVersion         string   `json:"apiVersion,omitempty"`
	GracePeriodSeconds *int64   `json:"gracePeriodSeconds,omitempty"`
	Preconditions      *precond `json:"preconditions,omitempty"`
	OrphanDependents   *bool    `json:"orphanDependents,omitempty"`
	PropagationPolicy  *string  `json:"propagationPolicy,omitempty"`
	DryRun             []string `json:"dryRun,omitempty"`
	// sent: the request had a body, whose options replace the query's
	// (kube-apiserver decodes the query's only without one).
	sent bool
}

type precond struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}

// decodeDeleteOptions decodes the optional DeleteOptions body of a delete,
// in JSON, YAML or protobuf (client-go's typed clients send protobuf).
func decodeDeleteOptions(rs *resource, r *http.Request) (deleteBody, error) {
	var body deleteBody
	if r.Body == nil || r.ContentLength == 0 {
		return body, nil
	}
	// Any media type the server reads is fine for DeleteOptions, even at
	// an endpoint whose own type has no protobuf form.
	b, media, err := negotiation.Endpoint{MaxBodyBytes: rs.maxBody}.ReadBody(r)
	if err != nil || len(b) == 0 {
		return body, err
	}
	body.sent = true
	if len(bytes.TrimSpace(b)) == 0 {
		return body, nil
	}
	if media == negotiation.Protobuf {
		e, err := envelope.ConsumeEnvelope(b)
		if err == nil {
			err = consumeDeleteOptions(e.Raw, &body)
		}
		if err != nil {
			return body, unrecognized("DeleteOptions", err, b)
		}
		return body, deleteOptionsKind(e.Kind, e.APIVersion)
	}
	_, err = negotiation.Decode(b, media, &body, negotiation.DecodeOptions{
		Kind: "DeleteOptions", Version: "v1", FieldValidation: negotiation.FieldValidationIgnore,
	})
	if err == nil {
		err = deleteOptionsKind(body.Kind, body.APIVersion)
	}
	return body, err
}

// metaKinds are the kinds kube-apiserver's scheme for options knows, by
// the versions it knows them in ("*": every version); any of them but
// DeleteOptions in a DeleteOptions body fails to convert.
var metaKinds = map[string]string{
	"Status": "*", "APIVersions": "*", "APIGroup": "*", "APIGroupList": "*", "APIResourceList": "*",
	"CreateOptions": "*", "UpdateOptions": "*",
	"ListOptions": "meta.k8s.io/v1", "GetOptions": "meta.k8s.io/v1", "PatchOptions": "meta.k8s.io/v1",
	"WatchEvent": "meta.k8s.io/v1",
	"Table":      "meta.k8s.io/v1 meta.k8s.io/v1beta1", "TableOptions": "meta.k8s.io/v1 meta.k8s.io/v1beta1",
	"PartialObjectMetadata": "meta.k8s.io/v1 meta.k8s.io/v1beta1", "PartialObjectMetadataList": "meta.k8s.io/v1 meta.k8s.io/v1beta1",
}

// deleteOptionsKind checks the kind a DeleteOptions body names, with the
// 400s of kube-apiserver 1.37.1: none and DeleteOptions (in any version)
// are fine; a kind its options scheme knows does not convert; any other
// is not registered, in the version given (meta.k8s.io/v1 when none is).
func deleteOptionsKind(kind, apiVersion string) error {
	if kind == "" || kind == "DeleteOptions" {
		return nil
	}
	if apiVersion == "" {
		apiVersion = "meta.k8s.io/v1"
	}
	if vs := metaKinds[kind]; vs == "*" || slices.Contains(strings.Fields(vs), apiVersion) {
		goType := "v1." + kind
		if kind == "PartialObjectMetadataList" && apiVersion == "meta.k8s.io/v1beta1" {
			goType = "v1beta1." + kind // its own type there
		}
		return status.NewBadRequest("converting (" + goType + ") to (v1.DeleteOptions): unknown conversion")
	}
	return status.NewBadRequest("no kind " + strconv.Quote(kind) + " is registered for version " +
		strconv.Quote(apiVersion) + ` in scheme "pkg/runtime/scheme.go:111"`)
}

// consumeDeleteOptions decodes metav1.DeleteOptions: gracePeriodSeconds 1,
// preconditions 2 (uid 1, resourceVersion 2), orphanDependents 3,
// propagationPolicy 4, dryRun 5.
func consumeDeleteOptions(b []byte, d *deleteBody) error {
	return envelope.RangeFields(b, func(f envelope.Field) error {
		var err error
		switch f.Num {
		case 1:
			var v int64
			if v, err = f.AsInt64(); err == nil {
				d.GracePeriodSeconds = &v
			}
		case 2:
			var pb []byte
			if pb, err = f.AsBytes(); err != nil {
				return err
			}
			p := &precond{}
			err = envelope.RangeFields(pb, func(f envelope.Field) error {
				v, err := f.AsString()
				switch f.Num {
				case 1:
					p.UID = &v
				case 2:
					p.ResourceVersion = &v
				}
				return err
			})
			d.Preconditions = p
		case 3:
			var v bool
			if v, err = f.AsBool(); err == nil {
				d.OrphanDependents = &v
			}
		case 4:
			var v string
			if v, err = f.AsString(); err == nil {
				d.PropagationPolicy = &v
			}
		case 5:
			var v string
			if v, err = f.AsString(); err == nil {
				d.DryRun = append(d.DryRun, v)
			}
		}
		return err
	})
}
