package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// The recall path (-recall-chunks N): the agentgw request, on a gateway of
// its own whose agent recalls the top 5 references of a knowledge base of N
// generated Go functions (one chunk each) before it asks the model, against
// the same request to the same gateway's plain agent (issue 29 item 3,
// issue 28 item 3). It runs on SQLite, and with -pg again on a gateway whose
// store is a fresh PostgreSQL database, the same corpus indexed the same way
// (issue 30: on both stores).
const (
	recallKB       = "benchkb"
	recallAgent    = "benchrecall"
	funcsPerFile   = 100
	recallVocabLen = 6000
)

// recallAgentYAML is the recalling agent: the bench agent's default
// command with the references placed by the gateway (recallByAgent).
const recallAgentYAML = `name: benchrecall
version: 1.0.0
description: The bench agent's request, with recall from the bench knowledge base (bench/README.md).
commands:
  - name: default
    description: Review the selection with the five most relevant functions of the code base.
    messageTemplates:
      - role: system
        template: You are a senior software engineer helping a colleague inside their IDE.
      - role: user
        template: |-
          Review this {{ .activeEditor.language }} from {{ .activeEditor.filePath | basename }}:
          {{ fence .activeEditor.language .activeEditor.selectedText }}
          {{- with .userInputPrompt }}
          Focus: {{ . }}
          {{- end }}
    contextVariableCollectionStrategy:
      type: specify
      contextVariables:
        - name: activeEditor
          required: true
        - name: userInputPrompt
        - name: knowledgeBase
          resolverOptions: {knowledgeBaseIds: [benchkb], recallByAgent: true, topK: 5}
`

// recallConfig is the recall gateway's config: the knowledge base over dir,
// not re-indexed during the run.
func recallConfig(dir string) string {
	return fmt.Sprintf(`knowledgeBases:
  - id: %s
    name: Generated Go code
    sources:
      - {dir: %q, paths: ["**/*.go"]}
knowledge: {reindex: 24h}
`, recallKB, dir)
}

// recallStore is a store the recall path runs on: the label its rows
// carry, its gateway's process name (and data directory), its two latency
// paths, and whether it is PostgreSQL (-pg).
type recallStore struct {
	label, name   string
	plain, recall string
	pg            bool
}

// recallStores are the recall path's stores: the data directory's SQLite,
// and with -pg a fresh PostgreSQL database of its own (not agentgw-pg's:
// two gateways on one database would share its hand-off queue).
var recallStores = []recallStore{
	{label: "SQLite", name: "agentgw-recall", plain: pathRecallPlain, recall: pathRecall},
	{label: "PostgreSQL", name: "agentgw-pg-recall", plain: pathPGRecallPlain, recall: pathPGRecall, pg: true},
}

// result is where the results keep the recall path's corpus and index
// build on the store.
func (s recallStore) result(r *results) **recallInfo {
	if s.pg {
		return &r.RecallPG
	}
	return &r.Recall
}

// recallGateway is a recall gateway: its store, its process and the
// figures of its knowledge base.
type recallGateway struct {
	store recallStore
	gw    *harness.Process
	info  *recallInfo
}

// recallFiles are the recall gateways' shared files: the corpus, the agents
// directory (the bench agent and the recalling one) and the config naming
// the knowledge base.
type recallFiles struct {
	agents, config string
	chunks, lines  int
}

