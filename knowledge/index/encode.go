package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/agentgw/agentgw/knowledge/chunk"
)

// Source types as kept in postings.
const (
	stypeCode byte = 1
	stypeDoc  byte = 2
)

func stypeOf(s string) (byte, error) {
	switch s {
	case chunk.TypeCode:
		return stypeCode, nil
	case chunk.TypeDoc:
		return stypeDoc, nil
	}
	return 0, fmt.Errorf("source type %q is neither %q nor %q", s, chunk.TypeCode, chunk.TypeDoc)
}

// The fields of a chunk, each weighed apart (rankParams.weights).
const (
	fieldSymbol    = iota // the symbol's name and the declaration's kind
	fieldSignature        // the declaration's line(s)
	fieldDoc              // its doc comment (or docstring)
	fieldBody             // the rest of the text
	fieldPath             // the file's path
	numFields
)

// posting is one chunk's entry in a term's postings of a file.
type posting struct {
	ord     int              // the chunk's ordinal in its file
	dl      int              // the chunk's length in terms, all fields
	stype   byte             // stypeCode or stypeDoc
	private bool             // the chunk declares only private names (chunk.Parts)
	tf      [numFields]int32 // how often the term occurs in each field
}

// privateBit marks a private chunk's posting.
const privateBit = 1 << 7

var errCorrupt = errors.New("corrupt index entry")

// appendPosting encodes p: its ordinal and length (uvarints), a byte of
// the source type (low two bits), the fields holding the term (a bit each
// above them) and whether the chunk is private (the high bit), then the
// term's frequency in each of those fields (uvarints).
func appendPosting(b []byte, p posting) []byte {
	b = binary.AppendUvarint(b, uint64(p.ord))
	b = binary.AppendUvarint(b, uint64(p.dl))
	flags := p.stype
	if p.private {
		flags |= privateBit
	}
	for f, tf := range p.tf {
		if tf > 0 {
			flags |= 1 << (2 + f)
		}
	}
	b = append(b, flags)
	for _, tf := range p.tf {
		if tf > 0 {
			b = binary.AppendUvarint(b, uint64(tf))
		}
	}
	return b
}

// decodePostings calls fn with each posting of b.
func decodePostings(b []byte, fn func(posting)) error {
	it := postingIter{b: b}
	var p posting
	for {
		ok, err := it.next(&p)
		if !ok {
			return err
		}
		fn(p)
	}
}

// postingIter reads a blob of postings in order: the decoder of the
// search's loops, which call no function per posting.
type postingIter struct{ b []byte }

// next decodes the next posting into p and reports whether there was
// one; at the end of a well-formed blob it returns false and nil.
func (it *postingIter) next(p *posting) (bool, error) {
	b := it.b
	if len(b) == 0 {
		return false, nil
	}
	var v [2]uint64
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 || x > math.MaxInt32 {
			return false, errCorrupt
		}
		v[i], b = x, b[n:]
	}
	if len(b) == 0 {
		return false, errCorrupt
	}
	flags := b[0]
	b = b[1:]
	p.ord, p.dl, p.stype, p.private = int(v[0]), int(v[1]), flags&3, flags&privateBit != 0
	if fields := flags &^ privateBit >> 2; p.stype != stypeCode && p.stype != stypeDoc || fields == 0 || fields>>numFields != 0 {
		return false, errCorrupt
	}
	for f := range numFields {
		if flags&(1<<(2+f)) == 0 {
			p.tf[f] = 0
			continue
		}
		x, n := binary.Uvarint(b)
		if n <= 0 || x == 0 || x > math.MaxInt32 {
			return false, errCorrupt
		}
		p.tf[f], b = int32(x), b[n:]
	}
	it.b = b
	return true, nil
}

// termCount is a term of a file and how many of its chunks hold it.
type termCount struct {
	term string
	n    int
}

// encodeTerms encodes a file's terms, sorted.
func encodeTerms(tc []termCount) []byte {
	b := []byte{} // not nil: the column is NOT NULL
	for _, t := range tc {
		b = binary.AppendUvarint(b, uint64(len(t.term)))
		b = append(b, t.term...)
		b = binary.AppendUvarint(b, uint64(t.n))
	}
	return b
}

func decodeTerms(b []byte) ([]termCount, error) {
	var out []termCount
	for len(b) > 0 {
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return nil, errCorrupt
		}
		term := string(b[n : n+int(l)])
		b = b[n+int(l):]
		c, n := binary.Uvarint(b)
		if n <= 0 || c > math.MaxInt32 {
			return nil, errCorrupt
		}
		b = b[n:]
		out = append(out, termCount{term, int(c)})
	}
	return out, nil
}

