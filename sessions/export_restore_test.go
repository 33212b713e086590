package sessions

import "testing"

func TestMayBeExported(t *testing.T) {
	for _, c := range []struct {
		row  string
		want bool
	}{
		{`{"id":"1","question":"q","fields":{"a":1}}`, true},
		{`{"id":"1","verdict:match:correct":1}`, true},
		{`{"id":"1","label:ann:correct":0}`, true},
		{`{"id":"1","note:ann":"x"}`, true},
		{`{"id":"1","question":"q","answer":"a","category":"x"}`, false},
		{`{"id":"1","text":"a field named fields is only a word here"}`, false},
	} {
		if got := mayBeExported([]byte(c.row)); got != c.want {
			t.Errorf("mayBeExported(%s) = %v, want %v", c.row, got, c.want)
		}
		// Never a false negative: a row exportFields accepts passes the
		// byte check.
		if _, ok := exportFields([]byte(c.row)); ok && !c.want {
			t.Errorf("exportFields accepts %s, which the byte check refused", c.row)
		}
	}
}
