package match

import (
	"reflect"
	"testing"
)

func TestNormText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"The Eiffel Tower!", "eiffel tower"},
		{"  A   cat,  an owl ", "cat owl"},
		{"forty-two", "42"},
		{"Forty Two", "42"},
		{"42.0", "42"},
		{"1,000", "1000"},
		{"1,000,000.50", "1000000.5"},
		{"1,2", "1 2"},
		{"one thousand two hundred and five", "1205"},
		{"a hundred", "100"},
		{"300 million", "300000000"},
		{"one two", "1 2"},
		{"thousand", "1000"},
		{"0 thousand", "0"},
		{"0 a trillion", "0"},
		{"thousand thousand", "1000 1000"},
		{"minus minus 5", "minus -5"},
		{"minus thousand", "-1000"},
		{"minus seven", "-7"},
		{"-3.5", "-3.5"},
		{"−3", "-3"},
		{"2014-10-06", "2014 10 6"},
		{"covid-19", "covid 19"},
		{".5", "0.5"},
		{"10%", "10 percent"},
		{"10 per cent", "10 percent"},
		{"ten percent", "10 percent"},
		{"R&D", "r and d"},
		{"can't", "cant"},
		{"person’s", "persons"},
		{"N/A", "na"},
		{"n/a.", "na"},
		{"September", "sep"},
		{"Sept.", "sep"},
		{"June 1st", "jun 1 st"},
		{`\text{Paris}`, "paris"},
		{"Tiếng Việt", "tiếng việt"},
		{"ÉCOLE", "école"},
		{"", ""},
		{"...", ""},
	}
	for _, tc := range tests {
		if got := normText(tc.in); got != tc.want {
			t.Errorf("normText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNumberTokens(t *testing.T) {
	tests := []struct {
		in       string
		num      float64
		decimals int
	}{
		{"42", 42, 0},
		{"2.9166", 2.9166, 4},
		{"-0", 0, 0},
		{"nineteen hundred", 1900, 0},
		{"twenty", 20, 0},
		{"1.5 billion", 1.5e9, 0},
	}
	for _, tc := range tests {
		ts := tokens(tc.in)
		if len(ts) != 1 || !ts[0].isNum || ts[0].num != tc.num || ts[0].decimals != tc.decimals {
			t.Errorf("tokens(%q) = %+v, want one number %v with %d decimals", tc.in, ts, tc.num, tc.decimals)
		}
	}
}

func TestParseList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"['Jun', 'Aug']", []string{"Jun", "Aug"}, true},
		{`["Jan","Feb"]`, []string{"Jan", "Feb"}, true},
		{"[1500, 8000]", []string{"1500", "8000"}, true},
		{"[]", []string{}, true},
		{`["Singapore-Cambridge GCE 'A' Level", 'International Baccalaureate (IB) Diploma']`,
			[]string{"Singapore-Cambridge GCE 'A' Level", "International Baccalaureate (IB) Diploma"}, true},
		{"['Men's health', 'Women']", []string{"Men's health", "Women"}, true},
		{`["say \"hi\"", "x"]`, []string{`say "hi"`, "x"}, true},
		{"  ['a']  ", []string{"a"}, true},
		{"['unclosed", []string{}, false},
		{"June", nil, false},
		{"[", nil, false},
	}
	for _, tc := range tests {
		got, ok := parseList(tc.in)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("parseList(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOptionLetters(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"(B)", "B"},
		{"b", "B"},
		{"Option C", "C"},
		{"choice (D)", "D"},
		{"[E]", "E"},
		{`\text{(F)}`, "F"},
		{"(A) or (B)", "AB"},
		{"B) 12/25/1937", "B"},
		{"B. 12/25/1937", "B"},
		{"A dog", ""},
		{"I think so", ""},
		{"12/25/1937", ""},
	}
	for _, tc := range tests {
		if got := string(optionLetters(tc.in)); got != tc.want {
			t.Errorf("optionLetters(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuestionOptionsParse(t *testing.T) {
	few := "Q: first?\nOptions:\n(A) old\n(B) older\nA: So the answer is (A).\n\nQ: second?\nOptions:\n(A) new\n(B) newer\nA:"
	got := questionOptions(few)
	want := map[byte]string{'A': "new", 'B': "newer"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("questionOptions = %q, want %q (the last question's options)", got, want)
	}
	if got := questionOptions("What is 2+2?"); len(got) != 0 {
		t.Errorf("questionOptions without options = %q, want none", got)
	}
}

func TestCountPhrase(t *testing.T) {
	tests := []struct {
		hay, needle string
		want        int
	}{
		{"x x x", "x x", 1},
		{"x x x x", "x x", 2},
		{"p q p q p q", "p q p q", 1},
		{"p q p r p q p r", "p q p r", 2},
		{"jun and aug", "aug", 1},
		{"june", "jun", 1},
		{"juneau", "jun", 0},
		{"", "x", 0},
		{"x", "", 0},
	}
	for _, tc := range tests {
		if got := countPhrase(tokens(tc.hay), tokens(tc.needle)); got != tc.want {
			t.Errorf("countPhrase(%q, %q) = %d, want %d", tc.hay, tc.needle, got, tc.want)
		}
	}
}

// naiveCount is the obvious quadratic countPhrase, to check the fast one.
func naiveCount(hay, needle []tok) int {
	if len(needle) == 0 {
		return 0
	}
	n := 0
	for i := 0; i+len(needle) <= len(hay); {
		ok := true
		for k := range needle {
			if hay[i+k].text != needle[k].text {
				ok = false
				break
			}
		}
		if ok {
			n++
			i += len(needle)
		} else {
			i++
		}
	}
	return n
}

func FuzzCountPhrase(f *testing.F) {
	f.Add("p q p r p q p r", "p q p r")
	f.Add("x x x x x", "x x")
	f.Fuzz(func(t *testing.T, hay, needle string) {
		h, n := tokens(hay), tokens(needle)
		if got, want := countPhrase(h, n), naiveCount(h, n); got != want {
			t.Fatalf("countPhrase(%q, %q) = %d, naive %d", hay, needle, got, want)
		}
	})
}
