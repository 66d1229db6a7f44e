package server

import (
	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
)

func envelopeListMeta(rev rv.Version) envelope.ListMeta {
	return envelope.ListMeta{ResourceVersion: rev.String()}
}

// appendStatusEnvelope appends st as a protobuf v1 Status envelope.
func appendStatusEnvelope(b []byte, st status.Status) []byte {
	es := envelope.Status{
		Metadata: envelope.ListMeta{ResourceVersion: st.Metadata.ResourceVersion, Continue: st.Metadata.Continue,
			RemainingItemCount: st.Metadata.RemainingItemCount},
		Status: st.Status, Message: st.Message, Reason: string(st.Reason), Code: st.Code,
	}
	if d := st.Details; d != nil {
		es.Details = &envelope.StatusDetails{Name: d.Name, Group: d.Group, Kind: d.Kind, UID: d.UID,
			RetryAfterSeconds: d.RetryAfterSeconds}
		for _, c := range d.Causes {
			es.Details.Causes = append(es.Details.Causes, envelope.StatusCause{Type: string(c.Type), Message: c.Message, Field: c.Field})
		}
	}
	return envelope.AppendEnvelopeFunc(b, "v1", "Status", envelope.SizeStatus(&es), func(b []byte) []byte {
		return envelope.AppendStatus(b, &es)
	})
}
