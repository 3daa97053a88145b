package index

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cenkalti/backoff/v5"
	openai "github.com/sashabaranov/go-openai"

	"github.com/agentgw/agentgw/internal/dbconn"
	"github.com/agentgw/agentgw/knowledge/chunk"
)

// Embedder turns texts into vectors, one per text, in order. Vectors of
// one Embedder have one dimension; the index compares a query's vector
// only with chunk vectors of its dimension.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// OpenAIConfig configures an OpenAIEmbedder.
type OpenAIConfig struct {
	// BaseURL is the API's base, e.g. https://api.openai.com/v1; the
	// embeddings endpoint is BaseURL + "/embeddings".
	BaseURL string
	// Model names the embeddings model.
	Model string
	// APIKey is sent as a bearer token; "" sends none.
	APIKey string
	// Dimensions asks models that can shorten their vectors for that many
	// dimensions (text-embedding-3-*); 0 leaves the model's own.
	Dimensions int
	// BatchSize bounds the texts of one request (default 64).
	BatchSize int
	// MaxChars cuts each text to that many bytes, at a rune boundary,
	// before it is sent, so that a long chunk stays within the model's
	// input limit (default 8000, about 2000 tokens of code).
	MaxChars int
	// HTTPClient sends the requests (default http.DefaultClient).
	HTTPClient *http.Client
	// Retries is how many times a request that failed with a 408, a 429,
	// a 5xx or no answer at all is tried again (default 2; negative:
	// never). Other failures (a 4xx, an answer that does not fit) are
	// not retried.
	Retries int
	// Backoff is the wait before the first retry (default 500 ms); it
	// doubles with each retry, up to 10 s, each wait drawn within half of
	// it either way (cenkalti/backoff).
	Backoff time.Duration
	// Timeout bounds each request (default 30 s).
	Timeout time.Duration
}

// Defaults of OpenAIConfig.
const (
	DefaultEmbedBatchSize = 64
	DefaultEmbedMaxChars  = 8000
	DefaultEmbedRetries   = 2
	DefaultEmbedBackoff   = 500 * time.Millisecond
	DefaultEmbedTimeout   = 30 * time.Second
)

// OpenAIEmbedder is an Embedder on an OpenAI-compatible /embeddings
// endpoint, through go-openai.
type OpenAIEmbedder struct {
	client *openai.Client
	cfg    OpenAIConfig
}

var _ Embedder = (*OpenAIEmbedder)(nil)

// NewOpenAIEmbedder returns an embedder on the endpoint of cfg.
func NewOpenAIEmbedder(cfg OpenAIConfig) (*OpenAIEmbedder, error) {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return nil, errors.New("index: an embeddings endpoint needs a base URL and a model")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultEmbedBatchSize
	}
	if cfg.MaxChars <= 0 {
		cfg.MaxChars = DefaultEmbedMaxChars
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultEmbedRetries
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultEmbedBackoff
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultEmbedTimeout
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	if cfg.HTTPClient != nil {
		oc.HTTPClient = cfg.HTTPClient
	}
	return &OpenAIEmbedder{client: openai.NewClientWithConfig(oc), cfg: cfg}, nil
}

// Embed asks the endpoint for the vectors of texts, BatchSize at a time,
// each request tried again as Retries allows.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.cfg.BatchSize {
		batch := texts[start:min(start+e.cfg.BatchSize, len(texts))]
		in := make([]string, len(batch))
		for i, t := range batch {
			in[i] = truncate(t, e.cfg.MaxChars)
			if strings.TrimSpace(in[i]) == "" {
				in[i] = " " // the API refuses empty inputs
			}
		}
		b := &backoff.ExponentialBackOff{InitialInterval: e.cfg.Backoff, RandomizationFactor: 0.5, Multiplier: 2,
			MaxInterval: max(10*time.Second, e.cfg.Backoff)}
		vecs, err := backoff.Retry(ctx, func() ([][]float32, error) { return e.embedBatch(ctx, in) },
			backoff.WithBackOff(b), backoff.WithMaxTries(uint(e.cfg.Retries)+1), backoff.WithMaxElapsedTime(0))
		if err != nil {
			return nil, fmt.Errorf("embedding %d texts with %s: %w", len(in), e.cfg.Model, err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// embedBatch makes one request for the vectors of in. Its error is
// wrapped in backoff.Permanent unless trying again may help.
func (e *OpenAIEmbedder) embedBatch(ctx context.Context, in []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	res, err := e.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
		Input:      in,
		Model:      openai.EmbeddingModel(e.cfg.Model),
		Dimensions: e.cfg.Dimensions,
	})
	if err != nil {
		if !retryable(err) {
			return nil, backoff.Permanent(err)
		}
		return nil, err
	}
	vecs := make([][]float32, len(in))
	for _, d := range res.Data {
		if d.Index < 0 || d.Index >= len(in) || vecs[d.Index] != nil {
			return nil, backoff.Permanent(fmt.Errorf("the answer has an embedding of index %d for %d texts", d.Index, len(in)))
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, backoff.Permanent(fmt.Errorf("the answer lacks the embedding of text %d", i))
		}
	}
	return vecs, nil
}

