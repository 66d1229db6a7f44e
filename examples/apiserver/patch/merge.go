package patch

// MergePatch applies the RFC 7386 merge patch p to doc and returns the
// patched document. A patch that is an object merges member by member
// (null removes a member); any other patch value replaces the document.
func MergePatch(doc, p []byte) ([]byte, error) {
	d, err := decode(doc, "document")
	if err != nil {
		return nil, err
	}
	pv, err := decode(p, "merge patch")
	if err != nil {
		return nil, err
	}
	return encode(mergeValue(d, pv))
}

// mergeValue is the MergePatch function of RFC 7386 section 2. It reuses
// target's maps; the caller owns target.
func mergeValue(target, p any) any {
	pm, ok := p.(map[string]any)
	if !ok {
		return p
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = make(map[string]any, len(pm))
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergeValue(tm[k], v)
	}
	return tm
}
