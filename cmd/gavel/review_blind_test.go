package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gavel-dev/gavel/internal/pgtest"
	"github.com/gavel-dev/gavel/sessions"
	"github.com/gavel-dev/gavel/sessions/pg"
	"github.com/gavel-dev/gavel/sessions/stats"
	"github.com/gavel-dev/gavel/tui"
)

// screenOf runs the review screen of argv once (120x40, its first
// commands run) and returns what it shows and the model.
func screenOf(t *testing.T, argv ...string) (string, *tui.Model) {
	t.Helper()
	e, _, errb, _ := testEnv(t)
	var view string
	var model *tui.Model
	e.runTUI = func(_ context.Context, m tea.Model) (tea.Model, error) {
		m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m = runCommand(t, m, m.Init(), 0)
		view = ansi.Strip(m.View().Content)
		model = m.(*tui.Model)
		return m, nil
	}
	if code := execute(context.Background(), e, argv); code != 0 {
		t.Fatalf("%v: exit %d: %s", argv, code, errb)
	}
	return view, model
}

// A session file whose queue is blind: ana's review shows nothing of
// cleo's label on the item they both have, and says "blind queue"; the
// adjudicator sees it; lifting the blindness (--replace --blind=false)
// shows it to ana too.
func TestReviewFileBlindQueue(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "ev.jsonl", `{"id":"a","question":"2+2?","gold":"4","prediction":"4"}`+"\n"+
		`{"id":"b","question":"3+3?","gold":"6","prediction":"6"}`+"\n")
	session := filepath.Join(dir, "ev.gavel")
	if code, _, errs := run(t, "run", data, "--session", session); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "label", session, "a", "NO", "--annotator", "cleo"); code != 0 {
		t.Fatalf("label: exit %d: %s", code, errs)
	}
	if code, _, errs := runAssignCmd(t, "assign", session, "--annotators", "ana,cleo", "--overlap", "1", "--seed", "1", "--blind"); code != 0 {
		t.Fatalf("assign: exit %d: %s", code, errs)
	}
	view, _ := screenOf(t, "review", data, "--session", session, "--annotator", "ana")
	if !strings.Contains(view, "2+2?") || !strings.Contains(view, "blind queue") {
		t.Fatalf("ana's screen is not on item a in a blind queue:\n%s", view)
	}
	if strings.Contains(view, "cleo") || strings.Contains(view, "human ") {
		t.Errorf("ana's screen shows cleo's label in a blind queue:\n%s", view)
	}
	view, _ = screenOf(t, "review", data, "--session", session, "--annotator", "lead", "--adjudicate")
	if strings.Contains(view, "blind queue") {
		t.Errorf("the adjudicator's header says blind queue:\n%s", view)
	}
	// Nothing to adjudicate yet (one label): f to every item, where a is.
	if code, _, errs := run(t, "label", session, "a", "YES", "--annotator", "ana"); code != 0 {
		t.Fatalf("label: exit %d: %s", code, errs)
	}
	view, _ = screenOf(t, "review", data, "--session", session, "--annotator", "lead", "--adjudicate")
	if !strings.Contains(view, "human cleo") || !strings.Contains(view, "human ana") {
		t.Errorf("the adjudicator does not see cleo's and ana's labels:\n%s", view)
	}
	if code, _, errs := runAssignCmd(t, "assign", session, "--annotators", "ana,cleo", "--overlap", "1", "--seed", "1", "--replace", "--blind=false"); code != 0 {
		t.Fatalf("assign --blind=false: exit %d: %s", code, errs)
	}
	view, _ = screenOf(t, "review", data, "--session", session, "--annotator", "bo")
	if !strings.Contains(view, "human cleo") || strings.Contains(view, "blind queue") {
		t.Errorf("after lifting the blindness bo does not see cleo's label:\n%s", view)
	}
}

// A team session in PostgreSQL whose queue is blind: bo's review reads
// nothing of ana's label on the item both labelled, and the feed tells the screen only that the
// others' labels changed (the statistics follow them), never what they
// are; outside a blind queue it carries them.
func TestReviewTeamBlindQueue(t *testing.T) {
	url, st := teamURL(t, pgtest.Shared(t))
	ctx := context.Background()
	if _, err := st.Assign(ctx, sessions.AssignOptions{Annotators: []string{"ana", "bo"}, Overlap: 1, Seed: 7, Blind: true}); err != nil {
		t.Fatal(err)
	}
	for _, who := range []struct {
		name  string
		value float64
	}{{"ana", 0}, {"bo", 1}} { // bo has labelled q1 too: still hidden
		if _, err := st.RecordAs(ctx, who.name, []sessions.Action{{Kind: sessions.KindLabel, ItemID: "q1", Dimension: "correct", Value: who.value, Via: "queue"}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	view, m := screenOf(t, "review", url, "--annotator", "bo")
	if !strings.Contains(view, "blind queue") || strings.Contains(view, "human ana") {
		t.Errorf("bo's screen in a blind queue:\n%s", view)
	}
	m = send(t, m, tea.KeyPressMsg{Code: 'f', Text: "f"}).(*tui.Model) // the filters: none compares people
	if v := ansi.Strip(m.View().Content); strings.Contains(v, "annotators disagree") || strings.Contains(v, "to adjudicate") {
		t.Errorf("a filter comparing people is offered in a blind queue:\n%s", v)
	}

	src, err := pg.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rv, rep, err := pg.OpenReview(ctx, src, "bo")
	if err != nil {
		t.Fatal(err)
	}
	defer rv.Store.Close()
	for _, hide := range []bool{true, false} {
		feed := &teamFeed{src: src, rep: rep, rv: rv, annotator: "bo", hideOthers: hide, queue: true}
		u, ok := feed.update(ctx, pg.Pulled{ActionsBy: map[string]int{"ana": 1}}, nil, false)
		if !ok || !u.OthersChanged {
			t.Fatalf("hide %v: update %+v, %v: the others' change is not said", hide, u, ok)
		}
		if hide && (len(u.Others) != 0 || len(u.OthersCantJudge) != 0) {
			t.Errorf("a blind queue's update carries %+v", u.Others)
		}
		if !hide && (len(u.Others) != 1 || u.Others[0].Annotator != "ana") {
			t.Errorf("outside a blind queue the update carries %+v, want ana's label", u.Others)
		}
	}
	// The adjudicator sees both labels.
	view, _ = screenOf(t, "review", url, "--annotator", "lead", "--adjudicate")
	if strings.Contains(view, "blind queue") || !strings.Contains(view, "human ana") || !strings.Contains(view, "human bo") {
		t.Errorf("the adjudicator's screen:\n%s", view)
	}
}

// The judge comparison of a review in a blind queue counts this person's
// labels only.
func TestOwnLabelsOnly(t *testing.T) {
	units := []stats.Unit{
		{ItemID: "a", Labels: []stats.Label{{Annotator: "cleo"}, {Annotator: "ana"}, {Annotator: "lead", Provenance: sessions.ViaAdjudication}}},
		{ItemID: "b", Labels: []stats.Label{{Annotator: "cleo"}}},
	}
	kept := units[0].Labels
	ownLabelsOnly(units, "ana")
	if len(units[0].Labels) != 1 || units[0].Labels[0].Annotator != "ana" || len(units[1].Labels) != 0 {
		t.Errorf("kept %+v", units)
	}
	if kept[0].Annotator != "cleo" {
		t.Error("the input's labels were overwritten")
	}
}
