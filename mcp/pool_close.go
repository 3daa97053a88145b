package mcp

import (
	"context"
	"errors"
)

// dial connects s's Client and publishes it (or the error) to its waiters.
func (p *Pool) dial(s *slot, entry string) {
	defer p.wg.Done()
	ctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
	defer cancel()
	c, err := Dial(ctx, entry, s.env, p.version, p.log)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil && p.closed {
		p.closeInBackground(c)
		c, err = nil, ErrPoolClosed
	}
	s.client, s.err = c, err
	close(s.ready)
}

// evict drops c from entry's slot if it is still the current one, so that the
// next caller dials anew.
func (p *Pool) evict(entry string, c *Client) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.slots[entry]; s != nil && s.client == c {
		delete(p.slots, entry)
		p.discard(s)
	}
}

// discard closes the Client of a slot that left the pool, once its dial is
// done. p.mu is held.
func (p *Pool) discard(s *slot) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		<-s.ready
		if s.client != nil {
			p.closeInBackground(s.client)
		}
	}()
}

// closeInBackground closes c without making the caller wait for it.
func (p *Pool) closeInBackground(c *Client) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if err := c.Close(); err != nil {
			p.log.Debug("closing replaced mcp client", "mcpServer", c.entry, "error", err)
		}
	}()
}

// Close closes every Client, cancels dials in progress and waits for all of
// them; later calls fail with ErrPoolClosed. It returns the errors of closing
// the Clients that were in use.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	slots := p.slots
	p.slots = nil
	p.mu.Unlock()
	p.cancel()
	var errs []error
	for _, s := range slots {
		<-s.ready
		if s.client != nil {
			errs = append(errs, s.client.Close())
		}
	}
	p.wg.Wait()
	return errors.Join(errs...)
}
