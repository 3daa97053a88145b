package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentgw/agentgw/bench/internal/harness"
)

// postgres is a PostgreSQL server the harness made with initdb in a
// directory of its own and runs with pg_ctl: a database nobody else uses,
// that the harness can stop and start again during the load.
type postgres struct {
	bin  string // the directory of initdb, pg_ctl and postgres
	dir  string // its data, socket and log directory
	port int
	as   []string // "runuser -u postgres --" when the harness runs as root (initdb refuses root)
}

// pgBinDir finds PostgreSQL's server binaries: on PATH (pg_ctl), else the
// newest /usr/lib/postgresql/*/bin (Debian's layout).
func pgBinDir() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "initdb")); err == nil {
			return filepath.Dir(p), nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi < vj
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", errors.New("PostgreSQL's initdb and pg_ctl are not on PATH nor in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)")
}

// The server runs with fsync=off (an operating system crash is not among
// the faults; a process crash loses nothing with it) and the default
// synchronous_commit=on: with it off, a stop -m immediate would lose
// commits the gateways were told about, which would be the harness's loss.

// startPostgres makes a cluster in dir/pg and starts it on a free loopback
// port.
func startPostgres(ctx context.Context, work string) (*postgres, error) {
	bin, err := pgBinDir()
	if err != nil {
		return nil, err
	}
	pg := &postgres{bin: bin, dir: filepath.Join(work, "pg")}
	if err := os.MkdirAll(pg.dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the PostgreSQL directory: %w", err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, initdb needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		// The work directory is 0700 root's: let the postgres user through
		// to its own directory.
		for _, d := range []string{filepath.Dir(work), work} {
			if err := os.Chmod(d, 0o711); err != nil {
				return nil, fmt.Errorf("opening the work directory to postgres: %w", err)
			}
		}
		if err := os.Chown(pg.dir, uid, gid); err != nil {
			return nil, fmt.Errorf("giving the PostgreSQL directory to postgres: %w", err)
		}
		pg.as = []string{"runuser", "-u", "postgres", "--"}
	}
	addr, err := harness.StableAddr() // PostgreSQL restarts on it
	if err != nil {
		return nil, err
	}
	pg.port, _ = strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
	if out, err := pg.cmd(ctx, "initdb", "-D", filepath.Join(pg.dir, "data"), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return pg, pg.start(ctx)
}

// cmd runs one of the server's programs, as postgres when needed.
func (pg *postgres) cmd(ctx context.Context, prog string, args ...string) *exec.Cmd {
	argv := append(append(append([]string(nil), pg.as...), filepath.Join(pg.bin, prog)), args...)
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.Env = harness.CleanEnv()
	return c
}

// start starts the server and waits until it accepts connections.
func (pg *postgres) start(ctx context.Context) error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off", pg.port, pg.dir)
	out, err := pg.cmd(ctx, "pg_ctl", "-D", filepath.Join(pg.dir, "data"), "-l", filepath.Join(pg.dir, "postgres.log"), "-o", opts, "-w", "-t", "60", "start").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, harness.Tail(filepath.Join(pg.dir, "postgres.log")))
	}
	return nil
}

// stop stops the server at once (-m immediate: what a crash or a failover
// looks like to the clients), or cleanly with fast.
func (pg *postgres) stop(ctx context.Context, mode string) error {
	out, err := pg.cmd(ctx, "pg_ctl", "-D", filepath.Join(pg.dir, "data"), "-m", mode, "-w", "-t", "60", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// url is the store URL the gateways use.
func (pg *postgres) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=3", pg.port)
}

// restart stops the server for outage, then starts it again.
func (pg *postgres) restart(ctx context.Context, outage time.Duration) error {
	if err := pg.stop(ctx, "immediate"); err != nil {
		return err
	}
	select {
	case <-time.After(outage):
	case <-ctx.Done():
	}
	return pg.start(context.WithoutCancel(ctx))
}
