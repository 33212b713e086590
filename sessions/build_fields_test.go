package sessions

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/judge"
	"github.com/gavel-dev/gavel/sessions/dataset"
)

// roundTripFiles are datasets of every shape the readers take, with rows
// whose members equal the columns in every way that matters: escapes,
// control characters, non-ASCII text, numbers (never elided), nested
// objects, a member that is "" while another holds the text, a member
// that equals another item column, Python's \u escapes.
var roundTripFiles = map[string]string{
	"rows.jsonl": `{"id": "a1", "question": "What is 2+2?\n\"quoted\" \\ tab\there", "answer": "4", "prediction": "four\u0001", "meta": {"question": "What is 2+2?"}, "n": 4, "category": "math"}
{"id":"a2","question":"café naïve “x”","answer":"","prediction":"","empty":"","copy":"café naïve “x”","category":"lang\u00e9"}
{"id":"a3","question":"Python wrote caf\u00e9 \ud83d\ude00 \u00C9","answer":4,"prediction":"4","tags":["4","x"],"nested":{"a":[1,{"b":"\""}]}}
{ "id" : "a4" , "question" : "spaced out" , "answer" : "ok" , "prediction" : "ok" , "z" : "" }
{"id":"a5","question":"slash \/ here","answer":"a\u2028b","prediction":"p","x":null,"y":true,"f":1.5e3}
`,
	"rows.csv": "id,question,answer,prediction,note\nc1,\"Why, \"\"really\"\"?\",yes,\"yes\nno\",\nc2,plain,,\"\",same\n",
	"rows.json": `[
  {"id": "j1", "question": "pretty\nprinted", "answer": "a", "prediction": "b", "question_copy": "pretty\nprinted"},
  {"id": "j2", "question": "", "answer": "", "prediction": "x", "extra": ""}
]`,
	"pairs.jsonl": `{"id":"p1","question":"which?","response_a":"left","response_b":"right","winner":"A"}
{"id":"p2","question":"which?","response_a":"same","response_b":"same","winner":"tie"}
`,
}

func TestFieldsRoundTripThroughTheSession(t *testing.T) {
	for name, text := range roundTripFiles {
		t.Run(name, func(t *testing.T) {
			ds, err := dataset.LoadBytes(name, []byte(text), dataset.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, build := range []bool{true, false} {
				path := sessionPath(t)
				info := DatasetInfo{Path: name, SHA256: ds.SHA256, Format: ds.Format, Mapping: ds.Mapping}
				if build {
					if err := BuildSession(path, info, ds.Items); err != nil {
						t.Fatal(err)
					}
				} else {
					s := openStore(t, path, "ann")
					if err := s.InitDataset(info, ds.Items); err != nil {
						t.Fatal(err)
					}
				}
				s := openStore(t, path, "reader")
				got, err := s.Items()
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(ds.Items) {
					t.Fatalf("%d items back, %d written", len(got), len(ds.Items))
				}
				for i := range got {
					if !bytes.Equal(got[i].Fields, ds.Items[i].Fields) {
						t.Errorf("build=%v item %s: fields\n got %s\nwant %s", build, got[i].ID, got[i].Fields, ds.Items[i].Fields)
					}
					if !reflect.DeepEqual(got[i], ds.Items[i]) {
						t.Errorf("build=%v item %s differs: %+v", build, got[i].ID, got[i])
					}
				}
				paged, err := s.ItemsAfter(-1, len(ds.Items)+1)
				if err != nil || !reflect.DeepEqual(paged, got) {
					t.Errorf("build=%v: ItemsAfter differs from Items: %v", build, err)
				}
				if c := DiffItems(got, ds.Items); len(c.Edited)+len(c.Added)+len(c.Removed) > 0 {
					t.Errorf("DiffItems sees a change: %+v", c)
				}
				s.Close()
			}
		})
	}
}

func TestFieldsAreStoredWithoutTheColumnsText(t *testing.T) {
	it := judge.Item{ID: "a1", Question: "What is \"it\"?\n", Gold: "4", Prediction: "long prediction text",
		Fields: []byte(`{"id":"a1","question":"What is \"it\"?\n","gold":"4","prediction":"long prediction text","e":"","k":"4x"}`)}
	stored := newElider(nil).fields(&it)
	if strings.Contains(stored, "long prediction") || strings.Contains(stored, "What is") {
		t.Fatalf("stored fields still hold the columns' text: %q", stored)
	}
	if !strings.HasPrefix(strings.TrimLeft(stored, fieldCodes), `{"id":"","question":"","gold":"","prediction":"","e":"","k":"4x"}`) {
		t.Fatalf("stored = %q", stored)
	}
	if back := restoreFields(stored, &it); !bytes.Equal(back, it.Fields) {
		t.Fatalf("restored %s", back)
	}
	// Python's default output (\u escapes past ASCII) is elided too.
	py := judge.Item{ID: "p1", Question: "café 😀 naïve\n", Gold: "x",
		Fields: []byte(`{"id": "p1", "question": "caf\u00e9 \ud83d\ude00 na\u00efve\n", "gold": "x"}`)}
	stored = newElider(nil).fields(&py)
	if strings.Contains(stored, "caf") {
		t.Fatalf("the Python-escaped question is still stored: %q", stored)
	}
	if back := restoreFields(stored, &py); !bytes.Equal(back, py.Fields) {
		t.Fatalf("restored %s", back)
	}
	// A member holding the item's segment of the same name is elided too.
	seg := judge.Item{ID: "s1", Question: "q", Segments: map[string]string{"category": "geography", "task": "t"},
		Fields: []byte(`{"id":"s1","category":"geography","task":"other","k\u0061y":"t"}`)}
	stored = newElider(nil).fields(&seg)
	if strings.Contains(stored, "geography") || !strings.Contains(stored, "other") {
		t.Fatalf("stored segments: %q", stored)
	}
	if back := restoreFields(stored, &seg); !bytes.Equal(back, seg.Fields) {
		t.Fatalf("restored %s", back)
	}
	// Rows stored whole (older sessions) read as they are.
	old := `{"question":"","x":1}`
	if back := restoreFields(old, &it); string(back) != old {
		t.Fatalf("an old row came back as %s", back)
	}
}

func TestEncodesToMatchesElideEncode(t *testing.T) {
	for i, s := range []string{"", "a", "\"", "\\", "\x00\x1f\x7f", "é “x” \u2028", "\b\f\n\r\t", strings.Repeat("ab\n", 50)} {
		enc := elideEncode(nil, s)
		if !encodesTo(s, enc) && s != "" {
			t.Errorf("%d: encodesTo(%q, %s) = false", i, s, enc)
		}
		if len(enc) != elideEncodedLen(s) {
			t.Errorf("%d: length %d, elideEncodedLen %d", i, len(enc), elideEncodedLen(s))
		}
		if encodesTo(s+"x", enc) || (len(s) > 0 && encodesTo(s[:len(s)-1], enc)) {
			t.Errorf("%d: encodesTo accepts another text", i)
		}
	}
}