// retryable tells whether a failed request may succeed if sent again: an
// answer of status 408, 429 or 5xx, or none at all (a connection refused
// or reset, a request timed out).
func retryable(err error) bool {
	status := 0
	var ae *openai.APIError
	var re *openai.RequestError
	switch {
	case errors.As(err, &ae):
		status = ae.HTTPStatusCode
	case errors.As(err, &re):
		status = re.HTTPStatusCode
	}
	if status != 0 {
		return status == http.StatusRequestTimeout || status == http.StatusTooManyRequests || status >= 500
	}
	return !errors.Is(err, context.Canceled)
}

// truncate cuts s to at most n bytes, at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// HashEmbedder is a deterministic Embedder for tests and benchmarks when no
// model is at hand: each term of a text (Tokenizer) but English stop
// words, and each of its
// character trigrams is hashed to a signed coordinate of a Dim-dimensional
// vector, terms weighing 1 and trigrams 0.25, counts dampened by a square
// root. It is lexical similarity in another shape, with a little of the
// fuzziness of sub-words (schedule ~ schedules), not meaning.
type HashEmbedder struct {
	// Dim is the vectors' dimension (default 256).
	Dim int
	// Tokenizer splits texts (default Words).
	Tokenizer Tokenizer
}

var _ Embedder = HashEmbedder{}

// Embed returns the vectors of texts.
func (h HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	dim := h.Dim
	if dim <= 0 {
		dim = 256
	}
	tok := h.Tokenizer
	if tok == nil {
		tok = Words
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		counts := map[string]float64{}
		for _, term := range tok(t) {
			if stopwords[term] {
				continue
			}
			counts["w:"+term]++
			if len(term) > 3 {
				for j := 0; j+3 <= len(term); j++ {
					counts["g:"+term[j:j+3]] += 0.25
				}
			}
		}
		v := make([]float32, dim)
		for k, c := range counts {
			f := fnv.New64a()
			_, _ = f.Write([]byte(k))
			x := f.Sum64()
			w := math.Sqrt(c)
			if x>>63 == 1 {
				w = -w
			}
			v[x%uint64(dim)] += float32(w)
		}
		out[i] = v
	}
	return out, nil
}