// writeRecallFiles writes a corpus of n generated functions under dir, the
// agents directory and the config, once for every store.
func writeRecallFiles(dir, root string, n int) (*recallFiles, error) {
	corpus := filepath.Join(dir, "recall-corpus")
	lines, err := writeCorpus(corpus, n)
	if err != nil {
		return nil, fmt.Errorf("writing the recall corpus: %w", err)
	}
	f := &recallFiles{agents: filepath.Join(dir, "recall-agents"), config: filepath.Join(dir, "recall.yaml"), chunks: n, lines: lines}
	if err := os.MkdirAll(f.agents, 0o755); err != nil {
		return nil, fmt.Errorf("creating the recall agents directory: %w", err)
	}
	benchAgent, err := os.ReadFile(filepath.Join(root, "bench", "agents", "bench.yaml"))
	if err != nil {
		return nil, fmt.Errorf("reading the bench agent: %w", err)
	}
	for path, data := range map[string][]byte{
		filepath.Join(f.agents, "bench.yaml"):  benchAgent,
		filepath.Join(f.agents, "recall.yaml"): []byte(recallAgentYAML),
		f.config:                               []byte(recallConfig(corpus)),
	} {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, fmt.Errorf("writing the recall files: %w", err)
		}
	}
	return f, nil
}

// startRecalls writes the recall files for a corpus of n functions and
// starts a recall gateway on SQLite and, when pgStore (a database URL) is
// set, one on PostgreSQL, each indexing the same corpus.
func startRecalls(ctx context.Context, ps *harness.Set, root, upstream string, n int, pgStore string, log io.Writer) ([]*recallGateway, error) {
	f, err := writeRecallFiles(ps.Dir, root, n)
	if err != nil {
		return nil, err
	}
	var out []*recallGateway
	for _, r := range recallRuns(pgStore) {
		gw, info, err := startRecall(ctx, ps, filepath.Join(ps.Dir, "bin", "agentgw"), upstream, f, r.store, r.env, log)
		if err != nil {
			return nil, err
		}
		out = append(out, &recallGateway{store: r.store, gw: gw, info: info})
	}
	return out, nil
}

// recallRun is a store the recall path runs on in this run, and the
// environment that puts its gateway's store there.
type recallRun struct {
	store recallStore
	env   []string
}

// recallRuns are the recall path's stores for a run: SQLite (the data
// directory's, no environment), and PostgreSQL on the database pgStore
// when it is set (-pg).
func recallRuns(pgStore string) []recallRun {
	var runs []recallRun
	for _, s := range recallStores {
		switch {
		case !s.pg:
			runs = append(runs, recallRun{store: s})
		case pgStore != "":
			runs = append(runs, recallRun{store: s, env: []string{"AGENTGW_STORE_URL=" + pgStore}})
		}
	}
	return runs
}

// startRecall indexes the corpus of f with agentgw kb index (timed) into
// the store s, env added to the environment (AGENTGW_STORE_URL for
// PostgreSQL), and starts the recall gateway on that store with the bench
// agent and the recalling one; it returns the gateway and the corpus's
// figures.
func startRecall(ctx context.Context, ps *harness.Set, bin, upstream string, f *recallFiles, s recallStore, env []string, log io.Writer) (*harness.Process, *recallInfo, error) {
	env = append([]string{"AGENTGW_CONFIG=" + f.config}, env...)
	fmt.Fprintf(log, "recall (%s): indexing %d functions (%d lines) with agentgw kb index\n", s.label, f.chunks, f.lines)
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "kb", "index", "--data", filepath.Join(ps.Dir, s.name+"-data"))
	// The gateways' environment (harness.Start): none of the caller's
	// AGENTGW_* variables, which could name another store.
	cmd.Env = append(harness.CleanEnv(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("agentgw kb index (%s): %w: %s", s.label, err, strings.TrimSpace(string(out)))
	}
	info := &recallInfo{Chunks: f.chunks, Lines: f.lines, Index: time.Since(start),
		IndexCPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	fmt.Fprintf(log, "recall (%s): indexed in %.1f s (agentgw kb index's CPU %.1f s)\n", s.label, info.Index.Seconds(), info.IndexCPU.Seconds())
	gw, err := startGateway(ctx, ps, s.name, bin, f.agents, upstream, env)
	if err != nil {
		return nil, nil, err
	}
	// A run that recalled nothing would measure nothing: the knowledge base
	// must answer the bench request's words with references.
	if err := checkRecall(ctx, "http://"+gw.Addr); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.label, err)
	}
	return gw, info, nil
}

