package sessions

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// Run is one judge configuration in a session. Its verdicts are comparable
// with each other and are what a re-judge adds history to.
type Run struct {
	ID   int64
	Info judge.Info
	// Key identifies the run: the canonical JSON of the judge's name,
	// model and params, e.g. {"model":"gpt-4o","name":"docqa","params":{"temperature":0}}.
	Key       string
	CreatedAt time.Time
}

// RunKey returns the key that identifies runs of info: canonical JSON (keys
// sorted, numbers normalised) of its name, model and params, so two
// configurations that differ only in how they were written share a run.
func RunKey(info judge.Info) (string, error) {
	params, err := canonicalParams(info.Params)
	if err != nil {
		return "", err
	}
	key, err := json.Marshal(struct {
		Model  string          `json:"model"`
		Name   string          `json:"name"`
		Params json.RawMessage `json:"params"`
	}{info.Model, info.Name, params})
	if err != nil {
		return "", err
	}
	return string(key), nil
}

// canonicalParams renders params as JSON with sorted keys, going through a
// generic decode so that values of any Go type (structs, json.Number,
// ints or floats) render the same way.
func canonicalParams(p map[string]any) (json.RawMessage, error) {
	if len(p) == 0 {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("judge params cannot be saved: %w", err)
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return nil, err
	}
	return json.Marshal(generic)
}

// EnsureRun returns the session's run for info's name, model and params,
// creating it when missing. An existing run takes info's description,
// definition, dimensions and per-criterion flag, so the session describes
// the judge as it last ran.
func (s *Store) EnsureRun(info judge.Info) (Run, error) {
	if info.Name == "" {
		return Run{}, fmt.Errorf("session %s: a judge run needs a judge name", s.path)
	}
	key, err := RunKey(info)
	if err != nil {
		return Run{}, fmt.Errorf("session %s: %w", s.path, err)
	}
	params, _ := canonicalParams(info.Params)
	run := Run{Info: info, Key: key}
	var up Run // a replica's run, as the team session holds it (upstream.go)
	if s.upstream != nil {
		if up, err = s.upstreamRun(info); err != nil {
			return Run{}, err
		}
	}
	err = s.write("saving the judge run", func(tx *sql.Tx) error {
		var created string
		err := tx.QueryRow(`SELECT id, created_at FROM runs WHERE key = ?`, key).Scan(&run.ID, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows) && s.upstream != nil:
			return fmt.Errorf("the judge run %d of the team session is not in its local copy yet", up.ID)
		case errors.Is(err, sql.ErrNoRows):
			run.CreatedAt = now()
			res, err := tx.Exec(`INSERT INTO runs (key, judge, model, params, per_criterion, description, definition, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				key, info.Name, info.Model, string(params), info.PerCriterion, info.Description, definition(info), stamp(run.CreatedAt))
			if err != nil {
				return err
			}
			if run.ID, err = res.LastInsertId(); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			if run.CreatedAt, err = parseStamp(created); err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE runs SET per_criterion = ?, description = ?, definition = ? WHERE id = ?`,
				info.PerCriterion, info.Description, definition(info), run.ID); err != nil {
				return err
			}
			if _, err := tx.Exec(`DELETE FROM run_dimensions WHERE run_id = ?`, run.ID); err != nil {
				return err
			}
		}
		if err := declareScales(tx, info.Dimensions); err != nil {
			return err
		}
		for i, d := range info.Dimensions {
			if _, err := tx.Exec(`INSERT INTO run_dimensions (run_id, position, dimension, scale, description) VALUES (?, ?, ?, ?, ?)`,
				run.ID, i, d.Name, string(d.Scale), d.Description); err != nil {
				return fmt.Errorf("dimension %q: %w", d.Name, err)
			}
		}
		return nil
	})
	if err != nil {
		return Run{}, err
	}
	if s.upstream != nil && run.ID != up.ID {
		return Run{}, newError(ErrReplicaDiverged, nil, "session %s: the judge run is %d here and %d in the team session", s.path, run.ID, up.ID)
	}
	return run, nil
}

// definition is how runs.definition holds info's definition: NULL when
// the judge has none.
func definition(info judge.Info) any {
	if info.Definition == "" {
		return nil
	}
	return info.Definition
}

// Runs returns every run of the session, oldest first.
func (s *Store) Runs() ([]Run, error) {
	return s.runs("reading the judge runs", "", nil)
}

// ErrNoRun means a run looked up by its id is not in the session.
var ErrNoRun = errors.New("no such judge run")

// RunByID returns the session's run with this id, or an error wrapping
// ErrNoRun when there is none.
func (s *Store) RunByID(id int64) (Run, error) {
	runs, err := s.runs("reading a judge run", "WHERE id = ?", []any{id})
	if err != nil {
		return Run{}, err
	}
	if len(runs) == 0 {
		return Run{}, newError(ErrNoRun, nil, "session %s has no judge run %d", s.path, id)
	}
	return runs[0], nil
}

// runs reads the runs that where (a WHERE clause on runs' columns, with
// args; "" for every run) keeps, oldest first, with their dimensions.
func (s *Store) runs(doing, where string, args []any) ([]Run, error) {
	var runs []Run
	err := s.read(doing, func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT id, key, judge, model, params, per_criterion, description, definition, created_at FROM runs `+where+` ORDER BY id`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		byID := map[int64]int{}
		for rows.Next() {
			var r Run
			var params, created string
			var def sql.NullString
			if err := rows.Scan(&r.ID, &r.Key, &r.Info.Name, &r.Info.Model, &params, &r.Info.PerCriterion, &r.Info.Description, &def, &created); err != nil {
				return err
			}
			r.Info.Definition = def.String
			if err := json.Unmarshal([]byte(params), &r.Info.Params); err != nil {
				return fmt.Errorf("run %d has unreadable params: %w", r.ID, err)
			}
			if len(r.Info.Params) == 0 {
				r.Info.Params = nil
			}
			if r.CreatedAt, err = parseStamp(created); err != nil {
				return err
			}
			byID[r.ID] = len(runs)
			runs = append(runs, r)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		dimsWhere := ""
		if where != "" {
			dimsWhere = "WHERE run_id IN (SELECT id FROM runs " + where + ")"
		}
		dims, err := tx.Query(`SELECT run_id, dimension, scale, description FROM run_dimensions `+dimsWhere+` ORDER BY run_id, position`, args...)
		if err != nil {
			return err
		}
		defer dims.Close()
		for dims.Next() {
			var id int64
			var d judge.Dimension
			var scale string
			if err := dims.Scan(&id, &d.Name, &scale, &d.Description); err != nil {
				return err
			}
			d.Scale = judge.Scale(scale)
			if i, ok := byID[id]; ok {
				runs[i].Info.Dimensions = append(runs[i].Info.Dimensions, d)
			}
		}
		return dims.Err()
	})
	if err != nil {
		return nil, err
	}
	return runs, nil
}
