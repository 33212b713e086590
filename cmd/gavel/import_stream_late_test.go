package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gavel-dev/gavel/sessions/dataset"
)

// lateRows is a JSONL file of n judged rows (a verdict and a human
// column, a rubric, a segment), longer than the stream's first page and
// chunk, as lines.
func lateRows(n int) []string {
	long := strings.Repeat("thinking it over ", 150)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"id":"r%05d","question":"q%d \"x\"\n\u00e9","answer":"%d","prediction":"%d %s","category":"c%d","criteria":["right?"],"judge_verdict":%t,"human_label":"%s"}`+"\n",
			i, i, i%3, i%2, long[:i%3*len(long)/2], i%4, i%3 == 0, []string{"yes", "no"}[i%2])
	}
	return lines
}

// A new session's import writes its items while the file is still parsed
// (sessions.BuildStreamSessionThen); what shows only at the end of the
// parse (a bad row near the end, a duplicate id, which the items' unique
// ids may meet first) still stops it with the message reading the file
// gives, as before anything was written, and leaves no session and no
// temporary file beside it. A --scale naming no column of a file that
// is also bad gives the file's error, as when the file was read first.
func TestImportStreamLateErrors(t *testing.T) {
	lines := lateRows(9000)
	with := func(k int, row string) string {
		l := slices.Clone(lines)
		l[k] = row
		return strings.Join(l, "")
	}
	last := len(lines) - 1
	cases := []struct {
		name string
		data string
		args []string
	}{
		{"a bad row at the end", with(last, `{"id":"x","prediction":`+"\n"), nil},
		{"an empty id at the end", with(last, `{"id":"","question":"q","answer":"1","prediction":"1"}`+"\n"), nil},
		{"the first id again at the end", with(last, lines[0]), nil},
		{"an id again in the first page", with(3, lines[2]), nil},
		{"a bad row and a --scale naming no column", with(last, "[1]\n"), []string{"--scale", "nothing=binary"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data := writeFile(t, dir, "judged.jsonl", c.data)
			if len(c.data) < 5<<20 {
				t.Fatalf("the file is %d bytes: make it longer than a stream chunk", len(c.data))
			}
			_, lerr := dataset.Load(data, dataset.Options{})
			if lerr == nil {
				t.Fatal("Load accepts the file")
			}
			session := filepath.Join(dir, "s.gavel")
			code, _, errs := run(t, append([]string{"import", data, "--session", session}, c.args...)...)
			if code == 0 || !strings.Contains(errs, lerr.Error()) {
				t.Fatalf("exit %d: %s\nwant the error %s", code, errs, lerr)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("the folder holds %v: the failed import left files", names)
			}
		})
	}
}

// The session a new import writes while the file is still parsed holds
// every row of every table the session written from the file read whole
// (--skip-bad reads it whole) holds, times aside; the summaries and the
// refusals of a file read either way are the same.
func TestImportStreamWholeDump(t *testing.T) {
	t.Parallel() // long: beside the other long tests once the short ones are done
	dir := t.TempDir()
	data := writeFile(t, dir, "judged.jsonl", strings.Join(lateRows(9000), ""))
	cases := []struct {
		name string
		args []string
	}{
		{"plain", nil},
		{"a --scale", []string{"--scale", "human_label=nominal:yes,no,maybe"}},
		{"a --scale naming no column", []string{"--scale", "nothing=binary"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			streamed, whole := filepath.Join(dir, fmt.Sprintf("s%d.gavel", i)), filepath.Join(dir, fmt.Sprintf("w%d.gavel", i))
			code1, out1, errs1 := run(t, append([]string{"import", data, "--session", streamed}, c.args...)...)
			code2, out2, errs2 := run(t, append([]string{"import", data, "--session", whole, "--skip-bad"}, c.args...)...)
			if code1 != code2 || strings.ReplaceAll(out1, streamed, "S") != strings.ReplaceAll(out2, whole, "S") ||
				strings.ReplaceAll(errs1, streamed, "S") != strings.ReplaceAll(errs2, whole, "S") {
				t.Fatalf("streamed: exit %d\n%s%s\nwhole: exit %d\n%s%s", code1, out1, errs1, code2, out2, errs2)
			}
			if code1 != 0 {
				return
			}
			a, b := sessionRows(t, streamed), sessionRows(t, whole)
			if len(a) != len(b) {
				t.Fatalf("%d rows streamed, %d read whole", len(a), len(b))
			}
			for k := range a {
				if a[k] != b[k] {
					t.Fatalf("row %d differs:\nstream %.300s\nwhole  %.300s", k, a[k], b[k])
				}
			}
		})
	}
}

// sessionRows is every row of every table of the session at path, the
// schema's text first, with the columns that hold times left out.
func sessionRows(t *testing.T, path string) []string {
	t.Helper()
	out := tableRows(t, path, `SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name`)
	for _, table := range tableRows(t, path, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`) {
		name := strings.TrimSuffix(strings.TrimPrefix(table, `[]interface {}{"`), `"}`)
		var keep, order []string
		for _, col := range tableRows(t, path, fmt.Sprintf(`SELECT name FROM pragma_table_info(%q) ORDER BY cid`, name)) {
			c := strings.TrimSuffix(strings.TrimPrefix(col, `[]interface {}{"`), `"}`)
			order = append(order, fmt.Sprintf("%q", c))
			if c != "at" && !strings.HasSuffix(c, "_at") {
				keep = append(keep, fmt.Sprintf("%q", c))
			}
		}
		for _, r := range tableRows(t, path, fmt.Sprintf(`SELECT %s FROM %q ORDER BY %s`, strings.Join(keep, ", "), name, strings.Join(order, ", "))) {
			out = append(out, name+": "+r)
		}
	}
	return out
}
