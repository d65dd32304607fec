package tiers

import (
	"container/list"
	"context"
	"sync"
)

// Memory is the tier in the process's memory: a least-recently-used cache
// bounded in bytes, holding no object larger than an eighth of it, so that
// one large object never empties it.
type Memory struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // front: most recently used
	items map[string]*list.Element
}

type memEntry struct {
	key  string
	data []byte
}

// NewMemory returns a memory tier of at most maxBytes (0 holds nothing).
func NewMemory(maxBytes int64) *Memory {
	return &Memory{max: maxBytes, order: list.New(), items: map[string]*list.Element{}}
}

// Get returns a held copy and marks it used.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.items[key]
	if !ok {
		return nil, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*memEntry).data, true
}

// Put holds data, dropping the least recently used objects to make room.
// The slice is kept as it is: callers must not change it afterwards.
func (m *Memory) Put(_ context.Context, key string, data []byte) {
	n := int64(len(data))
	if n > m.max/8 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[key]; ok {
		m.size -= int64(len(e.Value.(*memEntry).data))
		m.order.Remove(e)
	}
	m.items[key] = m.order.PushFront(&memEntry{key, data})
	m.size += n
	for m.size > m.max {
		last := m.order.Back()
		ent := last.Value.(*memEntry)
		m.order.Remove(last)
		delete(m.items, ent.key)
		m.size -= int64(len(ent.data))
	}
}

// Delete drops key.
func (m *Memory) Delete(_ context.Context, key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[key]; ok {
		m.size -= int64(len(e.Value.(*memEntry).data))
		m.order.Remove(e)
		delete(m.items, key)
	}
}

// Size returns the bytes held.
func (m *Memory) Size() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}
