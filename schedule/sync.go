package schedule

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/agentgw/agentgw/internal/access"
	"github.com/agentgw/agentgw/internal/dbconn"
)

// SyncReport says what a Sync changed: the names of the schedules it
// created, updated, deleted and left as they were.
type SyncReport struct {
	Created, Updated, Deleted, Unchanged []string
}

// staticSpace is the namespace of StaticID's name-based UUIDs.
var staticSpace = uuid.MustParse("0d3f5c52-8f0e-4a59-b1f4-52a6c1e0d7a4")

// StaticID is the id Sync gives a static schedule that names none: a
// UUID derived from its source and name, the same on every replica.
func StaticID(source, name string) string {
	return uuid.NewSHA1(staticSpace, []byte(source+"\x00"+name)).String()
}

// Sync makes the static schedules of source (the config, an agent file:
// any name the caller gives the place they are defined in) those of defs:
// it creates the ones that are new, updates the ones whose definition
// changed since the last Sync, and deletes (with their runs) the ones defs
// no longer has, so that a reload or a restart converges on the files.
// Schedules are matched by name; a new one's id is its ID, else
// StaticID(source, name); its owner is access.Operator. A schedule whose definition did not change is
// left as it is, run-time changes included: one disabled at run time
// stays disabled until its definition changes. An updated one keeps its
// runs and counts; its NextRun is recomputed when its spec changed or it
// was enabled.
//
// It runs in one transaction, all or nothing, serialized with other Syncs
// (replicas starting at once): a definition that is invalid, a name
// defined twice in defs, or a name taken by a schedule of another source
// or made at run time fails it (*ValidationError, ErrExists) and changes
// nothing.
func (s *Store) Sync(ctx context.Context, source string, defs []Schedule) (SyncReport, error) {
	var rep SyncReport
	if source == "" {
		return rep, errors.New("schedule: Sync needs the name of a source")
	}
	seen := map[string]bool{}
	for i := range defs {
		if err := defs[i].validate(); err != nil {
			return rep, fmt.Errorf("schedule %q of %s: %w", defs[i].Name, source, err)
		}
		if seen[defs[i].Name] {
			return rep, fmt.Errorf("schedule %q of %s: %w", defs[i].Name, source,
				&ValidationError{Field: "name", Value: defs[i].Name, Offset: -1, Msg: fmt.Sprintf("%q is defined twice", defs[i].Name)})
		}
		seen[defs[i].Name] = true
	}
	err := s.inTx(ctx, func(tx dbconn.Conn) error {
		rep = SyncReport{}
		if err := s.lockSync(ctx, tx); err != nil {
			return fmt.Errorf("schedule: taking the sync lock: %w", err)
		}
		existing, err := s.bySource(ctx, tx, source)
		if err != nil {
			return err
		}
		now := s.now().UTC()
		for _, def := range defs {
			hash := definitionHash(def)
			old, ok := existing[def.Name]
			delete(existing, def.Name)
			switch {
			case ok && old.hash == hash:
				rep.Unchanged = append(rep.Unchanged, def.Name)
			case ok:
				if err := s.syncUpdate(ctx, tx, old.sc, def, hash, now); err != nil {
					return err
				}
				rep.Updated = append(rep.Updated, def.Name)
			default:
				if err := s.syncInsert(ctx, tx, source, def, hash, now); err != nil {
					return err
				}
				rep.Created = append(rep.Created, def.Name)
			}
		}
		for name, old := range existing {
			if err := deleteRows(ctx, tx, old.sc.ID); err != nil {
				return err
			}
			rep.Deleted = append(rep.Deleted, name)
		}
		return nil
	})
	if err != nil {
		return SyncReport{}, fmt.Errorf("schedule: syncing %s: %w", source, err)
	}
	return rep, nil
}

type hashed struct {
	sc   Schedule
	hash string
}

// bySource reads the schedules of source, by name.
func (s *Store) bySource(ctx context.Context, tx dbconn.Conn, source string) (map[string]hashed, error) {
	rs, err := tx.Query(ctx, `SELECT `+columns+` FROM schedules WHERE source = ?`, source)
	if err != nil {
		return nil, fmt.Errorf("reading the schedules: %w", err)
	}
	defer rs.Close()
	out := map[string]hashed{}
	for rs.Next() {
		sc, hash, err := scanSchedule(rs)
		if err != nil {
			return nil, fmt.Errorf("reading the schedules: %w", err)
		}
		out[sc.Name] = hashed{sc, hash}
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading the schedules: %w", err)
	}
	return out, nil
}

// syncUpdate writes def's definition over old's.
func (s *Store) syncUpdate(ctx context.Context, tx dbconn.Conn, old, def Schedule, hash string, now time.Time) error {
	sc := old
	sc.Spec, sc.Enabled, sc.Target, sc.Timeout, sc.Missed = def.Spec, def.Enabled, def.Target, def.Timeout, def.Missed
	if sc.Enabled {
		sc.DisabledReason = ""
	}
	switch {
	case !sc.Enabled:
		sc.NextRun = time.Time{}
	case !old.Enabled || !sc.Spec.Equal(old.Spec):
		sc.NextRun, _ = sc.Spec.Next(now)
	}
	sc.UpdatedAt = now
	return s.rewrite(ctx, tx, sc, hash)
}

// syncInsert creates def as a schedule of source.
func (s *Store) syncInsert(ctx context.Context, tx dbconn.Conn, source string, def Schedule, hash string, now time.Time) error {
	var other string
	err := tx.QueryRow(ctx, `SELECT source FROM schedules WHERE name = ?`, def.Name).Scan(&other)
	switch {
	case err == nil && other == "":
		return fmt.Errorf("%w: schedule %q: a schedule of that name was created at run time; delete it or rename one", ErrExists, def.Name)
	case err == nil:
		return fmt.Errorf("%w: schedule %q is also defined in %s", ErrExists, def.Name, other)
	case !dbconn.IsNoRows(err):
		return fmt.Errorf("reading schedule %s: %w", def.Name, err)
	}
	sc := def
	if sc.ID == "" {
		sc.ID = StaticID(source, def.Name)
	}
	sc.Source, sc.Owner, sc.CreatedAt, sc.UpdatedAt = source, access.Operator, now, now
	sc.LastRun, sc.NextRun, sc.RunCount, sc.Runs = time.Time{}, time.Time{}, 0, nil
	if sc.Enabled {
		sc.NextRun, _ = sc.Spec.Next(now) // a once whose time passed: none
	}
	return s.insert(ctx, tx, sc, hash)
}

// definitionHash is the hash of sc's definition, as Sync compares them.
func definitionHash(sc Schedule) string {
	b, _ := json.Marshal(sc.definition()) // plain values: cannot fail
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// definitionsEqual reports whether a and b are the same definition.
func definitionsEqual(a, b definition) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
