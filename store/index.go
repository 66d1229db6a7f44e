package store

import (
	"math/bits"
	"unsafe"

	"github.com/apisem/apisem/meta"
)

// The key index is a persistent (copy-on-write) B+tree of entries with a
// count of live entries in every subtree, so that a reader can rank a key
// (count the live keys before it) in O(log n). google/btree cannot do
// that, and without it every page of a large list would have to count the
// rest of the collection to fill in remainingItemCount.
//
// The tree changes only when a key is created, deleted, re-created (its
// liveness flips) or removed by compaction; updates to an existing key
// replace the head of its version chain and leave the tree alone. Each
// change copies the nodes on one root-to-leaf path (at most once per write
// batch, tracked by the owner field) and publishes a new root; readers
// keep whatever root they loaded.

const (
	leafMax = 64 // entries per leaf; the live bits fit one uint64
	leafMin = leafMax / 4
	// innerMax is the fan-out of interior nodes: every create copies one
	// per level, and 8 children make a node of 240 bytes; 16 made one of
	// 480, a level less, and more bytes per path (BenchmarkCreate).
	innerMax = 8
	innerMin = innerMax / 4
	// maxHeight bounds the height (cursor and path arrays): far above
	// what a store reaches, as a level is added only when the root is
	// full (height 10 holds 2^36 entries in full nodes).
	maxHeight = 48
)

type leaf[T meta.Object] struct {
	n     int
	live  uint64 // bit i: ents[i] is live at the index's revision
	owner uint64
	ents  [leafMax]*entry[T]
}

// inner is an interior node. keys[i] is a lower bound of child i's keys
// and greater than every key of child i-1. Children are inner nodes
// (kids) above height 1 and leaves at height 1.
type inner[T meta.Object] struct {
	n      int
	owner  uint64
	keys   [innerMax]string
	counts [innerMax]uint32 // live entries under child i
	// kids are the children: *inner[T] above height 1, *leaf[T] at
	// height 1 (kid and leaf). One array for both makes a node, which
	// every create copies along its path, smaller.
	kids [innerMax]unsafe.Pointer
}

// kid returns child i of n, above height 1.
func (n *inner[T]) kid(i int) *inner[T] { return (*inner[T])(n.kids[i]) }

// leaf returns child i of n, at height 1.
func (n *inner[T]) leaf(i int) *leaf[T] { return (*leaf[T])(n.kids[i]) }

func (l *leaf[T]) count() uint32 { return uint32(bits.OnesCount64(l.live)) }

func (n *inner[T]) count() uint32 {
	var c uint32
	for _, x := range n.counts[:n.n] {
		c += x
	}
	return c
}

