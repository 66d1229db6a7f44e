package server

import "github.com/apisem/apisem/meta"

// Object is an object of one of the served types, as the store keeps it.
type Object interface {
	meta.Object
	// DeepCopyObject returns a copy that shares no memory with the
	// receiver.
	DeepCopyObject() Object
	// Types returns the object's TypeMeta, through which the server sets
	// or clears kind and apiVersion.
	Types() *meta.TypeMeta
}

// ProtoObject is implemented by the types that have a protobuf form.
type ProtoObject interface {
	Object
	// AppendProto appends the object's protobuf encoding (without an
	// envelope) to b.
	AppendProto(b []byte) []byte
	// SizeProto returns the length AppendProto appends.
	SizeProto() int
}
