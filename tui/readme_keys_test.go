package tui

import (
	"flag"
	"os"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// keysTable is the README's table of keys, made from the screens' key
// maps: the README cannot offer a key the screen does not handle.
func keysTable() string {
	w := &workspace{}
	screens := []struct {
		name string
		s    screen
	}{
		{"Review screen", &reviewScreen{workspace: w, keys: defaultReviewKeys()}},
		{"List screen (`L`)", &listScreen{workspace: w, keys: defaultListKeys()}},
		{"Statistics screen (`s`)", &statsScreen{workspace: w, keys: defaultStatsKeys()}},
		{"Comparison screen (`C`: a variant made with `E` beside its judge)", &compareScreen{workspace: w, keys: defaultCompareKeys()}},
	}
	var b strings.Builder
	row := func(k key.Binding) {
		keys := []string{k.Help().Key}
		if len(keys[0]) > 1 {
			keys = strings.Split(keys[0], "/")
		}
		for i, s := range keys {
			keys[i] = "`" + s + "`"
		}
		desc := strings.NewReplacer("|", "\\|", "<", "&lt;", ">", "&gt;").Replace(k.Help().Desc)
		b.WriteString("| " + strings.Join(keys, " ") + " | " + desc + " |\n")
	}
	for _, sc := range screens {
		b.WriteString("\n**" + sc.name + "**\n\n| key | does |\n|---|---|\n")
		for _, g := range sc.s.FullHelp() {
			for _, k := range g {
				row(k)
			}
		}
	}
	b.WriteString("\n**Everywhere** (in a prompt or dialog, `esc` closes it and `ctrl+c` is the only quit)\n\n| key | does |\n|---|---|\n")
	for _, k := range defaultAppKeys().all() {
		row(k)
	}
	return b.String()
}

const (
	keysBegin = "<!-- keys: made from the key maps; go test ./tui -run TestReadmeKeys -update rewrites it -->\n"
	keysEnd   = "<!-- /keys -->"
)

// The README's keys table is the key maps' (rewritten with -update).
func TestReadmeKeys(t *testing.T) {
	path := "../README.md"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	a := strings.Index(readme, keysBegin)
	b := strings.Index(readme, keysEnd)
	if a < 0 || b < a {
		t.Fatalf("README.md has no keys table between %q and %q", strings.TrimSpace(keysBegin), keysEnd)
	}
	want := keysTable()
	got := readme[a+len(keysBegin) : b]
	if got == want {
		return
	}
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(path, []byte(readme[:a+len(keysBegin)]+want+readme[b:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's keys table differs from the key maps; run go test ./tui -run TestReadmeKeys -update.\nwant:\n%s", want)
}