// checkRecall searches the knowledge base of the gateway at base for the
// bench request's question and fails unless it finds 5 references.
func checkRecall(ctx context.Context, base string) error {
	body := mustJSON(map[string]any{"query": userPrompt + "\n" + lineSpan(editorFile, selStart, selEnd), "topK": 5})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/knowledge-bases/"+recallKB+"/search", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("searching the recall knowledge base: %w", err)
	}
	defer resp.Body.Close()
	var out struct {
		References []json.RawMessage `json:"references"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("searching the recall knowledge base: status %d, %v", resp.StatusCode, err)
	}
	if len(out.References) != 5 {
		return fmt.Errorf("searching the recall knowledge base: %d references, want 5", len(out.References))
	}
	return nil
}

// writeCorpus writes n Go functions, funcsPerFile a file, under dir, and
// returns the number of lines written. The words follow a Zipf law over a
// vocabulary of made-up identifiers mixed with Go's common ones (err, ctx,
// return, nil, ...), so that some query terms are rare and some are in most
// chunks, as in a real code base; the same n always writes the same files.
func writeCorpus(dir string, n int) (int, error) {
	rng := rand.New(rand.NewPCG(29, 3))
	vocab := makeVocab(rng, recallVocabLen)
	zipf := rand.NewZipf(rand.New(rand.NewPCG(28, 3)), 1.1, 2, uint64(len(vocab)-1))
	word := func() string { return vocab[zipf.Uint64()] }
	lines := 0
	for f := 0; f*funcsPerFile < n; f++ {
		var b strings.Builder
		pkg := fmt.Sprintf("pkg%03d", f/50)
		fmt.Fprintf(&b, "package %s\n\n", pkg)
		for i := f * funcsPerFile; i < min(n, (f+1)*funcsPerFile); i++ {
			name := ident(word(), word(), word())
			fmt.Fprintf(&b, "// %s %s the %s of %s %s and %s.\n", name, word(), word(), word(), word(), word())
			fmt.Fprintf(&b, "func %s(ctx context.Context, %s %s) (%s, error) {\n", name, word(), ident(word(), word()), ident(word()))
			for range 3 + rng.IntN(5) {
				fmt.Fprintf(&b, "\t%s, err := %s.%s(ctx, %s)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s %s: %%w\", err)\n\t}\n",
					word(), word(), ident(word(), word()), word(), word(), word())
			}
			fmt.Fprintf(&b, "\treturn %s, nil\n}\n\n", word())
		}
		text := b.String()
		lines += strings.Count(text, "\n")
		path := filepath.Join(dir, fmt.Sprintf("pkg%03d", f/50), fmt.Sprintf("file%05d.go", f))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return 0, err
		}
	}
	return lines, nil
}

// makeVocab returns n distinct words: Go's common identifiers first (the
// Zipf law makes them the most frequent), then made-up ones of two or
// three syllables.
func makeVocab(rng *rand.Rand, n int) []string {
	common := []string{"err", "ctx", "value", "result", "data", "id", "name", "key", "store", "request",
		"response", "config", "client", "handler", "error", "order", "user", "item", "cache", "query"}
	syll := []string{"ba", "ko", "ri", "tan", "mel", "sor", "vi", "qu", "dex", "lo", "pra", "zen", "fu", "gal",
		"hes", "nor", "pi", "cru", "wex", "ym", "ol", "tri", "sta", "mon"}
	seen := map[string]bool{}
	vocab := make([]string, 0, n)
	for _, w := range common {
		seen[w] = true
		vocab = append(vocab, w)
	}
	for len(vocab) < n {
		w := ""
		for range 2 + rng.IntN(2) {
			w += syll[rng.IntN(len(syll))]
		}
		if !seen[w] {
			seen[w] = true
			vocab = append(vocab, w)
		}
	}
	return vocab
}

// ident joins words as a Go identifier in camel case.
func ident(words ...string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 && w != "" {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}
