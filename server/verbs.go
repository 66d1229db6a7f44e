package server

import "slices"

// verbs are the verbs r serves, sorted as discovery lists them.
func (r *Resource) verbs() []string {
	if r.Verbs == nil {
		return allVerbs
	}
	return r.Verbs
}

// servesAny reports whether r serves one of vs.
func (r *Resource) servesAny(vs ...verb) bool {
	return slices.ContainsFunc(vs, r.serves)
}

// serves reports whether r serves v (Resource.Verbs).
func (r *Resource) serves(v verb) bool {
	return r.Verbs == nil || slices.Contains(r.Verbs, string(v))
}
