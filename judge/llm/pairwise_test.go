package llm

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

func pairItem(id string) judge.Item {
	return judge.Item{
		ID:        id,
		Question:  "Name the capital of France in one word.",
		ResponseA: "Paris",
		ResponseB: "The capital of France is Lyon, a city famous for its food.",
	}
}

func TestPairwiseMessages(t *testing.T) {
	d := pairwiseJudge()
	withGold := pairItem("1")
	withGold.Gold = "Paris"
	tests := []struct {
		name      string
		task      judge.Task
		first     string // the text in the A slot
		second    string
		reference bool
	}{
		{"original", judge.Task{Item: pairItem("1")}, "Paris", "The capital of France is Lyon", false},
		{"swapped", judge.Task{Item: pairItem("1"), Swapped: true}, "The capital of France is Lyon", "Paris", false},
		{"with a reference", judge.Task{Item: withGold}, "Paris", "The capital of France is Lyon", true},
		{"swapped with a reference", judge.Task{Item: withGold, Swapped: true}, "The capital of France is Lyon", "Paris", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, err := d.messages(tc.task, Config{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
				t.Fatalf("messages %+v", msgs)
			}
			if !strings.Contains(msgs[0].Content, "[[A]]") || !strings.Contains(msgs[0].Content, "Length") {
				t.Errorf("system message %q", msgs[0].Content)
			}
			u := msgs[1].Content
			if !strings.Contains(u, "[Response A]\n"+tc.first) || !strings.Contains(u, "[Response B]\n"+tc.second) {
				t.Errorf("user message does not show %q in A and %q in B:\n%s", tc.first, tc.second, u)
			}
			if !strings.HasPrefix(u, "[User instruction]\nName the capital of France in one word.\n[End of user instruction]\n\n") {
				t.Errorf("user message starts %q", clip(u, 80))
			}
			if got := strings.Contains(u, "[Reference answer]\nParis\n[End of reference answer]\n\n[Response A]"); got != tc.reference {
				t.Errorf("reference block present %v, want %v:\n%s", got, tc.reference, u)
			}
			if strings.Contains(u, "\n\n\n") || strings.Contains(u, "{") {
				t.Errorf("user message reads badly:\n%s", u)
			}
		})
	}
}

func TestPairwiseCatalogEntry(t *testing.T) {
	cat := NewCatalog()
	e, err := cat.Entry("pairwise")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.Inputs, []string{"question", "response_a", "response_b"}) || !slices.Equal(e.Optional, []string{"gold"}) {
		t.Errorf("inputs %v, optional %v", e.Inputs, e.Optional)
	}
	if len(e.Dimensions) != 1 || e.Dimensions[0].Name != "preference" || e.Dimensions[0].Scale != judge.Pairwise {
		t.Errorf("dimensions %+v", e.Dimensions)
	}
	p, _ := cat.Prompt("pairwise")
	for _, want := range []string{"[system]\nYou are an impartial judge.", "[user]\n[User instruction]\n{question}", "{response_a}", "{response_b}", "{gold}", "only when the item has a gold answer"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
}

// A fair model prefers the response that is right, wherever it stands; a
// position-biased one always says A. Both orders of each pair are judged
// and every verdict comes back in the original A/B terms.
func TestPairwiseEndToEndBothOrders(t *testing.T) {
	type model struct {
		name          string
		answer        func(user string) string
		orig, swapped float64
	}
	fair := func(user string) string {
		a := between(user, "[Response A]\n", "\n[End of response A]")
		if a == "Paris" {
			return "A answers in one word, as asked, and correctly.\n\n[[A]]"
		}
		return "<think>A is long and wrong.</think>B answers correctly in one word.\n**Final verdict: [[B]]**"
	}
	biased := func(string) string { return "The first response is better.\n[[A]]" }
	tie := func(string) string { return "Both fine.\n[[C]]" }
	for _, m := range []model{
		{"fair", fair, judge.PreferA, judge.PreferA},
		{"biased", biased, judge.PreferA, judge.PreferB},
		{"tie", tie, judge.PreferTie, judge.PreferTie},
	} {
		t.Run(m.name, func(t *testing.T) {
			fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
				writeCompletion(w, req.Model, completion{content: m.answer(req.Messages[len(req.Messages)-1].Content)})
			})
			j := mustJudge(t, "pairwise", testConfig(fs))
			it := pairItem("p1")
			tasks := judge.TasksFor(j.Info(), it, true)
			if len(tasks) != 2 || tasks[0].Swapped || !tasks[1].Swapped {
				t.Fatalf("tasks %+v", tasks)
			}
			vs := runAll(t, context.Background(), j, tasks, 2)
			if len(vs) != 2 {
				t.Fatalf("%d verdicts", len(vs))
			}
			for _, v := range vs {
				want := m.orig
				if v.Swapped {
					want = m.swapped
				}
				if !v.OK() || v.Values["preference"] != want || v.ItemID != "p1" {
					t.Errorf("swapped=%v: %s %v %q, want preference %v", v.Swapped, v.Status, v.Values, v.Error, want)
				}
				if v.Reason == "" || strings.Contains(v.Reason, "[[") {
					t.Errorf("reason %q", v.Reason)
				}
			}
			if vs[0].Swapped == vs[1].Swapped {
				t.Errorf("both verdicts swapped=%v", vs[0].Swapped)
			}
			// The swapped request showed response B first.
			var sawSwapped bool
			for _, req := range fs.reqs {
				u := req.Messages[1].Content
				if strings.Contains(u, "[Response A]\nThe capital of France is Lyon") && strings.Contains(u, "[Response B]\nParis\n") {
					sawSwapped = true
				}
			}
			if !sawSwapped || len(fs.reqs) != 2 {
				t.Errorf("%d requests; none showed B first", len(fs.reqs))
			}
			assertNoKey(t, vs...)
		})
	}
}

