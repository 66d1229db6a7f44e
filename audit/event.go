package audit

import (
	"encoding/json"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/status"
)

// APIVersion is the group and version of the audit types.
const APIVersion = "audit.k8s.io/v1"

// Level is how much of a request an event records.
type Level string

// The levels, from least to most.
const (
	// LevelNone records nothing.
	LevelNone Level = "None"
	// LevelMetadata records who asked what and the answer's status, not
	// the bodies.
	LevelMetadata Level = "Metadata"
	// LevelRequest records the request's body too (resource requests
	// only).
	LevelRequest Level = "Request"
	// LevelRequestResponse records the response's body too (resource
	// requests only).
	LevelRequestResponse Level = "RequestResponse"
)

// rank orders the levels; an unknown level ranks as None.
func (l Level) rank() int {
	switch l {
	case LevelMetadata:
		return 1
	case LevelRequest:
		return 2
	case LevelRequestResponse:
		return 3
	}
	return 0
}

// AtLeast reports whether l records at least what o records.
func (l Level) AtLeast(o Level) bool { return l.rank() >= o.rank() }

// Stage is the point of a request's handling at which an event is made.
type Stage string

// The stages, in the order a request passes them.
const (
	// StageRequestReceived is as soon as the audit filter receives the
	// request, before the rest of the chain.
	StageRequestReceived Stage = "RequestReceived"
	// StageResponseStarted is when the response's headers are sent, for
	// long-running requests (watches) only.
	StageResponseStarted Stage = "ResponseStarted"
	// StageResponseComplete is when the response has been sent.
	StageResponseComplete Stage = "ResponseComplete"
	// StagePanic is when the handler panicked.
	StagePanic Stage = "Panic"
)

// Event is an audit.k8s.io/v1 Event: one stage of one request, as
// kube-apiserver writes it to its audit log.
type Event struct {
	Kind       string `json:"kind,omitempty"`       // "Event"
	APIVersion string `json:"apiVersion,omitempty"` // APIVersion
	Level      Level  `json:"level"`
	// AuditID is the request's id, the same in each of its events, and
	// sent to the client in the Audit-Id header.
	AuditID string `json:"auditID"`
	Stage   Stage  `json:"stage"`
	// RequestURI is the path and query the client sent.
	RequestURI string `json:"requestURI"`
	// Verb is the Kubernetes verb of a resource request, the lower-case
	// HTTP method of any other.
	Verb string   `json:"verb"`
	User UserInfo `json:"user"`
	// ImpersonatedUser is the user a request impersonated; the server
	// does not implement impersonation, so only events of other servers
	// have it.
	ImpersonatedUser *UserInfo `json:"impersonatedUser,omitempty"`
	// SourceIPs are the addresses of X-Forwarded-For, then X-Real-Ip,
	// then the connection's peer: all but the last are the client's say.
	SourceIPs []string `json:"sourceIPs,omitempty"`
	UserAgent string   `json:"userAgent,omitempty"`
	// ObjectRef is what a resource request addresses; nil for others.
	ObjectRef *ObjectReference `json:"objectRef,omitempty"`
	// ResponseStatus is the response's code, and for a Status response
	// its status, message, reason and details.
	ResponseStatus *status.Status `json:"responseStatus,omitempty"`
	// RequestObject is the request's body, as JSON, at Request level and
	// above; ResponseObject the response's at RequestResponse level.
	RequestObject  json.RawMessage `json:"requestObject,omitempty"`
	ResponseObject json.RawMessage `json:"responseObject,omitempty"`

	RequestReceivedTimestamp meta.MicroTime `json:"requestReceivedTimestamp"`
	StageTimestamp           meta.MicroTime `json:"stageTimestamp"`
	// Annotations are set by the server's filters (the authorization
	// decision) and by hooks; they are recorded at Metadata level.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// UserInfo is authentication.k8s.io/v1 UserInfo.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// ObjectReference is what a resource request addresses.
type ObjectReference struct {
	Resource        string `json:"resource,omitempty"`
	Namespace       string `json:"namespace,omitempty"`
	Name            string `json:"name,omitempty"`
	UID             string `json:"uid,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Subresource     string `json:"subresource,omitempty"`
}

// EventList is an audit.k8s.io/v1 EventList, the form of a batch of events
// sent to a webhook.
type EventList struct {
	Kind       string        `json:"kind,omitempty"`       // "EventList"
	APIVersion string        `json:"apiVersion,omitempty"` // APIVersion
	Metadata   meta.ListMeta `json:"metadata"`
	Items      []Event       `json:"items"`
}
