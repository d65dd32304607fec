package identity

import (
	"context"
	"sync"
	"time"
)

// CacheTTL is how long a server trusts what it last read of a token. A
// revoked token stops on every replica at most this long after the
// revocation commits, with no message between the replicas.
const CacheTTL = time.Second

// cacheMax bounds the tokens a Cache holds; past it the cache starts over,
// so a flood of tokens costs memory no more than it costs reads.
const cacheMax = 10000

// Cache answers Authenticate from memory for up to a TTL, so that a busy
// agent's requests do not each read its identity and grants. Only a
// token that opens the desk is kept; an unknown one is asked again every
// time, so a token made a moment ago works at once.
type Cache struct {
	svc *Service
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	m  map[string]cached // by the token's hash
}

type cached struct {
	caller *Caller
	until  time.Time
}

// NewCache returns a cache over svc that keeps an answer for ttl (CacheTTL
// when ttl is 0).
func NewCache(svc *Service, ttl time.Duration) *Cache {
	if ttl <= 0 {
		ttl = CacheTTL
	}
	return &Cache{svc: svc, ttl: ttl, now: time.Now, m: map[string]cached{}}
}

// Authenticate is Service.Authenticate, answered from memory while the
// last answer for this token is younger than the TTL.
func (c *Cache) Authenticate(ctx context.Context, token string) (*Caller, error) {
	key := HashToken(token)
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.caller, nil
	}
	caller, err := c.svc.Authenticate(ctx, token)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		delete(c.m, key)
		return nil, err
	}
	if len(c.m) >= cacheMax {
		c.m = map[string]cached{}
	}
	c.m[key] = cached{caller: caller, until: now.Add(c.ttl)}
	return caller, nil
}

// Forget drops every answer, so this replica reads the next of each token
// again (after it revoked a token or took a right back itself).
func (c *Cache) Forget() {
	c.mu.Lock()
	c.m = map[string]cached{}
	c.mu.Unlock()
}
