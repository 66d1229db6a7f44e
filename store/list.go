package store

import (
	"context"

	"github.com/apisem/apisem/meta"
	"github.com/apisem/apisem/paging"
	"github.com/apisem/apisem/rv"
	"github.com/apisem/apisem/status"
	"github.com/apisem/apisem/store/selector"
)

// ListOptions select what List returns.
type ListOptions struct {
	// Read is rv's decision for the request: which revision, and the page
	// size (Limit 0 means the whole collection in one page).
	Read rv.Read
	// Labels and Fields filter the objects; the zero values select all.
	Labels selector.Labels
	Fields selector.Fields
}

// Page is one page of a list. Its items are the stored objects: reading
// them does not copy anything, At returns a copy, View the stored object
// itself (read-only), Encoded the cached serialized form.
type Page[T meta.Object] struct {
	s         *Store[T]
	items     []*version[T]
	rev       rv.Version
	cont      string
	remaining int64
	hasRem    bool
}

// Len returns the number of items.
func (p *Page[T]) Len() int { return len(p.items) }

// At returns a copy of item i, which the caller may modify.
func (p *Page[T]) At(i int) T { return p.s.copyFn(p.items[i].obj) }

// View returns item i as stored, without copying it: the object of the
// stored version that Encoded serializes, shared with every other reader
// and with watch events. It must not be modified (not even its maps and
// slices); use At for an object to change. View serves readers that only
// look, such as a Table conversion or an encoder.
func (p *Page[T]) View(i int) T { return p.items[i].obj }

// Views returns the stored objects of all items in a new slice; like View,
// the objects must not be modified.
func (p *Page[T]) Views() []T {
	out := make([]T, len(p.items))
	for i, v := range p.items {
		out[i] = v.obj
	}
	return out
}

// Key returns the storage key of item i.
func (p *Page[T]) Key(i int) string { return p.items[i].entry.key }

// Encoded returns item i serialized by enc. Each stored version is
// encoded at most once per Encoding; the result is shared and must not be
// modified.
func (p *Page[T]) Encoded(i int, enc *Encoding[T]) ([]byte, error) {
	return p.s.encoded(p.items[i], enc)
}

// Items returns copies of all items.
func (p *Page[T]) Items() []T {
	out := make([]T, len(p.items))
	for i := range p.items {
		out[i] = p.At(i)
	}
	return out
}

// ResourceVersion is the list's metadata.resourceVersion: the revision
// the page was read at (the same for every page of a paged list).
func (p *Page[T]) ResourceVersion() rv.Version { return p.rev }

// Continue is the list's metadata.continue: the token for the next page,
// or "" on the last page.
func (p *Page[T]) Continue() string { return p.cont }

// RemainingItemCount is the list's metadata.remainingItemCount and
// whether to set it: only when more items follow and no selector is set.
func (p *Page[T]) RemainingItemCount() (int64, bool) { return p.remaining, p.hasRem }

// List returns one page of the collection of namespace ("" means all
// namespaces), read at the revision opts.Read names: Most Recent and Any
// at the latest revision, Not older than N once the store reached N, Exact
// N at N (410 Expired `The resourceVersion for the provided list is too
// old.` if compacted), Continue at the revision in the token (410 Expired
// with an inconsistent-continue token if compacted). A page costs
// O(log n + page size) plus the deletions and creations in the listed
// collection since its revision.
func (r *Resource[T]) List(ctx context.Context, namespace string, opts ListOptions) (*Page[T], error) {
	if r.namespaced && namespace != "" {
		if err := checkSegment("Namespace", namespace); err != nil {
			return nil, err
		}
	}
	if err := r.checkFields(opts.Fields); err != nil {
		return nil, err
	}
	s := r.s
	prefix := r.Prefix(namespace)
	lo, hi := r.scanRange(namespace, opts.Fields)
	start := lo
	var tok paging.Token
	for {
		var rev uint64
		read := opts.Read
		switch read.Semantics {
		case rv.NotOlderThan:
			cur, err := s.waitFor(ctx, uint64(read.Version))
			if err != nil {
				return nil, err
			}
			rev = cur
		case rv.Exact:
			n := uint64(read.Version)
			if _, err := s.waitFor(ctx, n); err != nil {
				return nil, err
			}
			rev = n
		case rv.ContinueExact:
			abs, t, err := s.codec.Decode(read.Continue, prefix)
			if err != nil {
				return nil, err
			}
			tok = t
			start = max(abs, lo)
			if t.Version == 0 { // inconsistent continue: at the latest revision
				rev = s.rev.Load()
			} else if rev, err = s.waitFor(ctx, uint64(t.Version)); err != nil {
				return nil, err
			} else {
				rev = uint64(t.Version)
			}
		default:
			rev = s.rev.Load()
		}
		p, ok, err := r.listAt(rev, prefix, start, hi, tok, opts)
		if err != nil {
			return nil, err
		}
		if ok {
			return p, nil
		}
		// Compacted past rev: before the read or during it.
		switch {
		case read.Semantics == rv.Exact:
			return nil, status.NewExpired("The resourceVersion for the provided list is too old.").Wrap(s.compactedError(rev))
		case read.Semantics == rv.ContinueExact && tok.Version != 0:
			return nil, s.codec.Expired(tok).Wrap(s.compactedError(rev))
		}
		// A read at the latest revision raced an explicit Compact: again.
	}
}

// listAt reads one page at revision rev from [start, hi). ok is false if
// rev is (or became) compacted. tok is the continue token the page was
// asked with (zero for a first page): the next token keeps its IssuedAt,
// so paging.Codec.MaxAge bounds the whole list, not each page.
func (r *Resource[T]) listAt(rev uint64, prefix, start, hi string, tok paging.Token, opts ListOptions) (*Page[T], bool, error) {
	s := r.s
	if !s.validate(rev) {
		return nil, false, nil
	}
	x := s.idx.Load()
	limit := paging.Limit(opts.Read.Limit, 0)
	filtered := !opts.Labels.Empty() || !opts.Fields.Empty()
	p := &Page[T]{s: s, rev: rv.Version(rev)}
	if limit > 0 {
		p.items = make([]*version[T], 0, min(limit, 1024))
	}
	var c cursor[T]
	x.seek(&c, start)
	more := false
	for e := c.next(); e != nil && (hi == "" || e.key < hi); e = c.next() {
		v := e.at(rev)
		if v == nil {
			continue
		}
		if limit > 0 && int64(len(p.items)) == limit {
			more = true // a live item follows the page (Kubernetes' cache rule)
			break
		}
		if filtered && !r.Matches(v.obj, opts.Labels, opts.Fields) {
			continue
		}
		p.items = append(p.items, v)
	}
	if more && !filtered {
		// The last item's entry is in the collection: its log has the
		// collection's flips.
		last := p.items[len(p.items)-1].entry
		rem := liveAt(x, flipLogOf(last, prefix), rev, last.key+"\x00", hi)
		p.remaining, p.hasRem = paging.RemainingItemCount(int64(rem), false)
	}
	if !s.validate(rev) {
		return nil, false, nil
	}
	if more {
		last := p.items[len(p.items)-1].entry.key
		next, err := paging.NextStart(last, prefix)
		if err != nil {
			return nil, true, status.NewInternalError(err)
		}
		t := tok.Next(next)
		t.Version = rv.Version(rev) // an inconsistent continue (0) read at rev
		p.cont = s.codec.Encode(t)
	}
	return p, true, nil
}
