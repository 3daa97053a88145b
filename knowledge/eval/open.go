package eval

import (
	"context"
	"fmt"
	"io"

	"github.com/agentgw/agentgw/knowledge/chunk"
	"github.com/agentgw/agentgw/knowledge/index"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// Config is a ranking configuration measured: a name and the options an
// index is opened with.
type Config struct {
	Name    string
	Options index.Options
}

// Configs are the configurations the gateway runs: lexical (the options
// knowledge/kb opens an index with) and hybrid with the deterministic
// HashEmbedder of 256 dimensions (embeddings: {hash: true}), which needs
// no model.
func Configs() []Config {
	return []Config{
		{"lexical", index.Options{Tokenizer: chunk.Tokens}},
		{"hybrid", index.Options{Tokenizer: chunk.Tokens, Embedder: index.HashEmbedder{Dim: 256, Tokenizer: chunk.Tokens}}},
	}
}

// OpenIndex opens an index with opts in the gateway store at db, a
// SQLite file's path or a postgres:// URL, as the gateway does; closing
// the returned Closer closes the store.
func OpenIndex(ctx context.Context, db string, opts index.Options) (*index.Index, io.Closer, error) {
	var c io.Closer
	var st store.Store
	if store.IsPostgresURL(db) {
		p, err := pgstore.Open(ctx, db)
		if err != nil {
			return nil, nil, fmt.Errorf("eval: opening %s: %w", "the PostgreSQL store", err)
		}
		c, st = p, p
	} else {
		s, err := sqlitestore.Open(db)
		if err != nil {
			return nil, nil, fmt.Errorf("eval: opening the SQLite store %s: %w", db, err)
		}
		c, st = s, s
	}
	ix, err := index.Open(ctx, st, opts)
	if err != nil {
		_ = c.Close()
		return nil, nil, fmt.Errorf("eval: opening the index: %w", err)
	}
	return ix, c, nil
}
