package negotiation

import (
	"context"
	"sync"
)

// A Budget bounds the memory that concurrent conversions hold at once,
// in bytes: WriteList reserves an estimate of an item's conversion cost
// before converting it and releases it before writing the result. A
// conversion that does not fit waits, in arrival order, until enough is
// released or its request's context ends; one larger than the whole
// budget waits for everything and then runs alone. A nil *Budget has no
// limit. Create one with NewBudget and share it among the requests it
// bounds.
type Budget struct {
	size int64

	mu      sync.Mutex
	used    int64           // guarded by mu
	waiters []*budgetWaiter // guarded by mu; first come, first served
}

type budgetWaiter struct {
	n     int64
	ready chan struct{} // closed when the reservation is granted
}

// NewBudget returns a Budget of size bytes, which must be positive.
func NewBudget(size int64) *Budget {
	if size <= 0 {
		panic("negotiation: NewBudget of a size that is not positive")
	}
	return &Budget{size: size}
}

// acquire reserves n bytes (at most the whole budget), waiting until they
// are free or ctx is done.
func (b *Budget) acquire(ctx context.Context, n int64) error {
	if b == nil {
		return nil
	}
	n = min(n, b.size)
	b.mu.Lock()
	if len(b.waiters) == 0 && b.used+n <= b.size {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &budgetWaiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // granted meanwhile: give it back
		b.used -= n
		b.grantLocked()
	default:
		for i, x := range b.waiters {
			if x == w {
				b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
				break
			}
		}
		// The waiters behind w may fit now.
		b.grantLocked()
	}
	return ctx.Err()
}

// release returns n bytes that acquire reserved.
func (b *Budget) release(n int64) {
	if b == nil {
		return
	}
	n = min(n, b.size)
	b.mu.Lock()
	b.used -= n
	b.grantLocked()
	b.mu.Unlock()
}

// grantLocked wakes the waiters at the front that fit. b.mu must be held.
func (b *Budget) grantLocked() {
	for len(b.waiters) > 0 {
		w := b.waiters[0]
		if b.used+w.n > b.size {
			return
		}
		b.used += w.n
		close(w.ready)
		b.waiters[0] = nil
		b.waiters = b.waiters[1:]
	}
}
