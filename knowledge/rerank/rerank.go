// Package rerank reorders the first hits of a knowledge search by a
// re-ranking model (a cross-encoder such as bge-reranker, or a hosted
// one), within a latency budget of its own. It is off unless a knowledge
// base configures it (knowledgeBases[].rerank).
//
// The endpoint is the re-ranking API that Cohere, Jina, vLLM, Infinity and
// LocalAI share: POST {url}/rerank with {"model", "query", "documents",
// "top_n"}, answered by {"results": [{"index", "relevance_score"}]}. One
// request per search, no retry: when the budget (Timeout) passes or the
// endpoint fails, the search's own order is kept and a WARN line says
// why, so that a slow or absent model never costs a search more than its
// budget nor fails it.
package rerank

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentgw/agentgw/knowledge/index"
)

// Defaults and bounds of Options.
const (
	DefaultCandidates = 20
	MaxCandidates     = index.MaxTopK
	DefaultTimeout    = 500 * time.Millisecond
	DefaultMaxChars   = 4000
	// maxAnswerBytes bounds the endpoint's answer read.
	maxAnswerBytes = 1 << 20
)

// Options configure a Reranker.
type Options struct {
	// URL is the API's base: the endpoint is URL + "/rerank".
	URL string
	// Model names the re-ranking model.
	Model string
	// APIKey is sent as a bearer token; "" sends none.
	APIKey string
	// Candidates is how many of the search's first hits the model orders
	// (default DefaultCandidates, at most MaxCandidates).
	Candidates int
	// Timeout is the re-ranking's latency budget (default
	// DefaultTimeout): past it, the search's order is kept.
	Timeout time.Duration
	// MaxChars cuts each hit's text to that many bytes, at a rune
	// boundary, before it is sent (default DefaultMaxChars).
	MaxChars int
	// HTTPClient sends the request (default http.DefaultClient).
	HTTPClient *http.Client
	// Logger logs the re-rankings that failed (default: none).
	Logger *slog.Logger
}

// Reranker reorders search hits by a re-ranking endpoint. It is safe for
// concurrent use.
type Reranker struct {
	o Options
}

// New returns a Reranker on the endpoint of o.
func New(o Options) (*Reranker, error) {
	if o.URL == "" || o.Model == "" {
		return nil, errors.New("rerank: a re-ranking endpoint needs a url and a model")
	}
	if o.Candidates < 0 || o.Candidates > MaxCandidates {
		return nil, fmt.Errorf("rerank: candidates %d is not between 1 and %d", o.Candidates, MaxCandidates)
	}
	if o.Candidates == 0 {
		o.Candidates = DefaultCandidates
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.URL = strings.TrimSuffix(o.URL, "/")
	return &Reranker{o: o}, nil
}

// Candidates is how many hits a search should ask for to be re-ranked.
func (r *Reranker) Candidates() int { return r.o.Candidates }

// Rerank returns the first topK of hits (best first) as the model orders
// the first Candidates of them, each scored by the model's relevance (in
// [0, 1]: scores outside it are mapped by the logistic function); hits
// the model leaves out follow, in the search's order. When the model
// fails or does not answer within the budget, it returns the first topK
// of hits as they are, and logs why. The text sent for a hit is its file
// name, symbol and text, cut to MaxChars.
func (r *Reranker) Rerank(ctx context.Context, query string, hits []index.Hit, topK int) []index.Hit {
	cut := func(hs []index.Hit) []index.Hit { return hs[:min(len(hs), max(topK, 0))] }
	if len(hits) < 2 || strings.TrimSpace(query) == "" {
		return cut(hits)
	}
	cands := hits[:min(len(hits), r.o.Candidates)]
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	scores, err := r.score(ctx, query, cands)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within the budget of %v", r.o.Timeout)
		}
		r.o.Logger.Warn("knowledge search: re-ranking failed, keeping the search's order",
			"model", r.o.Model, "candidates", len(cands), "ms", time.Since(start).Milliseconds(), "err", err)
		return cut(hits)
	}
	type ranked struct {
		hit   index.Hit
		score float64
	}
	var scored []ranked
	var rest []index.Hit
	for i, h := range cands {
		if s, ok := scores[i]; ok {
			h.Score = s
			scored = append(scored, ranked{h, s})
		} else {
			rest = append(rest, h)
		}
	}
	slices.SortStableFunc(scored, func(a, b ranked) int { return cmp.Compare(b.score, a.score) })
	out := make([]index.Hit, 0, len(hits))
	for _, s := range scored {
		out = append(out, s.hit)
	}
	// Hits the model did not score keep their order, below the scored
	// ones: their scores are capped at the last scored one's.
	floor := 1.0
	if len(scored) > 0 {
		floor = scored[len(scored)-1].score
	}
	for _, h := range append(rest, hits[len(cands):]...) {
		h.Score = math.Min(h.Score, floor)
		out = append(out, h)
	}
	return cut(out)
}

// rerankRequest and rerankAnswer are the endpoint's wire shapes.
type rerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n"`
}

type rerankAnswer struct {
	Results []struct {
		Index          *int     `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

// score asks the endpoint for the relevance of each candidate, by index.
func (r *Reranker) score(ctx context.Context, query string, cands []index.Hit) (map[int]float64, error) {
	req := rerankRequest{Model: r.o.Model, Query: query, Documents: make([]string, len(cands)), TopN: len(cands)}
	for i, h := range cands {
		req.Documents[i] = truncate(h.Chunk.FileName+"\n"+h.Chunk.Symbol+"\n"+h.Chunk.Text, r.o.MaxChars)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding the request: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, r.o.URL+"/rerank", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("making the request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if r.o.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+r.o.APIKey)
	}
	res, err := r.o.HTTPClient.Do(hr)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the endpoint answered %s: %.200s", res.Status, data)
	}
	var ans rerankAnswer
	if err := json.Unmarshal(data, &ans); err != nil {
		return nil, fmt.Errorf("decoding the answer: %w", err)
	}
	scores := make(map[int]float64, len(ans.Results))
	logistic := false
	for _, x := range ans.Results {
		if x.Index == nil || x.RelevanceScore == nil || *x.Index < 0 || *x.Index >= len(cands) ||
			math.IsNaN(*x.RelevanceScore) || math.IsInf(*x.RelevanceScore, 0) {
			return nil, errors.New("the answer has a result without a valid index and relevance_score")
		}
		if _, dup := scores[*x.Index]; dup {
			return nil, fmt.Errorf("the answer scores document %d twice", *x.Index)
		}
		s := *x.RelevanceScore
		scores[*x.Index] = s
		if s < 0 || s > 1 {
			logistic = true
		}
	}
	if logistic {
		for i, s := range scores {
			scores[i] = 1 / (1 + math.Exp(-s))
		}
	}
	return scores, nil
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