// stopwords are the English words HashEmbedder leaves out: with no idf
// to weigh them down they would dominate the vectors of questions.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about after all also an and any are as at be because been before
		being but by can could did do does doing done each else for from had has have how if in into is it
		its may might more most must no not of on once one only or other our out over own same should so
		some such than that the their them then there these they this those through to too under until up
		very was we were what when where which while who whom why will with would you your`) {
		m[w] = true
	}
	return m
}()

// normalize scales v to unit length in place; a zero vector stays zero.
func normalize(v []float32) {
	var s float64
	for _, f := range v {
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// dot is the dot product of two vectors of one length: their cosine when
// both are unit vectors.
func dot(a, b []float32) float64 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return float64(s)
}

// missingBatch is how many chunks lacking a vector EmbedMissing embeds at
// a time.
const missingBatch = 256

// log is the index's logger (Options.Logger), or one that discards.
func (ix *Index) log() *slog.Logger {
	if ix.opts.Logger != nil {
		return ix.opts.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// queryVector is the unit vector of a query's text: nil without an
// Embedder, for a blank text, and when the embedder fails, which is
// logged: the search is then lexical rather than an error to the user.
func (ix *Index) queryVector(ctx context.Context, text string) []float32 {
	if ix.opts.Embedder == nil || strings.TrimSpace(text) == "" {
		return nil
	}
	vs, err := ix.opts.Embedder.Embed(ctx, []string{text})
	if err == nil && len(vs) != 1 {
		err = fmt.Errorf("%d vectors for 1 text", len(vs))
	}
	if err != nil {
		switch {
		case errors.Is(err, ErrEmbedderPaused):
			ix.log().Debug("knowledge search: the embedder is paused, ranking lexically", "err", err)
		case ctx.Err() == nil:
			ix.log().Warn("knowledge search: embedding the query failed, ranking lexically", "err", err)
		}
		return nil
	}
	normalize(vs[0])
	return vs[0]
}

// embedFile returns the unit vectors of a file's chunks, nil without an
// Embedder. The vector a chunk of the same symbol and text already has in
// the file's indexed version is kept; only the others are embedded. When
// the embedder fails, the failure is logged and those chunks get no
// vector (nil): the file is indexed anyway, searched lexically, and
// EmbedMissing adds them later.
func (ix *Index) embedFile(ctx context.Context, kb, fileName string, chunks []chunk.Chunk) [][]float32 {
	if ix.opts.Embedder == nil || len(chunks) == 0 {
		return nil
	}
	vecs := make([][]float32, len(chunks))
	known, err := ix.storedVectors(ctx, kb, fileName)
	if err != nil {
		ix.log().Warn("knowledge index: reading the file's vectors, embedding all its chunks", "kb", kb, "file", fileName, "err", err)
	}
	var texts []string
	var todo []int
	for i, c := range chunks {
		if v, ok := known[vectorKey{c.Symbol, c.Text}]; ok {
			vecs[i] = v
			continue
		}
		texts = append(texts, indexText(c))
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return vecs
	}
	got, err := ix.embedTexts(ctx, texts)
	if err != nil {
		switch {
		case errors.Is(err, ErrEmbedderPaused):
			ix.log().Debug("knowledge index: the embedder is paused, the chunks are indexed without vectors",
				"kb", kb, "file", fileName, "chunks", len(todo), "err", err)
		case ctx.Err() == nil:
			ix.log().Warn("knowledge index: embedding failed, the chunks are indexed without vectors (searched lexically) until it succeeds",
				"kb", kb, "file", fileName, "chunks", len(todo), "err", err)
		}
		return vecs
	}
	for j, i := range todo {
		vecs[i] = got[j]
	}
	return vecs
}

// embedTexts returns the unit vectors of texts.
func (ix *Index) embedTexts(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := ix.opts.Embedder.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for _, v := range vecs {
		if len(v) == 0 {
			return nil, errors.New("an empty vector")
		}
		normalize(v)
	}
	return vecs, nil
}

// vectorKey is what a chunk's vector is computed from, besides its file
// name.
type vectorKey struct{ symbol, text string }

// storedVectors are the vectors of the chunks of fileName in kb, by
// symbol and text.
func (ix *Index) storedVectors(ctx context.Context, kb, fileName string) (map[vectorKey][]float32, error) {
	rs, err := ix.pool.Query(ctx, `SELECT c.symbol, c.text, c.vec FROM kb_chunks c JOIN kb_files f ON f.id = c.file_id
JOIN kb_bases b ON b.id = f.kb_id WHERE b.name = ? AND f.name = ? AND c.vec IS NOT NULL`, kb, fileName)
	if err != nil {
		return nil, fmt.Errorf("reading the vectors: %w", err)
	}
	defer rs.Close()
	out := map[vectorKey][]float32{}
	for rs.Next() {
		var k vectorKey
		var vec []byte
		if err := rs.Scan(&k.symbol, &k.text, &vec); err != nil {
			return nil, fmt.Errorf("reading the vectors: %w", err)
		}
		if len(vec) > 0 {
			out[k] = decodeVector(nil, vec)
		}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the vectors: %w", err)
	}
	return out, nil
}

// EmbedMissing gives a vector to each chunk of kb that has none (indexed
// while the embedder failed), missingBatch chunks at a time, and returns
// how many it gave. Without an Embedder it does nothing. An indexer calls
// it after indexing: a file whose content has not changed is not indexed
// again, so its chunks would otherwise stay without vectors.
func (ix *Index) EmbedMissing(ctx context.Context, kb string) (int, error) {
	if ix.opts.Embedder == nil {
		return 0, nil
	}
	type row struct {
		file  int64
		ord   int64
		chunk chunk.Chunk
	}
	done := 0
	after := key{file: -1}
	for {
		// In key order from where the last batch ended, so that a chunk
		// updated meanwhile by a writer is not read again and again.
		rs, err := ix.pool.Query(ctx, `SELECT c.file_id, c.ord, f.name, c.symbol, c.text FROM kb_chunks c
