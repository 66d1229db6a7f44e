package paging

// Limit normalises a requested page size. requested <= 0 means no paging
// (a full list, no continue token) and returns 0, as Kubernetes does; max
// > 0 caps a larger request at max, which the spec allows ("up to limit"
// items per page). Any int64 is safe to pass, but a store must not size
// an allocation by the result: a client may ask for 1<<62 items.
func Limit(requested, max int64) int64 {
	if requested <= 0 {
		return 0
	}
	if max > 0 && requested > max {
		return max
	}
	return requested
}

// RemainingItemCount returns the value of a list's
// metadata.remainingItemCount and whether to set it at all: only when more
// items remain after the page (remaining > 0) and no label or field
// selector is in play (with a selector the count of matching items is
// unknown). On the last page, and with any selector, the field is absent.
//
// remaining is the number of objects in the snapshot after the page's last
// item (Kubernetes computes it as count - limit).
func RemainingItemCount(remaining int64, hasSelector bool) (int64, bool) {
	if remaining <= 0 || hasSelector {
		return 0, false
	}
	return remaining, true
}
