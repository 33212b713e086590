package pg_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/plan"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// connect opens a store on a new session of the shared test server.
func connect(t *testing.T) *pg.Store {
	t.Helper()
	srv := pgtest.Shared(t)
	st, err := pg.Connect(context.Background(), srv.URL(pgtest.Name(t)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// rawDB opens a session file with database/sql, for writing what the
// store's API cannot and for dumps.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// dump is every row of every table of a session file (SQLite's own and
// the annotator locks aside; the derived tables included), each value
// written with its storage class and exact bytes or bits, rowid tables
// with their rowids, in rowid or key order.
func dump(t *testing.T, path string) map[string][]string {
	t.Helper()
	db := rawDB(t, path)
	var tables []string
	rows, err := db.Query(`SELECT name, wr FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'locks' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	withoutRowid := map[string]bool{}
	for rows.Next() {
		var n string
		var wr bool
		if err := rows.Scan(&n, &wr); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
		withoutRowid[n] = wr
	}
	rows.Close()
	out := map[string][]string{}
	for _, name := range tables {
		var cols []string
		cr, err := db.Query(`SELECT name FROM pragma_table_info(?) ORDER BY cid`, name)
		if err != nil {
			t.Fatal(err)
		}
		for cr.Next() {
			var c string
			cr.Scan(&c)
			cols = append(cols, c)
		}
		cr.Close()
		var sel []string
		for _, c := range cols {
			sel = append(sel, fmt.Sprintf(`typeof("%s"), "%[1]s"`, c))
		}
		q := `SELECT ` + strings.Join(sel, ", ") + ` FROM "` + name + `"`
		if !withoutRowid[name] {
			q = `SELECT _rowid_, ` + strings.Join(sel, ", ") + ` FROM "` + name + `" ORDER BY _rowid_`
		}
		rs, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		n := 2 * len(cols)
		if !withoutRowid[name] {
			n++
		}
		vals := make([]any, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var lines []string
		for rs.Next() {
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			k := 0
			if !withoutRowid[name] {
				fmt.Fprintf(&b, "rowid=%v", vals[0])
				k = 1
			}
			for i, c := range cols {
				fmt.Fprintf(&b, " %s=%s:%s", c, vals[k+2*i], show(vals[k+2*i+1]))
			}
			lines = append(lines, b.String())
		}
		rs.Close()
		if withoutRowid[name] {
			slices.Sort(lines)
		}
		out[name] = lines
	}
	return out
}

// show writes a value exactly: a real by its bits, a text or blob quoted
// byte for byte.
func show(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("%v(%#x)", x, math.Float64bits(x))
	case string:
		return fmt.Sprintf("%+q", x)
	case []byte:
		return fmt.Sprintf("x%x", x)
	}
	return fmt.Sprint(v)
}

// sameDump fails when two dumps differ, naming the tables and the first
// rows that differ.
func sameDump(t *testing.T, want, got map[string][]string) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("table %s missing from the copy", name)
			continue
		}
		if len(w) != len(g) {
			t.Errorf("table %s: %d rows, the copy %d", name, len(w), len(g))
		}
		for i := range min(len(w), len(g)) {
			if w[i] != g[i] {
				t.Errorf("table %s row %d:\nwant %s\ngot  %s", name, i, w[i], g[i])
				break
			}
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("the copy has a table %s the original has not", name)
		}
	}
}

// hostile texts: a NUL, invalid UTF-8, a bidi override, an escape.
const (
	withNUL     = "before\x00after"
	invalidUTF8 = "caf\xe9 \xff\xfe"
	escapes     = "\x1b]8;;http://x\x07link\x1b]8;;\x07 \u202egnp.exe"
)

// richSession writes a session with everything a session holds: a
// pairwise and ordinary items with rubrics and segments, several runs
// (binary, Likert per criterion, nominal, pairwise with swapped verdicts),
// re-judges, guidelines, tags, labels, accepts, notes, undos, "can't
// judge", re-tests, a split, a plan, the response cache, and texts with a
// NUL, invalid UTF-8 and escapes. Values the API cannot write (-0.0, a
// blob in a text column, a text in an integer column) are put by hand.
func richSession(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rich.gavel")
	s, err := sessions.Open(path, sessions.Options{Annotator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	var items []judge.Item
	for i := range 30 {
		it := judge.Item{Index: i, ID: fmt.Sprintf("q%02d", i), Question: fmt.Sprintf("question %d", i), Gold: "gold", Prediction: fmt.Sprintf("prediction %d", i),
			Segments: map[string]string{"topic": []string{"math", "history", "art"}[i%3]}}
		switch i {
		case 1:
			it.Question = withNUL
		case 2:
			it.Prediction = invalidUTF8
		case 3:
			it.Gold = escapes
		case 4:
			it.ID = "id with\x00nul"
		case 5:
			it.ID = "bad\xffid"
		case 6, 7:
			it.Rubric = []string{"is right", "is short " + escapes}
		}
		if i >= 8 && i%3 != 2 {
			// A row like the file's: stored once as a layout (schema v11)
			// but for the first item and the odd one.
			extra := `,"source":"gen"`
			if i == 20 {
				extra = `,"source":"hand"`
			}
			it.Fields = json.RawMessage(fmt.Sprintf(`{"id":%q,"q":%q,"topic":%q%s}`, it.ID, it.Question, it.Segments["topic"], extra))
		}
		items = append(items, it)
	}
	info := sessions.DatasetInfo{Path: "data/rich.jsonl", SHA256: "abc", Format: "jsonl", Items: len(items),
		Mapping: map[string]string{"question": "q", "segment": "topic"}}
	if err := s.InitDataset(info, items); err != nil {
		t.Fatal(err)
	}
	binary := judge.Dimension{Name: "correct", Scale: judge.Binary}
	likert := judge.Dimension{Name: "score", Scale: judge.Likert}
	grade := judge.Dimension{Name: "grade", Scale: judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")}
	conf := func(x float64) *float64 { return &x }
	match, err := s.EnsureRun(judge.Info{Name: "match", Dimensions: []judge.Dimension{binary}})
	if err != nil {
		t.Fatal(err)
	}
	llm, err := s.EnsureRun(judge.Info{Name: "docqa", Model: "m-" + escapes, Params: map[string]any{"temperature": 0.5},
		Description: "desc", Definition: "def " + withNUL, Dimensions: []judge.Dimension{binary, grade}})
	if err != nil {
		t.Fatal(err)
	}
	rubric, err := s.EnsureRun(judge.Info{Name: "rubric", PerCriterion: true, Dimensions: []judge.Dimension{likert}})
	if err != nil {
		t.Fatal(err)
	}
	var vs, ls, rs []judge.Verdict
	for i, it := range items {
		vs = append(vs, judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64(i % 2)},
			At: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)})
		v := judge.Verdict{ItemID: it.ID, Status: judge.StatusOK, Values: map[string]float64{"correct": float64((i + 1) % 2), "grade": float64(i % 3)},
			Reason: "because " + []string{withNUL, invalidUTF8, escapes}[i%3], Raw: "raw", Model: "m", PromptTokens: 10 + i, CompletionTokens: i,
			Latency: time.Duration(i) * 1500 * time.Microsecond, Extra: map[string]any{"k": i, "s": "x\u202e"}}
		switch i % 4 {
		case 0:
			v.Confidence = conf(0.25 + float64(i)/100)
		case 1:
			v.Confidence = conf(math.Copysign(0, -1))
		}
		if i == 9 {
			v.Status, v.Values, v.Error = judge.StatusParseError, nil, "unreadable "+invalidUTF8
		}
		ls = append(ls, v)
		if len(it.Rubric) > 0 {
			for c := range len(it.Rubric) + 1 {
				rs = append(rs, judge.Verdict{ItemID: it.ID, Criterion: c, Status: judge.StatusOK, Values: map[string]float64{"score": float64(1 + (i+c)%5)}})
			}
		}
	}
	for _, batch := range []struct {
		run int64
		vs  []judge.Verdict
	}{{match.ID, vs}, {llm.ID, ls}, {rubric.ID, rs}, {llm.ID, ls[:5]}} { // the last: re-judges
		if err := s.SaveVerdicts(batch.run, batch.vs); err != nil {
			t.Fatal(err)
		}
	}
	g1, _, err := s.AddGuidelines("# Guidelines\nBe fair.\n")
	if err != nil {
		t.Fatal(err)
	}
	g2, _, err := s.AddGuidelines("# Guidelines v2\nBe fair " + withNUL + ".\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddTags("too strict", "gold wrong ünïcode"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordSplit(sessions.Split{Seed: 7, Calibration: 0.5}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePlan(sessions.PlanOptions{Design: plan.Uniform, N: 8, Seed: 1<<63 + 5, Judge: "match"}); err != nil {
		t.Fatal(err)
	}
	s.ResponseCache().Put("key "+invalidUTF8, "response "+withNUL)
	appeared := time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC)
	for i, it := range items[:20] {
		acts := []sessions.Action{{Kind: sessions.KindLabel, ItemID: it.ID, Dimension: "correct", Value: float64(i % 2), Via: "order",
			Guidelines: g1.ID, Shown: sessions.ShownVerdict, ShownRun: llm.ID, Appeared: appeared}}
		switch i % 5 {
		case 1:
			acts = append(acts, sessions.Action{Kind: sessions.KindNote, ItemID: it.ID, Note: "note " + []string{withNUL, invalidUTF8, escapes}[i%3], Via: "order"})
		case 2:
			acts = []sessions.Action{{Kind: sessions.KindCantJudge, ItemID: it.ID, Reason: "gold-wrong", Note: "why " + withNUL, Via: "filter:x", Guidelines: g2.ID}}
		case 3:
			acts = append(acts, sessions.Action{Kind: sessions.KindTag, ItemID: it.ID, Tag: "too strict", Value: 1, Via: "order"},
				sessions.Action{Kind: sessions.KindLabel, ItemID: it.ID, Dimension: "grade", Value: float64(i % 3), Via: "order"})
		case 4:
			acts[0].Kind = sessions.KindAccept
		}
		if _, err := s.Record(acts); err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if i%7 == 6 {
			if _, err := s.Undo(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.Record([]sessions.Action{{Kind: sessions.KindLabel, ItemID: items[0].ID, Dimension: "correct", Value: 1, Via: "retest", Retest: true, Shown: sessions.ShownBlind}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UndoItem(items[3].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordAs("bo "+escapes, []sessions.Action{
		{Kind: sessions.KindLabel, ItemID: items[4].ID, Dimension: "correct", Value: 0, Via: "random"},
		{Kind: sessions.KindLabel, ItemID: items[6].ID, Criterion: 2, Dimension: "score", Value: 4, Via: "random"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// What the API does not write: a -0.0 and a blob where text belongs.
	db := rawDB(t, path)
	for _, q := range []string{
		`UPDATE verdicts SET latency_ms = -0.0 WHERE id = (SELECT min(id) FROM verdicts)`,
		`UPDATE verdicts SET extra = X'00FF10' WHERE id = (SELECT max(id) FROM verdicts)`,
		`UPDATE items SET fields = X'' WHERE idx = 8`,
		`UPDATE items SET fields = '' WHERE idx = 9`,
		`UPDATE verdicts SET confidence = 1e308 * 10 WHERE id = (SELECT min(id) + 1 FROM verdicts)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	return path
}
