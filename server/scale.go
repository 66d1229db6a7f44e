package server

import (
	"fmt"
	"math"
	"mime"
	"net/http"
	"time"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/negotiation"
	"github.com/apisem/apisem/patch"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

// Scale is autoscaling/v1 Scale, the view of an object's replicas that its
// scale subresource serves (kubectl scale and the HorizontalPodAutoscaler
// use it).
type Scale struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Spec            ScaleSpec   `json:"spec"`
	Status          ScaleStatus `json:"status"`
}

// ScaleSpec is the wanted number of replicas.
type ScaleSpec struct {
	Replicas int32 `json:"replicas,omitempty"`
}

// ScaleStatus is the observed number of replicas and the label selector
// of the pods (or whatever is counted), in its string form.
type ScaleStatus struct {
	Replicas int32  `json:"replicas"`
	Selector string `json:"selector,omitempty"`
}

// Meta returns the object's metadata.
func (s *Scale) Meta() *meta.ObjectMeta { return &s.ObjectMeta }

// Types returns the object's kind and apiVersion.
func (s *Scale) Types() *meta.TypeMeta { return &s.TypeMeta }

// DeepCopyObject returns a copy sharing nothing with s.
func (s *Scale) DeepCopyObject() Object {
	c := *s
	s.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// ScaleSubresource serves an object's replicas as <name>/scale (get,
// update, patch), as Kubernetes serves a custom resource's scale
// subresource: a read answers the Scale of the stored object; a write
// changes the object's spec replicas alone, with the object's own
// defaulting and validation, and answers the Scale of the result.
type ScaleSubresource struct {
	// SpecReplicasPath names the spec replicas in messages, such as
	// ".spec.replicas".
	SpecReplicasPath string
	// Get returns the replicas of obj (which it must not modify): found
	// is false when obj has no spec replicas, which a GET answers with a
	// 500 and a write that sets none with a 400, as Kubernetes does. An
	// error (a value of the wrong type) is a 500 with its text as the
	// message, or a 400 when it is the result of a write.
	Get func(obj Object) (spec ScaleSpec, st ScaleStatus, found bool, err error)
	// Set sets the spec replicas of obj, a copy the server owns.
	Set func(obj Object, replicas int32) error
}

// scaleVerbs are the verbs of the scale subresource, sorted as discovery
// lists them.
var scaleVerbs = []string{"get", "patch", "update"}

// scaleResource describes the Scale objects of res's scale subresource,
// for decoding and encoding them.
func scaleResource(res *Resource) *Resource {
	return &Resource{
		Group: "autoscaling", Version: "v1", Kind: "Scale", ListKind: "ScaleList",
		Plural: res.Plural, Namespaced: res.Namespaced,
		New: func() Object { return &Scale{} },
		// Kubernetes' default Table columns.
		Columns: []Column{NameColumn, {Name: "Created At", Type: "date", Description: CreationTimestampDescription,
			Cell: func(o Object, _ time.Time) any { return o.Meta().CreationTimestamp.UTC().Format(time.RFC3339) }}},
	}
}

// scaleOf returns the Scale of o. found is as ScaleSubresource.Get's.
func (rs *resource) scaleOf(o Object) (*Scale, bool, error) {
	spec, st, found, err := rs.def.Scale.Get(o)
	if err != nil {
		return nil, false, err
	}
	m := o.Meta()
	return &Scale{
		ObjectMeta: meta.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
		Spec: spec, Status: st,
	}, found, nil
}

// unsetReplicas stands for spec replicas an object does not have, in the
// Scale a patch applies to: a patch that leaves it is refused.
const unsetReplicas = math.MinInt32

// serveScale serves the scale subresource of t.res.
func (s *Server) serveScale(w http.ResponseWriter, r *http.Request, t *target) error {
	sr := t.res.scale
	res, err := sr.negotiate(r, negotiation.Object)
	if err != nil {
		return err
	}
	if t.verb == verbGet {
		read, err := rv.ResolveGetQuery(r.URL.RawQuery)
		if err != nil {
			return err
		}
		o, err := t.res.store.View(r.Context(), t.namespace, t.name, read)
		if err != nil {
			return err
		}
		sc, found, err := t.res.scaleOf(t.res.def.read(o))
		if err != nil {
			return err
		}
		if !found {
			return status.NewInternalError(fmt.Errorf("the spec replicas field %q does not exist", t.res.def.Scale.SpecReplicasPath))
		}
		return s.writeObject(w, r, http.StatusOK, sr, res, sc)
	}

	// A write computes the new Scale from the current one.
	var next func(cur *Scale) (*Scale, error)
	var opts writeOptions
	var warnings []string
	if t.verb == verbUpdate {
		if opts, err = parseWriteOptions(r, negotiation.UpdateOptions, false); err != nil {
			return err
		}
		o, warns, err := s.decodeObject(r, sr, opts.FieldValidation)
		negotiation.WriteWarnings(w.Header(), warns)
		if err != nil {
			return err
		}
		if err := matchURL(t, o.Meta()); err != nil {
			return err
		}
		next = func(*Scale) (*Scale, error) { return o.(*Scale), nil }
	} else {
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if ct != jsonPatchType && ct != mergePatchType && ct != strategicPatchType {
			return status.NewUnsupportedBodyMediaType(jsonPatchType, mergePatchType, strategicPatchType)
		}
		if opts, err = parseWriteOptions(r, negotiation.PatchOptions, false); err != nil {
			return err
		}
		body, err := negotiation.ReadBodyBytes(r, t.res.maxBody)
		if err != nil {
			return err
		}
		st := &target{res: sr, namespace: t.namespace, name: t.name, verb: verbPatch}
		next = func(cur *Scale) (*Scale, error) {
			doc, err := sr.codec.objectJSON(cur)
			if err != nil {
				return nil, err
			}
			// Scale has no patch strategies: a strategic merge patch
			// merges as a merge patch does.
			o, warns, err := s.patched(st, doc, body, ct, opts, &patch.Schema{})
			warnings = warns
			if err != nil {
				return nil, err
			}
			return o.(*Scale), nil
		}
	}
	sub := t.res.def.Scale
	out, err := s.updateObject(r.Context(), t, opts.DryRun, &opts.owner, func(cur Object) (Object, error) {
		sc, found, err := t.res.scaleOf(cur)
		if err != nil {
			return nil, err
		}
		if !found {
			sc.Spec.Replicas = unsetReplicas
		}
		n, err := next(sc)
		if err != nil {
			return nil, err
		}
		if n.Spec.Replicas == unsetReplicas {
			return nil, status.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", sub.SpecReplicasPath))
		}
		o := cur.DeepCopyObject()
		if err := sub.Set(o, n.Spec.Replicas); err != nil {
			return nil, err
		}
		// The Scale's resourceVersion, if any, is a precondition;
		// without one the write is unconditional.
		if n.ResourceVersion != "" {
			o.Meta().ResourceVersion = n.ResourceVersion
		}
		return o, nil
	})
	if err != nil {
		return err
	}
	negotiation.WriteWarnings(w.Header(), warnings)
	sc, _, err := t.res.scaleOf(out)
	if err != nil {
		return status.NewBadRequest(err.Error())
	}
	return s.writeObject(w, r, http.StatusOK, sr, res, sc)
}
