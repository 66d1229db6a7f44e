package api

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
