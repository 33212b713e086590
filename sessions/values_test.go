package sessions

import (
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// Values are stored by scale: numbers for binary and ordinal dimensions,
// names for nominal and pairwise ones; every reader gives the codes back.
func TestValuesStoredByScale(t *testing.T) {
	s, path := newSession(t)
	grade := judge.Scale("nominal:CORRECT,INCORRECT,NOT_ATTEMPTED")
	info := judge.Info{Name: "grader", Model: "m", Dimensions: []judge.Dimension{
		{Name: "grade", Scale: grade},
		{Name: "preference", Scale: judge.PairwiseNoTie},
		{Name: "rating", Scale: judge.Scale("ordinal:1-10")},
	}}
	run, err := s.EnsureRun(info)
	if err != nil {
		t.Fatal(err)
	}
	v := judge.Verdict{ItemID: "q1", Status: judge.StatusOK, Values: map[string]float64{"grade": 2, "preference": judge.PreferB, "rating": 7}}
	sw := judge.Verdict{ItemID: "q1", Swapped: true, Status: judge.StatusOK, Values: map[string]float64{"grade": 0, "preference": judge.PreferA, "rating": 9}}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{v, sw}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{
		{Kind: KindLabel, ItemID: "q1", Dimension: "grade", Value: 1},
		{Kind: KindLabel, ItemID: "q1", Dimension: "preference", Value: judge.PreferA},
		{Kind: KindLabel, ItemID: "q1", Dimension: "rating", Value: 10},
	}); err != nil {
		t.Fatal(err)
	}

	db := rawDB(t, path)
	stored := map[string]any{}
	rows, err := db.Query(`SELECT v.swapped || ':' || vv.dimension, vv.value FROM verdict_values vv JOIN verdicts v ON v.id = vv.verdict_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		var x any
		if err := rows.Scan(&k, &x); err != nil {
			t.Fatal(err)
		}
		stored[k] = x
	}
	rows.Close()
	for k, want := range map[string]any{"0:grade": "NOT_ATTEMPTED", "0:preference": "B", "0:rating": 7.0, "1:grade": "CORRECT", "1:preference": "A", "1:rating": 9.0} {
		if stored[k] != want {
			t.Errorf("verdict value %s stored as %#v, want %#v", k, stored[k], want)
		}
	}
	var label any
	if err := db.QueryRow(`SELECT value FROM current_labels WHERE dimension = 'grade'`).Scan(&label); err != nil || label != "INCORRECT" {
		t.Errorf("label stored as %#v (%v), want \"INCORRECT\"", label, err)
	}

	got, err := s.Verdicts(run.ID)
	if err != nil || len(got) != 1 || got[0].Swapped || got[0].Values["grade"] != 2 || got[0].Values["preference"] != judge.PreferB || got[0].Values["rating"] != 7 {
		t.Errorf("Verdicts = %+v, %v; want the original order only, codes read back", got, err)
	}
	swapped, err := s.SwappedVerdicts(run.ID)
	if err != nil || len(swapped) != 1 || !swapped[0].Swapped || swapped[0].Values["preference"] != judge.PreferA {
		t.Errorf("SwappedVerdicts = %+v, %v", swapped, err)
	}
	hist, err := s.VerdictHistory(run.ID, "q1")
	if err != nil || len(hist) != 2 {
		t.Errorf("history = %+v, %v; want both orders", hist, err)
	}
	labels, err := s.LabelsExcept("nobody")
	if err != nil {
		t.Fatal(err)
	}
	byDim := map[string]float64{}
	for _, l := range labels {
		byDim[l.Dimension] = l.Value
	}
	if byDim["grade"] != 1 || byDim["preference"] != judge.PreferA || byDim["rating"] != 10 {
		t.Errorf("labels read back as %v", byDim)
	}
	acts, err := s.Actions("")
	if err != nil || len(acts) != 3 || acts[0].Value != 1 {
		t.Errorf("actions read back as %+v, %v", acts, err)
	}
	in, err := s.StatsInput()
	if err != nil {
		t.Fatal(err)
	}
	var swappedSeen bool
	for _, u := range in.Units {
		for _, v := range u.Verdicts {
			swappedSeen = swappedSeen || v.Swapped
		}
	}
	if !swappedSeen {
		t.Error("the statistics input lost the swapped verdict's order")
	}
}

// A dimension keeps one categorical scale per session: another judge that
// names other categories under the same dimension is refused, while the
// two pairwise scales share their names.
func TestDimensionScaleConflict(t *testing.T) {
	s, _ := newSession(t)
	dim := func(name string, sc judge.Scale) judge.Info {
		return judge.Info{Name: "j-" + string(sc), Dimensions: []judge.Dimension{{Name: name, Scale: sc}}}
	}
	if _, err := s.EnsureRun(dim("grade", "nominal:A,B")); err != nil {
		t.Fatal(err)
	}
	_, err := s.EnsureRun(dim("grade", "nominal:X,Y,Z"))
	if err == nil || !strings.Contains(err.Error(), `dimension "grade"`) || !strings.Contains(err.Error(), "another dimension name") {
		t.Errorf("conflicting scale: %v", err)
	}
	if _, err := s.EnsureRun(dim("preference", judge.Pairwise)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureRun(dim("preference", judge.PairwiseNoTie)); err != nil {
		t.Errorf("pairwise with and without tie share a dimension: %v", err)
	}
	if err := s.DeclareScales([]judge.Dimension{{Name: "grade", Scale: "nominal:A,B"}}); err != nil {
		t.Errorf("declaring the same scale again: %v", err)
	}
}

// Pairwise items keep their two responses.
func TestPairwiseItemsStored(t *testing.T) {
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	items := []judge.Item{{Index: 0, ID: "p1", Question: "Which?", ResponseA: "first", ResponseB: "second"}}
	if err := s.InitDataset(DatasetInfo{Path: "pairs.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	got, err := s.Items()
	if err != nil || len(got) != 1 || got[0].ResponseA != "first" || got[0].ResponseB != "second" || !got[0].Pairwise() {
		t.Errorf("items read back as %+v, %v", got, err)
	}
}

// An export writes a pair's responses, category names and the swapped
// order, and merging keeps the scales of dimensions only labels use.
func TestExportAndMergeKeepScales(t *testing.T) {
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	items := []judge.Item{{Index: 0, ID: "p1", Question: "Which?", ResponseA: "first", ResponseB: "second"}}
	if err := s.InitDataset(DatasetInfo{Path: "pairs.jsonl", SHA256: "x", Format: "jsonl"}, items); err != nil {
		t.Fatal(err)
	}
	run, err := s.EnsureRun(judge.Info{Name: "pairwise", Model: "m", Dimensions: []judge.Dimension{{Name: "preference", Scale: judge.Pairwise}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveVerdicts(run.ID, []judge.Verdict{
		{ItemID: "p1", Status: judge.StatusOK, Values: map[string]float64{"preference": judge.PreferA}},
		{ItemID: "p1", Swapped: true, Status: judge.StatusOK, Values: map[string]float64{"preference": judge.PreferTie}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeclareScales([]judge.Dimension{{Name: "grade", Scale: "nominal:good,bad"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record([]Action{{Kind: KindLabel, ItemID: "p1", Dimension: "preference", Value: judge.PreferB},
		{Kind: KindLabel, ItemID: "p1", Dimension: "grade", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sum, err := Export(s, &b, ExportOptions{Format: "jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"response_a":"first"`, `"response_b":"second"`, `"verdict:pairwise · m:preference":"A"`,
		`"verdict_swapped:pairwise · m:preference":"tie"`, `"verdict_swapped_status:pairwise · m":"ok"`,
		`"label:ann:preference":"B"`, `"label:ann:grade":"bad"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("export lacks %s:\n%s\ncolumns %v", want, b.String(), sum.Columns)
		}
	}
	s.Close()

	out := sessionPath(t)
	if _, err := Merge(out, []string{path}); err != nil {
		t.Fatal(err)
	}
	m := openStore(t, out, "ann")
	labels, err := m.LabelsExcept("nobody")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, l := range labels {
		got[l.Dimension] = l.Value
	}
	if got["grade"] != 1 || got["preference"] != judge.PreferB {
		t.Errorf("merged labels %v", got)
	}
	sw, err := m.SwappedVerdicts(1)
	if err != nil || len(sw) != 1 || sw[0].Values["preference"] != judge.PreferTie {
		t.Errorf("merged swapped verdicts %+v, %v", sw, err)
	}
}

// A v2 session's verdicts and labels read the same after the upgrade to
// v3, and its verdicts count as the original order.
func TestUpgradeFromV2(t *testing.T) {
	saved := migrations
	t.Cleanup(func() { migrations, schemaVersion = saved, len(saved) })
	migrations, schemaVersion = saved[:2], 2
	path := sessionPath(t)
	s := openStore(t, path, "ann")
	populateV2(t, s)
	s.Close()

	migrations, schemaVersion = saved, len(saved)
	s = openStore(t, path, "ann")
	if got := pragmaInt(t, rawDB(t, path), "user_version"); got != int64(len(saved)) {
		t.Fatalf("user_version = %d after the upgrade", got)
	}
	vs, err := s.Verdicts(1)
	if err != nil || len(vs) != 2 || vs[1].Values["correct"] != 1 || vs[0].Swapped {
		t.Errorf("verdicts after the upgrade: %+v, %v", vs, err)
	}
	labels, err := s.LabelsExcept("nobody")
	if err != nil || len(labels) != 1 || labels[0].Value != 0 {
		t.Errorf("labels after the upgrade: %+v, %v", labels, err)
	}
	var n int
	if err := rawDB(t, path).QueryRow(`SELECT count(*) FROM current_verdict_values WHERE swapped = 0`).Scan(&n); err != nil || n != 2 {
		t.Errorf("current_verdict_values after the upgrade: %d rows, %v", n, err)
	}
}

// populateV2 writes through SQL what a v2 Gavel wrote: numbers only.
func populateV2(t *testing.T, s *Store) {
	t.Helper()
	for _, q := range []string{
		`INSERT INTO dataset VALUES (1, 'd.jsonl', 'x', 'jsonl', 2, '2025-01-01T00:00:00.000Z')`,
		`INSERT INTO items (idx, item_id, question, gold, prediction) VALUES (0, 'q1', 'a?', 'b', 'c'), (1, 'q2', 'd?', 'e', 'f')`,
		`INSERT INTO runs (id, key, judge, model, params, per_criterion, description, created_at) VALUES (1, 'k', 'docqa', 'm', '{}', 0, '', '2025-01-01T00:00:00.000Z')`,
		`INSERT INTO run_dimensions VALUES (1, 0, 'correct', 'binary', '')`,
		`INSERT INTO verdicts (id, run_id, item_id, criterion, status, reason, error, raw, model, prompt_tokens, completion_tokens, latency_ms, created_at)
		 VALUES (1, 1, 'q1', 0, 'ok', '', '', '', 'm', 0, 0, 0, '2025-01-01T00:00:00.000Z'),
		        (2, 1, 'q2', 0, 'ok', '', '', '', 'm', 0, 0, 0, '2025-01-01T00:00:00.000Z')`,
		`INSERT INTO verdict_values VALUES (1, 'correct', 0), (2, 'correct', 1)`,
		`INSERT INTO actions (group_id, kind, item_id, criterion, dimension, value, note, via, annotator, at) VALUES (1, 'label', 'q1', 0, 'correct', 0, '', 'order', 'old', '2025-01-01T00:00:00.000Z')`,
	} {
		if _, err := s.w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}
