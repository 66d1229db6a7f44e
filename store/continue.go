package store

import "github.com/apisem/apisem/status"

// CheckContinue returns the 400 that a list with the continue token
// would answer because the token is malformed, forged or unsafe, or nil.
// It does not look at the token's revision or age. A server asks it
// before it refuses a resourceVersion beside a continue token, because
// Kubernetes decodes the token first and names a bad one.
func (s *Store[T]) CheckContinue(token string) error {
	// Any collection prefix gives the same verdict: the start is checked
	// relative to it.
	_, _, err := s.codec.Decode(token, "/")
	if status.IsBadRequest(err) {
		return err
	}
	return nil
}
