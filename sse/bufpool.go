package sse

import "sync"

// bufPool recycles the buffers of WriterPool's Writers and ReaderPool's
// Readers. It holds them by pointer, so that giving one back does not
// allocate.
type bufPool struct{ sync.Pool }

// get returns a recycled buffer with room for size bytes, or a new one.
func (p *bufPool) get(size int) *[]byte {
	mem, _ := p.Get().(*[]byte)
	if mem == nil {
		mem = new([]byte)
	}
	if cap(*mem) < size {
		*mem = make([]byte, 0, size)
	}
	return mem
}