// encodeVector encodes v, little-endian float32s; nil for no vector.
func encodeVector(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// decodeVector decodes b into dst's storage when it is large enough.
func decodeVector(dst []float32, b []byte) []float32 {
	n := len(b) / 4
	dst = slices.Grow(dst[:0], n)[:n]
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return dst
}

// maxPostBytes bounds a kb_postings row's blob: a term's postings in a
// file are cut into rows (parts) of at most this many bytes, so that a
// row stays within what a PostgreSQL btree entry may hold (2,704 bytes,
// and the key's postings are in it: INCLUDE (post)) whatever the file's
// size.
const maxPostBytes = 2000

// fileDoc is a file's chunks analysed for the index.
type fileDoc struct {
	terms  []termCount // sorted by term
	parts  [][][]byte  // parts[i]: the encoded postings of terms[i] in the file, in parts of at most maxPostBytes
	rows   int         // the parts of all terms: the file's kb_postings rows
	lens   []int       // each chunk's length in terms
	tokens int         // the sum of lens
}

// indexText is what an Embedder reads of a chunk: its file's name and
// its symbol count as words of it.
func indexText(c chunk.Chunk) string {
	return c.FileName + "\n" + c.Symbol + "\n" + c.Text
}

// fieldTexts are the texts of a chunk's fields, and whether it is
// private or deprecated (chunk.Parts): the ranking's Private prior weighs
// both, questions being about the API to use.
func fieldTexts(c chunk.Chunk) ([numFields]string, bool) {
	p := c.Parts()
	var out [numFields]string
	out[fieldSymbol] = c.Symbol
	if p.Kind != "" {
		out[fieldSymbol] += "\n" + p.Kind
	}
	out[fieldSignature] = p.Signature
	out[fieldDoc] = p.Doc
	if p.Synopsis != "" {
		// The doc's first sentence counts twice: it says what the
		// declaration is or does, as a question asks it.
		out[fieldDoc] = p.Synopsis + "\n" + p.Doc
	}
	if p.Comments != "" {
		out[fieldDoc] += "\n" + p.Comments // prose, as the doc comment is
	}
	out[fieldBody] = p.Body
	out[fieldPath] = c.FileName
	return out, p.Private || p.Deprecated
}

// analyze tokenizes the chunks of a file, each field apart, and encodes
// each term's postings. A term is looked up once per occurrence; the
// postings of all terms are encoded into one buffer, in the terms' order.
func analyze(tok Tokenizer, chunks []chunk.Chunk) (fileDoc, error) {
	d := fileDoc{lens: make([]int, len(chunks))}
	ids := map[string]int32{}
	var terms []termState
	var occs []occurrence // (term, chunk) pairs, in chunk order
	for i, c := range chunks {
		st, err := stypeOf(c.SourceType)
		if err != nil {
			return fileDoc{}, fmt.Errorf("chunk %d (lines %d-%d): %w", i, c.StartLine, c.EndLine, err)
		}
		first := len(occs)
		texts, private := fieldTexts(c)
		for f, text := range texts {
			if text == "" {
				continue
			}
			for _, t := range tok(text) {
				if t == "" || len(t) > maxTermLen {
					continue
				}
				id, ok := ids[t]
				if !ok {
					id = int32(len(terms))
					ids[t] = id
					terms = append(terms, termState{term: t, occ: -1})
				}
				ts := &terms[id]
				if ts.occ < first {
					ts.occ = len(occs)
					ts.n++
					occs = append(occs, occurrence{term: id, p: posting{ord: i, stype: st, private: private}})
				}
				occs[ts.occ].p.tf[f]++
			}
		}
		dl := 0
		for _, o := range occs[first:] {
			for _, tf := range o.p.tf {
				dl += int(tf)
			}
		}
		for j := first; j < len(occs); j++ {
			occs[j].p.dl = dl
		}
		d.lens[i] = dl
		d.tokens += dl
	}
	d.encode(terms, occs)
	return d, nil
}

// termState is a term of a file being analysed.
type termState struct {
	term string
	n    int // chunks holding it
	occ  int // its last occurrence's index
}

// occurrence is a term's posting in a chunk.
type occurrence struct {
	term int32
	p    posting
}

// encode sets d's terms, sorted, and their postings' parts: occs sorted
// by term (a counting sort, which keeps each term's in chunk order),
// encoded into one buffer cut into parts of at most maxPostBytes.
func (d *fileDoc) encode(terms []termState, occs []occurrence) {
	order := make([]int32, len(terms))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(terms[a].term, terms[b].term) })
	start := make([]int, len(terms)+1) // by rank: where its occurrences start in sorted
	rank := make([]int32, len(terms))
	d.terms = make([]termCount, len(terms))
	for r, id := range order {
		rank[id] = int32(r)
		d.terms[r] = termCount{terms[id].term, terms[id].n}
		start[r+1] = start[r] + terms[id].n
	}
	sorted := make([]posting, len(occs))
	next := slices.Clone(start[:len(terms)])
	for _, o := range occs {
		r := rank[o.term]
		sorted[next[r]] = o.p
		next[r]++
	}
	var buf []byte
	type cut struct{ from, to int }
	cuts := make([][]cut, len(terms))
	for r := range d.terms {
		from := len(buf)
		for _, p := range sorted[start[r]:start[r+1]] {
			n := len(buf)
			buf = appendPosting(buf, p)
			if len(buf)-from > maxPostBytes {
				cuts[r] = append(cuts[r], cut{from, n})
				from = n
			}
		}
		cuts[r] = append(cuts[r], cut{from, len(buf)})
	}
	d.parts = make([][][]byte, len(terms))
	for r, cs := range cuts {
		d.parts[r] = make([][]byte, len(cs))
		for i, c := range cs {
			d.parts[r][i] = buf[c.from:c.to:c.to]
		}
		d.rows += len(cs)
	}
}
