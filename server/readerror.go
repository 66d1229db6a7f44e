package server

import (
	"errors"
	"fmt"

	"github.com/apisem/apisem/status"
)

// readError is the failure of Resource.Read on obj, a stored object.
type readError struct {
	obj Object
	err error
}

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// readFailed returns err as kube-apiserver answers a read of an object
// its storage cannot decode (its etcd3 store's corrupt-object error, whose
// message names the object's etcd key, with the storage's prefix
// (store.Options.StoragePrefix, /registry by default) in a list's), when
// err is a *readError: for a get or a write's answer the 500
// InternalError `Internal error occurred: StorageError: corrupt object,
// Code: 7, Key: /<path>/<namespace>/<name>, ResourceVersion: 0,
// AdditionalErrorMsg: object not decodable revision=<rv>: <err>`, for a
// list the 500 StorageReadError `failed to read one or more
// <resource>.<group> from the storage: StorageError: ...`; path is the
// resource's EtcdPrefix, else <group>/<resource>. Any other error is
// returned as it is.
func readFailed(rs *resource, err error, list bool) error {
	var re *readError
	if !errors.As(err, &re) {
		return err
	}
	m := re.obj.Meta()
	key := "/" + rs.gr.Group + "/" + rs.gr.Resource + "/"
	if p := rs.def.EtcdPrefix; p != "" {
		key = "/" + p + "/" // a built-in kind's, as kube-apiserver keys it
	}
	if m.Namespace != "" {
		key += m.Namespace + "/"
	}
	key += m.Name
	if list {
		key = rs.store.Store().StoragePrefix() + key // /registry by default, as --etcd-prefix
	}
	msg := fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%s: %v",
		key, m.ResourceVersion, re.err)
	if !list {
		return status.NewInternalError(errors.New(msg))
	}
	return status.New(500, status.ReasonStorageReadError, "failed to read one or more "+rs.gr.String()+" from the storage: "+msg,
		&status.Details{Name: "list", Group: rs.gr.Group, Kind: rs.gr.Resource,
			Causes: []status.Cause{{Type: status.CauseTypeUnexpectedServerResponse, Message: msg, Field: key}}})
}