JOIN kb_files f ON f.id = c.file_id JOIN kb_bases b ON b.id = f.kb_id
WHERE b.name = ? AND c.vec IS NULL AND (c.file_id > ? OR (c.file_id = ? AND c.ord > ?))
ORDER BY c.file_id, c.ord LIMIT ?`, kb, after.file, after.file, after.ord, missingBatch)
		if err != nil {
			return done, fmt.Errorf("index: reading the chunks of %s without vectors: %w", kb, err)
		}
		var rows []row
		for rs.Next() {
			var r row
			if err := rs.Scan(&r.file, &r.ord, &r.chunk.FileName, &r.chunk.Symbol, &r.chunk.Text); err != nil {
				rs.Close()
				return done, fmt.Errorf("index: reading the chunks of %s without vectors: %w", kb, err)
			}
			rows = append(rows, r)
		}
		err = rs.Err()
		rs.Close()
		if err != nil {
			return done, fmt.Errorf("index: reading the chunks of %s without vectors: %w", kb, err)
		}
		if len(rows) == 0 {
			return done, nil
		}
		texts := make([]string, len(rows))
		for i, r := range rows {
			texts[i] = indexText(r.chunk)
		}
		vecs, err := ix.embedTexts(ctx, texts)
		if err != nil {
			return done, fmt.Errorf("index: embedding the chunks of %s without vectors: %w", kb, err)
		}
		err = ix.inTx(ctx, func(tx dbconn.Conn) error {
			for i, r := range rows {
				// The text guards against a file replaced meanwhile (its
				// new rows have a new file id anyway).
				if _, err := tx.Exec(ctx, `UPDATE kb_chunks SET vec = ? WHERE file_id = ? AND ord = ? AND text = ? AND vec IS NULL`,
					encodeVector(vecs[i]), r.file, r.ord, r.chunk.Text); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return done, fmt.Errorf("index: storing the vectors of %s: %w", kb, err)
		}
		done += len(rows)
		last := rows[len(rows)-1]
		after = key{file: last.file, ord: int32(last.ord)}
		if len(rows) < missingBatch {
			return done, nil
		}
	}
}

// ErrEmbedderPaused is the error of a PausingEmbedder while it pauses.
var ErrEmbedderPaused = errors.New("the embedder is paused after a failure")

// DefaultEmbedPause is PausingEmbedder's default pause.
const DefaultEmbedPause = time.Minute

// PausingEmbedder is an Embedder that, once its Embedder has failed,
// fails at once with ErrEmbedderPaused for Pause instead of calling it: a
// down endpoint then costs one failure (and its retries) a pause, not one
// per file indexed and per search. A cancelled call does not count as a
// failure. It is safe for concurrent use.
type PausingEmbedder struct {
	// Embedder is the embedder paused.
	Embedder Embedder
	// Pause is how long it is not called after a failure (default
	// DefaultEmbedPause).
	Pause time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu    sync.Mutex
	until time.Time
}

var _ Embedder = (*PausingEmbedder)(nil)

// Embed calls the Embedder unless it failed less than Pause ago.
func (p *PausingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	p.mu.Lock()
	until := p.until
	p.mu.Unlock()
	if now().Before(until) {
		return nil, fmt.Errorf("%w (until %s)", ErrEmbedderPaused, until.UTC().Format(time.RFC3339))
	}
	vecs, err := p.Embedder.Embed(ctx, texts)
	if err != nil && ctx.Err() == nil {
		pause := p.Pause
		if pause <= 0 {
			pause = DefaultEmbedPause
		}
		p.mu.Lock()
		p.until = now().Add(pause)
		p.mu.Unlock()
	}
	return vecs, err
}
