package code

import "sync"

// cache keeps immutable values (decoded trees, change rows) by key, in two
// generations: a value read again moves to the young one, and when the
// young one is full the old one is dropped. It costs a map lookup or two
// and never walks a list, and what is read often stays.
type cache[K comparable, V any] struct {
	mu         sync.Mutex
	young, old map[K]V
	max        int
}

func newCache[K comparable, V any](max int) *cache[K, V] {
	return &cache[K, V]{young: map[K]V{}, old: map[K]V{}, max: max}
}

func (c *cache[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.young[k]; ok {
		return v, true
	}
	v, ok := c.old[k]
	if ok {
		c.putLocked(k, v)
	}
	return v, ok
}

func (c *cache[K, V]) put(k K, v V) {
	c.mu.Lock()
	c.putLocked(k, v)
	c.mu.Unlock()
}

func (c *cache[K, V]) putLocked(k K, v V) {
	if len(c.young) >= c.max {
		c.old, c.young = c.young, make(map[K]V, c.max)
	}
	c.young[k] = v
}
