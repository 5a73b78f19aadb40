package saidexeino

import (
	"sync"
	"sync/atomic"

	"github.com/cloudwego/eino/schema"
	"github.com/saidex/saidex-go"
)

// maxCutIDs is how many call ids of replies cut by the output limit a
// Guard remembers for its middleware (see [Guard.Model]).
const maxCutIDs = 4096

// cutIDs remembers the call ids of the replies [Guard.Model] saw cut by
// the output limit, so that the middleware, which sees one call and not
// the reply, refuses them too. It holds at most maxCutIDs ids, dropping
// the oldest first.
type cutIDs struct {
	any  atomic.Bool // an id was ever added: until then options takes no lock
	mu   sync.Mutex
	ids  map[string]string // call id -> finish reason
	ring []string          // ids in the order added, for eviction
	next int
}

// add remembers the ids of out's calls when its finish reason says the
// output limit cut it, and returns that reason ("" otherwise).
func (c *cutIDs) add(out *schema.Message) string {
	if out.ResponseMeta == nil || !saidex.IsOutputLimit(out.ResponseMeta.FinishReason) {
		return ""
	}
	reason := out.ResponseMeta.FinishReason
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil {
		c.ids = make(map[string]string)
		c.ring = make([]string, maxCutIDs)
	}
	for _, tc := range out.ToolCalls {
		if tc.ID == "" {
			continue
		}
		if _, seen := c.ids[tc.ID]; seen {
			continue
		}
		if old := c.ring[c.next]; old != "" {
			delete(c.ids, old)
		}
		c.ring[c.next], c.ids[tc.ID] = tc.ID, reason
		c.any.Store(true)
		c.next = (c.next + 1) % maxCutIDs
	}
	return reason
}

// options returns the run options of the call id: the output limit's when
// the id belongs to a reply the output limit cut.
func (c *cutIDs) options(id string) []saidex.RunOption {
	if id == "" || !c.any.Load() {
		return nil
	}
	c.mu.Lock()
	reason, ok := c.ids[id]
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return []saidex.RunOption{saidex.WithFinishReason(reason)}
}
