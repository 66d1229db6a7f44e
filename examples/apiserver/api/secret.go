package api

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"maps"

	"github.com/apisem/apisem/envelope"
	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/server"
	"github.com/apisem/apisem/status"
)

// SecretTypeOpaque is the default type of a Secret.
const SecretTypeOpaque = "Opaque"

// Secret is core v1 Secret. JSON order: metadata, immutable, data,
// stringData, type; protobuf: metadata 1, data 2, type 3, stringData 4,
// immutable 5.
type Secret struct {
	meta.TypeMeta
	meta.ObjectMeta `json:"metadata"`
	Immutable       *bool             `json:"immutable,omitempty"`
	Data            map[string][]byte `json:"data,omitempty"`
	// StringData is write-only: on create and update it is merged into
	// Data and cleared, so it is never stored or returned.
	StringData map[string]string `json:"stringData,omitempty"`
	Type       string            `json:"type,omitempty"`
}

// Types returns the object's TypeMeta.
func (s *Secret) Types() *meta.TypeMeta { return &s.TypeMeta }

// DeepCopyObject returns a deep copy of s.
func (s *Secret) DeepCopyObject() server.Object { return s.DeepCopy() }

// DeepCopy returns a deep copy of s.
func (s *Secret) DeepCopy() *Secret {
	out := &Secret{TypeMeta: s.TypeMeta, Immutable: copyBool(s.Immutable), Type: s.Type}
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Data = copyBytesMap(s.Data)
	out.StringData = maps.Clone(s.StringData)
	return out
}

// AppendProto appends the protobuf encoding of s.
func (s *Secret) AppendProto(b []byte) []byte {
	b = meta.AppendObjectMetadata(b, &s.ObjectMeta)
	b = envelope.AppendBytesMap(b, 2, s.Data)
	b = appendString(b, 3, s.Type)
	b = envelope.AppendStringMap(b, 4, s.StringData)
	if s.Immutable != nil {
		b = appendBool(b, 5, *s.Immutable)
	}
	return b
}

// SizeProto returns the length of s's protobuf encoding.
func (s *Secret) SizeProto() int {
	n := meta.SizeObjectMetadata(&s.ObjectMeta) + envelope.SizeBytesMap(2, s.Data) + sizeString(3, s.Type) +
		envelope.SizeStringMap(4, s.StringData)
	if s.Immutable != nil {
		n += sizeBool(5)
	}
	return n
}

func decodeSecret(b []byte) (server.Object, error) {
	s := &Secret{}
	return decodeObject(b, s, func(f envelope.Field) (err error) {
		switch f.Num {
		case 2:
			s.Data, err = envelope.AddBytesMapEntry(s.Data, f)
		case 3:
			s.Type, err = f.AsString()
		case 4:
			s.StringData, err = envelope.AddStringMapEntry(s.StringData, f)
		case 5:
			s.Immutable, err = decodeOptionalBool(f)
		}
		return err
	})
}

// defaultSecret applies Kubernetes' defaulting: the Opaque type, and
// stringData merged over data.
func defaultSecret(o server.Object) {
	s := o.(*Secret)
	if s.Type == "" {
		s.Type = SecretTypeOpaque
	}
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = make(map[string][]byte, len(s.StringData))
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
}

// The Secret types whose data Kubernetes checks, and the keys each needs
// (k8s.io/api/core/v1/types.go).
const (
	SecretTypeServiceAccountToken = "kubernetes.io/service-account-token"
	SecretTypeDockercfg           = "kubernetes.io/dockercfg"
	SecretTypeDockerConfigJSON    = "kubernetes.io/dockerconfigjson"
	SecretTypeBasicAuth           = "kubernetes.io/basic-auth"
	SecretTypeSSHAuth             = "kubernetes.io/ssh-auth"
	SecretTypeTLS                 = "kubernetes.io/tls"

	// ServiceAccountNameKey is the annotation a service account token
	// Secret must carry: the name of its service account.
	ServiceAccountNameKey = "kubernetes.io/service-account.name"
)

// validateSecret checks a Secret as Kubernetes' ValidateSecret and
// ValidateSecretUpdate do, in their order: on update the type and, when
// the old Secret is immutable, its data may not change; then the data's
// keys (sorted here; Kubernetes walks the map in random order), its total
// size (values only) and what the Secret's type asks of it.
func validateSecret(o, old server.Object) []FieldError {
	s := o.(*Secret)
	var errs []FieldError
	if old != nil {
		prev := old.(*Secret)
		if s.Type != prev.Type {
			errs = append(errs, invalid("type", s.Type, "field is immutable"))
		}
		if isTrue(prev.Immutable) {
			errs = append(errs, frozen(s.Immutable, change{"data", !maps.EqualFunc(s.Data, prev.Data, bytes.Equal)})...)
		}
	}
	if !validKeys(s.Data) {
		for _, k := range sortedKeys(s.Data) {
			errs = appendKeyErrors(errs, "data", k)
		}
	}
	if valuesSize(s.Data) > maxDataSize {
		errs = append(errs, status.TooLong("data", maxDataSize))
	}
	return append(errs, secretTypeErrors(s)...)
}

// secretTypeErrors checks the data (or annotation) a Secret's type needs.
// Other types, Opaque and bootstrap tokens among them, need nothing.
func secretTypeErrors(s *Secret) []FieldError {
	key := func(k string) string { return "data[" + k + "]" }
	has := func(k string) bool { _, ok := s.Data[k]; return ok }
	switch s.Type {
	case SecretTypeServiceAccountToken:
		// A controller adds the token later; only the account is needed.
		if s.Annotations[ServiceAccountNameKey] == "" {
			return []FieldError{required("metadata.annotations["+ServiceAccountNameKey+"]", "")}
		}
	case SecretTypeDockercfg, SecretTypeDockerConfigJSON:
		k := ".dockercfg"
		if s.Type == SecretTypeDockerConfigJSON {
			k = ".dockerconfigjson"
		}
		if !has(k) {
			return []FieldError{required(key(k), "")}
		}
		if err := checkDockerConfig(s.Data[k]); err != nil {
			return []FieldError{invalid(key(k), "<secret contents redacted>", err.Error())}
		}
	case SecretTypeBasicAuth:
		// Either may be empty, but one of them must be there.
		if !has("username") && !has("password") {
			return []FieldError{required(key("username"), ""), required(key("password"), "")}
		}
	case SecretTypeSSHAuth:
		if len(s.Data["ssh-privatekey"]) == 0 {
			return []FieldError{required(key("ssh-privatekey"), "")}
		}
	case SecretTypeTLS:
		var errs []FieldError
		for _, k := range []string{"tls.crt", "tls.key"} {
			if !has(k) {
				errs = append(errs, required(key(k), ""))
			}
		}
		return errs
	}
	return nil
}

// checkDockerConfig reports whether b is a JSON object (or null), as
// Kubernetes checks a .dockercfg or .dockerconfigjson: by decoding it
// with encoding/json into a map, whose error text is the cause's message.
func checkDockerConfig(b []byte) error {
	var m map[string]any
	return json.Unmarshal(b, &m)
}

// secretWarnings warns, as Kubernetes does, when a TLS Secret's
// certificate and key do not make a pair.
func secretWarnings(o, _ server.Object) []string {
	if s := o.(*Secret); s.Type == SecretTypeTLS {
		if _, err := tls.X509KeyPair(s.Data["tls.crt"], s.Data["tls.key"]); err != nil {
			return []string{err.Error()}
		}
	}
	return nil
}
