package riffclient

import (
	"context"

	"github.com/como-technologies/riff/riffcore/wire"
)

// ReadAll sends a read and then, for each thread whose page more messages
// follow, the read of each next page (After the last message), so that
// each page holds every message of its thread up to now: riff read. A
// tool that reads one page at a time sends wire.Read with Send.
func ReadAll(ctx context.Context, c *Client, read wire.Read) (wire.ReadReply, error) {
	r, err := Send(ctx, c, read)
	if err != nil {
		return r, err
	}
	for i := range r.Threads {
		page := &r.Threads[i]
		for page.More && page.Last > 0 {
			next, err := Send(ctx, c, wire.Read{Me: read.Me, Thread: page.Thread, All: read.All, After: page.Last})
			if err != nil {
				return wire.ReadReply{}, err
			}
			more := false
			for _, p := range next.Threads {
				if p.Thread == page.Thread && len(p.Messages) > 0 {
					page.Messages = append(page.Messages, p.Messages...)
					page.Last, more = p.Last, p.More
				}
			}
			page.More = more
		}
	}
	return r, nil
}
