package server

// A WriteObserver is an Object that is told the attributes of the write
// it is the new object of (its subresource, verb, user), before the
// resource's hooks (Default, Prepare, Validate, Warnings) run on it.
// Those hooks take no context, and some must tell a write of the status
// subresource from a write of the object that changes nothing: a
// Kubernetes registry runs its status strategy for the one and its main
// strategy for the other. An implementation keeps the attributes in a
// field that its copies and its encodings leave out.
type WriteObserver interface {
	Object
	ObserveWrite(attrs Attributes)
}

// observeWrite tells w's new object, when it observes writes, the
// attributes of w.
func observeWrite(w *write) {
	if o, ok := w.obj.(WriteObserver); ok {
		o.ObserveWrite(w.attrs)
	}
}
