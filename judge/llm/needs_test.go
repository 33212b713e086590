package llm

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
)

// An item without a gold answer (or a prediction) is not sent: the judge
// gives a parse_error marked skipped and the server sees no request.
func TestJudgeSkipsItemsLackingWhatThePromptNeeds(t *testing.T) {
	fs := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, req chatRequest, n int) {
		writeCompletion(w, req.Model, completion{content: "reason: fine\nresult: YES"})
	})
	noGold := testItem("no-gold")
	noGold.Gold = "  "
	noPred := testItem("no-pred")
	noPred.Prediction = ""
	for _, name := range []string{"docqa", "quality", "bbh"} {
		t.Run(name, func(t *testing.T) {
			before := fs.hits.Load()
			j := mustJudge(t, name, testConfig(fs))
			for _, tc := range []struct {
				item judge.Item
				want string
			}{{noGold, "no gold answer"}, {noPred, "no prediction"}} {
				v := j.Judge(context.Background(), judge.Task{Item: tc.item})
				if v.Status != judge.StatusParseError || !Skipped(v) || !strings.HasPrefix(v.Error, "skipped: the item has "+tc.want+", which the "+name+" prompt needs") {
					t.Errorf("%s: verdict %s %q (skipped %v)", tc.item.ID, v.Status, v.Error, Skipped(v))
				}
				if v.ItemID != tc.item.ID {
					t.Errorf("item id %q", v.ItemID)
				}
			}
			if got := fs.hits.Load() - before; got != 0 {
				t.Errorf("%d requests for items lacking gold or prediction, want 0", got)
			}
		})
	}
	// A complete item is still sent.
	j := mustJudge(t, "docqa", testConfig(fs))
	if v := j.Judge(context.Background(), judge.Task{Item: testItem("ok")}); Skipped(v) || fs.hits.Load() != 1 {
		t.Errorf("complete item: %s %q, %d requests", v.Status, v.Error, fs.hits.Load())
	}
}