func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(after, to)
	return in
}

// An item without both responses is not sent: skipped, in either order.
func TestPairwiseSkipsItemsWithoutAPair(t *testing.T) {
	fs := newFakeServer(t, answerWith(completion{content: "[[A]]"}))
	j := mustJudge(t, "pairwise", testConfig(fs))
	noB := pairItem("no-b")
	noB.ResponseB = " "
	noA := pairItem("no-a")
	noA.ResponseA = ""
	plain := testItem("plain")
	for _, tc := range []struct {
		item judge.Item
		want string
	}{
		{noB, "no response B"},
		{noA, "no response A"},
		{plain, "no response A and response B"},
	} {
		for _, swapped := range []bool{false, true} {
			v := j.Judge(context.Background(), judge.Task{Item: tc.item, Swapped: swapped})
			if v.Status != judge.StatusParseError || !Skipped(v) || !strings.HasPrefix(v.Error, "skipped: the item has "+tc.want+", which the pairwise prompt needs") {
				t.Errorf("%s (swapped %v): %s %q", tc.item.ID, swapped, v.Status, v.Error)
			}
			if v.Swapped != swapped {
				t.Errorf("%s: verdict swapped %v for a task swapped %v", tc.item.ID, v.Swapped, swapped)
			}
		}
	}
	if n := fs.hits.Load(); n != 0 {
		t.Errorf("%d requests for items without a pair", n)
	}
	// Without a gold answer the item is still judged: the reference is optional.
	if v := j.Judge(context.Background(), judge.Task{Item: pairItem("ok")}); !v.OK() {
		t.Errorf("an item without gold: %s %q", v.Status, v.Error)
	}
}

// With --samples, a split between A and B is a tie, and the samples kept
// in Extra are in the original terms too.
func TestPairwiseSamplesSplitIsATie(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		out := "[[A]]"
		if n%2 == 1 {
			out = "[[B]]"
		}
		writeCompletion(w, req.Model, completion{content: out})
	})
	cfg := testConfig(fs)
	cfg.Samples = 2
	cfg.Temperature = 0.7
	j := mustJudge(t, "pairwise", cfg)
	v := j.Judge(context.Background(), judge.Task{Item: pairItem("1"), Swapped: true})
	if !v.OK() || v.Values["preference"] != judge.PreferTie || !v.Swapped {
		t.Fatalf("verdict %s %v swapped %v", v.Status, v.Values, v.Swapped)
	}
	samples, _ := v.Extra[ExtraSamples].([]any)
	var got []float64
	for _, s := range samples {
		vals := s.(map[string]any)["values"].(map[string]any)
		got = append(got, vals["preference"].(float64))
	}
	slices.Sort(got)
	if !slices.Equal(got, []float64{judge.PreferA, judge.PreferB}) {
		t.Errorf("samples %v", got)
	}
	// Unswapped per sample: the sample that said A (shown first: B) is B.
	first := samples[0].(map[string]any)
	if raw, _ := first["raw"].(string); raw == "[[A]]" && first["values"].(map[string]any)["preference"] != judge.PreferB {
		t.Errorf("sample %v not mapped back", first)
	}
}

// Text a judge wrote elsewhere in the swapped order reads as a live
// swapped answer does.
func TestParseSwapped(t *testing.T) {
	cat := NewCatalog()
	for _, tc := range []struct {
		raw     string
		swapped bool
		want    float64
	}{
		{"[[A]]", false, judge.PreferA},
		{"[[A]]", true, judge.PreferB},
		{"[[B]]", true, judge.PreferA},
		{"[[C]]", true, judge.PreferTie},
	} {
		parse := cat.Parse
		if tc.swapped {
			parse = cat.ParseSwapped
		}
		v, err := parse("pairwise", tc.raw)
		if err != nil || !v.OK() || v.Values["preference"] != tc.want || v.Swapped != tc.swapped {
			t.Errorf("%q swapped=%v: %+v, %v", tc.raw, tc.swapped, v, err)
		}
	}
	v, err := cat.ParseSwapped("pairwise", "no idea")
	if err != nil || v.Status != judge.StatusParseError || !v.Swapped || v.Raw != "no idea" {
		t.Errorf("unreadable: %+v, %v", v, err)
	}
	if _, err := cat.ParseSwapped("nope", "[[A]]"); err == nil {
		t.Error("an unknown judge parses")
	}
}
