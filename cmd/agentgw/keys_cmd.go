package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/keys"
	"github.com/agentgw/agentgw/store"
	"github.com/agentgw/agentgw/store/pgstore"
	"github.com/agentgw/agentgw/store/sqlitestore"
)

// openKeys is the stored keys of the gateway's store: its SQLite file or
// PostgreSQL database; the memory store keeps none.
func openKeys(ctx context.Context, st store.Store, log *slog.Logger) (*keys.Store, error) {
	switch db := st.(type) {
	case *sqlitestore.SQLite:
		return keys.NewSQLite(ctx, db.DB(), keys.Options{Logger: log, ReadDB: db.ReadDB()})
	case *pgstore.Postgres:
		return keys.NewPostgres(ctx, db.Pool(), keys.Options{Logger: log})
	}
	return nil, errors.New("keys: the memory store keeps no keys: configure store.path or store.url")
}

// keysCreateOptions are the flags of agentgw keys create.
type keysCreateOptions struct {
	key           keys.Key
	asJSON, quiet bool
}

// newKeysCmd is agentgw keys and its sub-commands, which manage the
// stored keys in the gateway's store, as POST/GET/DELETE /keys do,
// without a server: the way to make the first admin key.
func newKeysCmd(e cliEnv) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, list, rotate and revoke the stored inbound keys",
		Long: `Create, list, rotate and revoke the gateway's stored inbound keys (server.keys),
in the gateway's store (SQLite or PostgreSQL), as the admin API /keys does,
without a server. Every replica sharing the store sees the change on its next
request. A key's secret is printed once, by create and rotate.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("missing sub-command: create, list, rotate or revoke")
		},
	}
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a key and print its secret (shown once)",
		Example: `  agentgw keys create --user alice --team platform --agents reviewer,fixer/explain --models 'gpt-4o*'
  agentgw keys create --team ops --agents '*' --models '*' --admin --name "ops automation"`,
		Args: cobra.NoArgs,
	}
	gc := newGatewayFlags(create.Flags(), withData)
	var o keysCreateOptions
	f := create.Flags()
	f.StringVar(&o.key.User, "user", "", "the `USER` the key stands for (its objects are the user's)")
	f.StringVar(&o.key.Team, "team", "", "the `TEAM` the key stands for (owner when no --user)")
	f.StringVar(&o.key.Name, "name", "", "what the key is for")
	f.StringSliceVar(&o.key.Agents, "agents", nil, "agents and commands it may call: agent, agent/command, patterns such as '*' (none: no agent)")
	f.StringSliceVar(&o.key.Models, "models", nil, "upstream models it may reach through /v1, as patterns such as 'gpt-4o*' (none: no model)")
	f.BoolVar(&o.key.Admin, "admin", false, "the key may use the admin APIs (/keys) and see every owner's objects")
	f.BoolVar(&o.asJSON, "json", false, "print the key as JSON (as POST /keys answers)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print the secret alone (for a file or a variable)")
	create.RunE = func(*cobra.Command, []string) error {
		return exit(withKeys(gc, e, func(ctx context.Context, st *keys.Store) error {
			k, secret, err := st.Create(ctx, o.key, access.Operator)
			if err != nil {
				return err
			}
			switch {
			case o.asJSON:
				return printJSON(e.stdout, keys.ToJSON(k, secret))
			case o.quiet:
				fmt.Fprintln(e.stdout, secret)
				return nil
			}
			fmt.Fprintf(e.stdout, "key %s for %s created; its secret, shown only now:\n%s\n", k.ID, whom(k), secret)
			return nil
		}))
	}
	list := &cobra.Command{Use: "list", Short: "List the keys (never their secrets)", Args: cobra.NoArgs}
	gl := newGatewayFlags(list.Flags(), withData)
	var listJSON bool
	list.Flags().BoolVar(&listJSON, "json", false, "print the keys as a JSON array (as GET /keys answers)")
	list.RunE = func(*cobra.Command, []string) error {
		return exit(withKeys(gl, e, func(ctx context.Context, st *keys.Store) error {
			ks, err := st.List(ctx)
			if err != nil {
				return err
			}
			if listJSON {
				out := make([]keys.JSON, 0, len(ks))
				for _, k := range ks {
					out = append(out, keys.ToJSON(k, ""))
				}
				return printJSON(e.stdout, out)
			}
			return printKeys(e.stdout, ks)
		}))
	}
	rotate := &cobra.Command{Use: "rotate ID", Short: "Give a key a new secret (the old one stops working at once)", Args: minArgs("ID")}
	gr := newGatewayFlags(rotate.Flags(), withData)
	rotate.RunE = func(_ *cobra.Command, args []string) error {
		return exit(withKeys(gr, e, func(ctx context.Context, st *keys.Store) error {
			k, secret, err := st.Rotate(ctx, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "key %s for %s rotated; its new secret, shown only now:\n%s\n", k.ID, whom(k), secret)
			return nil
		}))
	}
	revoke := &cobra.Command{
		Use:   "revoke [ID]...",
		Short: "Revoke keys: every replica refuses them from its next request",
		Long: `Revoke the keys named by id, or every live key of --user or --team (someone
leaving, a team's keys leaked): every replica sharing the store refuses them
from its next request. A revoked key stays listed.`,
		Example: `  agentgw keys revoke 8ff33e3c-c1af-41dc-ba37-81ca22c9a323
  agentgw keys revoke --user alice`,
	}
	gv := newGatewayFlags(revoke.Flags(), withData)
	var byUser, byTeam string
	revoke.Flags().StringVar(&byUser, "user", "", "revoke every live key of `USER`")
	revoke.Flags().StringVar(&byTeam, "team", "", "revoke every live key of `TEAM`")
	revoke.RunE = func(_ *cobra.Command, ids []string) error {
		if len(ids) == 0 && byUser == "" && byTeam == "" {
			return errors.New("missing the keys to revoke: their ids, or --user or --team")
		}
		return exit(withKeys(gv, e, func(ctx context.Context, st *keys.Store) error {
			if byUser != "" || byTeam != "" {
				ks, err := st.List(ctx)
				if err != nil {
					return err
				}
				for _, k := range ks {
					if !k.Revoked() && (byUser != "" && k.User == byUser || byTeam != "" && k.Team == byTeam) {
						ids = append(ids, k.ID)
					}
				}
				if len(ids) == 0 {
					fmt.Fprintln(e.stdout, "no live key to revoke")
				}
			}
			for _, id := range ids {
				k, err := st.Revoke(ctx, id)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "key %s for %s revoked at %s\n", k.ID, whom(k), k.RevokedAt.Format("2006-01-02T15:04:05Z07:00"))
			}
			return nil
		}))
	}
	cmd.AddCommand(create, list, rotate, revoke)
	return cmd
}

// withKeys loads the configuration, opens the store and its keys and runs
// fn on them: the exit code, 2 for a configuration that does not load, 1
// for any other failure, said on stderr.
func withKeys(g *gatewayFlags, e cliEnv, fn func(ctx context.Context, st *keys.Store) error) int {
	cfg, err := g.load(e.getenv)
	if err != nil {
		fmt.Fprintln(e.stderr, "agentgw:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := newStore(ctx, cfg, e.getenv, runtime.GOOS, log)
	if err != nil {
		fmt.Fprintln(e.stderr, "agentgw keys:", err)
		return 1
	}
	defer st.close()
	ks, err := openKeys(ctx, st.Store, log)
	if err == nil {
		err = fn(ctx, ks)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "agentgw keys:", err)
		return 1
	}
	return 0
}

// whom names a key's holder.
func whom(k keys.Key) string {
	switch {
	case k.User != "" && k.Team != "":
		return fmt.Sprintf("user %s (team %s)", k.User, k.Team)
	case k.User != "":
		return "user " + k.User
	}
	return "team " + k.Team
}

// printKeys prints a line per key: id, hint, user, team, admin, state,
// agents and models.
func printKeys(w io.Writer, ks []keys.Key) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tHINT\tUSER\tTEAM\tADMIN\tSTATE\tAGENTS\tMODELS")
	for _, k := range ks {
		state := "live"
		if k.Revoked() {
			state = "revoked"
		}
		fmt.Fprintf(tw, "%s\t%s…\t%s\t%s\t%v\t%s\t%s\t%s\n", k.ID, k.Hint, dash(k.User), dash(k.Team), k.Admin, state,
			list(k.Agents), list(k.Models))
	}
	return tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func list(ps []string) string {
	if len(ps) == 0 {
		return "-"
	}
	b, _ := json.Marshal(ps)
	return string(b)
}

// printJSON prints v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