// child returns the index of the child whose range holds key.
func (n *inner[T]) child(key string) int {
	lo, hi := 1, n.n // first i in [1, n) with keys[i] > key
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if n.keys[m] <= key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// search returns the first position in l whose key is >= key.
func (l *leaf[T]) search(key string) int {
	lo, hi := 0, l.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if l.ents[m].key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// index is one immutable version of the key index. rev is the revision
// of the last write that changed it; its live counts hold for every
// revision from rev until the next published index.
type index[T meta.Object] struct {
	root   *inner[T] // nil when empty
	height int       // levels of inner nodes; leaves are below
	size   int       // entries, live or not
	live   int       // live entries
	rev    uint64
}

// get returns the entry for key, or nil.
func (x *index[T]) get(key string) *entry[T] {
	n := x.root
	if n == nil {
		return nil
	}
	for h := x.height; h > 1; h-- {
		n = n.kid(n.child(key))
	}
	l := n.leaf(n.child(key))
	if i := l.search(key); i < l.n && l.ents[i].key == key {
		return l.ents[i]
	}
	return nil
}

// rank returns the number of live entries whose key is < key.
func (x *index[T]) rank(key string) int {
	n := x.root
	if n == nil {
		return 0
	}
	var r uint32
	for h := x.height; ; h-- {
		i := n.child(key)
		for _, c := range n.counts[:i] {
			r += c
		}
		if h == 1 {
			l := n.leaf(i)
			j := l.search(key)
			return int(r) + bits.OnesCount64(l.live&(1<<uint(j)-1))
		}
		n = n.kid(i)
	}
}

// liveIn returns the number of live entries with lo <= key < hi; hi == ""
// means no upper bound.
func (x *index[T]) liveIn(lo, hi string) int {
	end := x.live
	if hi != "" {
		end = x.rank(hi)
	}
	return end - x.rank(lo)
}

// cursor iterates an index in key order. The zero value is at the end.
type cursor[T meta.Object] struct {
	depth int
	path  [maxHeight]struct {
		n *inner[T]
		i int
	}
	l *leaf[T]
	j int
}

// seek positions c at the first entry whose key is >= key.
func (x *index[T]) seek(c *cursor[T], key string) {
	c.depth, c.l = 0, nil
	n := x.root
	if n == nil {
		return
	}
	for h := x.height; ; h-- {
		i := n.child(key)
		c.path[c.depth].n, c.path[c.depth].i = n, i
		c.depth++
		if h == 1 {
			c.l = n.leaf(i)
			c.j = c.l.search(key)
			return
		}
		n = n.kid(i)
	}
}

// next returns the entry at c and advances, or nil at the end.
func (c *cursor[T]) next() *entry[T] {
	for c.l != nil && c.j >= c.l.n {
		c.advanceLeaf()
	}
	if c.l == nil {
		return nil
	}
	e := c.l.ents[c.j]
	c.j++
	return e
}

// advanceLeaf moves c to the first position of the next leaf, or to the end.
func (c *cursor[T]) advanceLeaf() {
	d := c.depth - 1
	for d >= 0 && c.path[d].i+1 >= c.path[d].n.n {
		d--
	}
	if d < 0 {
		c.l = nil
		return
	}
	c.path[d].i++
	for ; d+1 < c.depth; d++ {
		next := c.path[d].n.kid(c.path[d].i)
		c.path[d+1].n, c.path[d+1].i = next, 0
	}
	c.l = c.path[d].n.leaf(c.path[d].i)
	c.j = 0
}

// indexTx is a batch of changes to an index, made by the single writer.
// Nodes created or copied by the batch carry its id and are changed in
// place; older nodes are shared with published indexes and are copied
// first.
type indexTx[T meta.Object] struct {
	x  index[T]
	id uint64
}

func (tx *indexTx[T]) mutLeaf(l *leaf[T]) *leaf[T] {
	if l.owner == tx.id {
		return l
	}
	c := *l
	c.owner = tx.id
	return &c
}

func (tx *indexTx[T]) mutInner(n *inner[T]) *inner[T] {
	if n.owner == tx.id {
		return n
	}
	c := *n
	c.owner = tx.id
	return &c
}

// insert adds e, which must not be in the index yet.
func (tx *indexTx[T]) insert(e *entry[T], live bool) {
	tx.x.size++
	if live {
		tx.x.live++
	}
	if tx.x.root == nil {
		l := &leaf[T]{n: 1, owner: tx.id}
		l.ents[0] = e
		if live {
			l.live = 1
		}
		r := &inner[T]{n: 1, owner: tx.id}
		r.keys[0], r.counts[0], r.kids[0] = e.key, l.count(), unsafe.Pointer(l)
		tx.x.root, tx.x.height = r, 1
		return
	}
	root, right := tx.insertInner(tx.x.root, tx.x.height, e, live)
	if right != nil {
		r := &inner[T]{n: 2, owner: tx.id}
		r.keys[0], r.counts[0], r.kids[0] = root.keys[0], root.count(), unsafe.Pointer(root)
		r.keys[1], r.counts[1], r.kids[1] = right.keys[0], right.count(), unsafe.Pointer(right)
		root = r
		tx.x.height++
	}
	tx.x.root = root
}

// insertInner inserts e under n (at height h) and returns n's replacement
// and, if n had to split, its new right sibling.
func (tx *indexTx[T]) insertInner(n *inner[T], h int, e *entry[T], live bool) (*inner[T], *inner[T]) {
	n = tx.mutInner(n)
	i := n.child(e.key)
	if e.key < n.keys[i] {
		n.keys[i] = e.key // only possible for i == 0
	}
	var newKey string
	var newCount uint32
	var newKid unsafe.Pointer // a *leaf[T] at height 1, else an *inner[T]
	if h == 1 {
		l, r := tx.insertLeaf(n.leaf(i), e, live)
		n.kids[i], n.counts[i] = unsafe.Pointer(l), l.count()
		if r == nil {
			return n, nil
		}
		newKey, newCount, newKid = r.ents[0].key, r.count(), unsafe.Pointer(r)
	} else {
		k, r := tx.insertInner(n.kid(i), h-1, e, live)
		n.kids[i], n.counts[i] = unsafe.Pointer(k), k.count()
		if r == nil {
			return n, nil
		}
		newKey, newCount, newKid = r.keys[0], r.count(), unsafe.Pointer(r)
	}
	// A child split: put its right half at i+1, splitting n first if full.
	var right *inner[T]
	if n.n == innerMax && i+1 == innerMax {
		// Past the last child of a full node: as insertLeaf, the new
		// node begins with it.
		right = &inner[T]{owner: tx.id}
		insertChild(right, 0, newKey, newCount, newKid)
		return n, right
	}
	if n.n == innerMax {
		half := innerMax / 2
		right = &inner[T]{owner: tx.id, n: innerMax - half}
		copy(right.keys[:], n.keys[half:])
		copy(right.counts[:], n.counts[half:])
		copy(right.kids[:], n.kids[half:])
		clear(n.keys[half:])
		clear(n.counts[half:])
		clear(n.kids[half:])
		n.n = half
		if i >= half {
			insertChild(right, i-half+1, newKey, newCount, newKid)
			return n, right
		}
	}
	insertChild(n, i+1, newKey, newCount, newKid)
	return n, right
}

// insertChild opens slot i of n (which has room) for a child.
func insertChild[T meta.Object](n *inner[T], i int, key string, count uint32, kid unsafe.Pointer) {
	copy(n.keys[i+1:n.n+1], n.keys[i:n.n])
	copy(n.counts[i+1:n.n+1], n.counts[i:n.n])
	copy(n.kids[i+1:n.n+1], n.kids[i:n.n])
	n.keys[i], n.counts[i], n.kids[i] = key, count, kid
	n.n++
}

// removeChild closes slot i of n.
func removeChild[T meta.Object](n *inner[T], i int) {
	copy(n.keys[i:], n.keys[i+1:n.n])
	copy(n.counts[i:], n.counts[i+1:n.n])
	copy(n.kids[i:], n.kids[i+1:n.n])
	n.n--
	n.keys[n.n], n.counts[n.n], n.kids[n.n] = "", 0, nil
}

// insertLeaf inserts e into l and returns l's replacement and, if l had to
// split, its new right sibling.
func (tx *indexTx[T]) insertLeaf(l *leaf[T], e *entry[T], live bool) (*leaf[T], *leaf[T]) {
	j := l.search(e.key)
	if l.n == leafMax && j == leafMax {
		// Past the last entry of a full leaf, as each key of an
		// ascending load (names from a counter) goes: l stays as it is,
		// full, and the new leaf begins with e. Halves would leave
		// every leaf of the load half empty, the tree a level taller
		// and each path a create copies longer (BenchmarkIndex).
		right := &leaf[T]{owner: tx.id}
		insertEntry(right, 0, e, live)
		return l, right
	}
	l = tx.mutLeaf(l)
	var right *leaf[T]
	if l.n == leafMax {
		half := leafMax / 2
		right = &leaf[T]{owner: tx.id, n: leafMax - half}
		copy(right.ents[:], l.ents[half:])
		clear(l.ents[half:])
		right.live = l.live >> uint(half)
		l.live &= 1<<uint(half) - 1
		l.n = half
		if j > half {
			insertEntry(right, j-half, e, live)
			return l, right
		}
	}
	insertEntry(l, j, e, live)
	return l, right
}

// insertEntry opens slot j of l (which has room) for e.
func insertEntry[T meta.Object](l *leaf[T], j int, e *entry[T], live bool) {
	copy(l.ents[j+1:l.n+1], l.ents[j:l.n])
	l.ents[j] = e
	low := l.live & (1<<uint(j) - 1)
	high := l.live &^ (1<<uint(j) - 1)
	l.live = low | high<<1
	if live {
		l.live |= 1 << uint(j)
	}
	l.n++
}

// setLive flips the live bit of key, which must be in the index with the
// other value.
func (tx *indexTx[T]) setLive(key string, live bool) {
	var path [maxHeight]*inner[T]
	var idx [maxHeight]int
	n := tx.mutInner(tx.x.root)
	tx.x.root = n
	d := 0
	for h := tx.x.height; ; h-- {
		i := n.child(key)
		path[d], idx[d] = n, i
		d++
		if h == 1 {
			break
		}
		k := tx.mutInner(n.kid(i))
		n.kids[i] = unsafe.Pointer(k)
		n = k
	}
	p, i := path[d-1], idx[d-1]
	l := tx.mutLeaf(p.leaf(i))
	p.kids[i] = unsafe.Pointer(l)
	bit := uint64(1) << uint(l.search(key))
	if live {
		l.live |= bit
		tx.x.live++
	} else {
		l.live &^= bit
		tx.x.live--
	}
	p.counts[i] = l.count()
	for d -= 2; d >= 0; d-- {
		path[d].counts[idx[d]] = path[d+1].count()
	}
}

// remove deletes key, which must be in the index.
func (tx *indexTx[T]) remove(key string) {
	root, wasLive := tx.removeInner(tx.x.root, tx.x.height, key)
	tx.x.size--
	if wasLive {
		tx.x.live--
	}
	for root.n == 1 && tx.x.height > 1 {
		root = root.kid(0)
		tx.x.height--
	}
	if root.n == 1 && tx.x.height == 1 && root.leaf(0).n == 0 {
		root = nil
		tx.x.height = 0
	}
	tx.x.root = root
}

func (tx *indexTx[T]) removeInner(n *inner[T], h int, key string) (*inner[T], bool) {
	n = tx.mutInner(n)
	i := n.child(key)
	var wasLive bool
	if h == 1 {
		l := tx.mutLeaf(n.leaf(i))
		n.kids[i] = unsafe.Pointer(l)
		j := l.search(key)
		wasLive = l.live&(1<<uint(j)) != 0
		copy(l.ents[j:], l.ents[j+1:l.n])
		l.n--
		l.ents[l.n] = nil
		low := l.live & (1<<uint(j) - 1)
		high := l.live >> uint(j+1) << uint(j)
		l.live = low | high
		n.counts[i] = l.count()
		if l.n < leafMin && n.n > 1 {
			tx.rebalanceLeaves(n, i)
		}
		return n, wasLive
	}
	k, wasLive := tx.removeInner(n.kid(i), h-1, key)
	n.kids[i], n.counts[i] = unsafe.Pointer(k), k.count()
	if k.n < innerMin && n.n > 1 {
		tx.rebalanceInner(n, i)
	}
	return n, wasLive
}

// rebalanceLeaves merges the underfull leaf at i with a neighbour, or
// moves entries over from it if the two would not fit one leaf.
func (tx *indexTx[T]) rebalanceLeaves(n *inner[T], i int) {
	lo := i
	if i+1 >= n.n {
		lo = i - 1
	}
	a, b := tx.mutLeaf(n.leaf(lo)), tx.mutLeaf(n.leaf(lo+1))
	n.kids[lo], n.kids[lo+1] = unsafe.Pointer(a), unsafe.Pointer(b)
	if a.n+b.n <= leafMax*3/4 {
		copy(a.ents[a.n:], b.ents[:b.n])
		a.live |= b.live << uint(a.n)
		a.n += b.n
		n.counts[lo] = a.count()
		removeChild(n, lo+1)
		return
	}
	total := a.n + b.n
	want := total / 2
	if a.n < want { // move b's first entries to a
		k := want - a.n
		copy(a.ents[a.n:], b.ents[:k])
		a.live |= (b.live & (1<<uint(k) - 1)) << uint(a.n)
		a.n += k
		copy(b.ents[:], b.ents[k:b.n])
		clear(b.ents[b.n-k : b.n])
		b.live >>= uint(k)
		b.n -= k
	} else { // move a's last entries to b
		k := a.n - want
		copy(b.ents[k:], b.ents[:b.n])
		copy(b.ents[:k], a.ents[want:a.n])
		clear(a.ents[want:a.n])
		b.live = b.live<<uint(k) | a.live>>uint(want)
		a.live &= 1<<uint(want) - 1
		a.n = want
		b.n += k
	}
	n.counts[lo], n.counts[lo+1] = a.count(), b.count()
	n.keys[lo+1] = b.ents[0].key
}

// rebalanceInner is rebalanceLeaves for interior nodes. Keys travel with
// their children: each remains a valid lower bound (see inner).
func (tx *indexTx[T]) rebalanceInner(n *inner[T], i int) {
	lo := i
	if i+1 >= n.n {
		lo = i - 1
	}
	a, b := tx.mutInner(n.kid(lo)), tx.mutInner(n.kid(lo+1))
	n.kids[lo], n.kids[lo+1] = unsafe.Pointer(a), unsafe.Pointer(b)
	if a.n+b.n <= innerMax*3/4 {
		copy(a.keys[a.n:], b.keys[:b.n])
		copy(a.counts[a.n:], b.counts[:b.n])
		copy(a.kids[a.n:], b.kids[:b.n])
		a.n += b.n
		n.counts[lo] = a.count()
		removeChild(n, lo+1)
		return
	}
	want := (a.n + b.n) / 2
	for a.n < want {
		insertChild(a, a.n, b.keys[0], b.counts[0], b.kids[0])
		removeChild(b, 0)
	}
	for a.n > want {
		last := a.n - 1
		insertChild(b, 0, a.keys[last], a.counts[last], a.kids[last])
		removeChild(a, last)
	}
	n.counts[lo], n.counts[lo+1] = a.count(), b.count()
	n.keys[lo+1] = b.keys[0]
}
