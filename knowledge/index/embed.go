package index

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
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
}

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
		cfg.BatchSize = 64
	}
	if cfg.MaxChars <= 0 {
		cfg.MaxChars = 8000
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	if cfg.HTTPClient != nil {
		oc.HTTPClient = cfg.HTTPClient
	}
	return &OpenAIEmbedder{client: openai.NewClientWithConfig(oc), cfg: cfg}, nil
}

// Embed asks the endpoint for the vectors of texts, BatchSize at a time.
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
		res, err := e.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
			Input:      in,
			Model:      openai.EmbeddingModel(e.cfg.Model),
			Dimensions: e.cfg.Dimensions,
		})
		if err != nil {
			return nil, fmt.Errorf("embedding %d texts with %s: %w", len(in), e.cfg.Model, err)
		}
		vecs := make([][]float32, len(in))
		for _, d := range res.Data {
			if d.Index < 0 || d.Index >= len(in) || vecs[d.Index] != nil {
				return nil, fmt.Errorf("embedding with %s: the answer has an embedding of index %d for %d texts", e.cfg.Model, d.Index, len(in))
			}
			vecs[d.Index] = d.Embedding
		}
		for i, v := range vecs {
			if len(v) == 0 {
				return nil, fmt.Errorf("embedding with %s: the answer lacks the embedding of text %d", e.cfg.Model, i)
			}
		}
		out = append(out, vecs...)
	}
	return out, nil
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
