package stats

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/report.golden.json")

// TestReportGolden pins the JSON shape of a Report (field names, order,
// null and reason conventions) on the hand-worked fixture, so that a change
// to `gavel stats --format json` output is always a visible diff. The file
// doubles as the documented example of the shape. Rewrite it with
// go test -run TestReportGolden -update.
func TestReportGolden(t *testing.T) {
	r := Compute(fixture(), Options{Seed: 1, Resamples: 200})
	got, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "report.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if err := sameJSON(got, want); err != nil {
		t.Errorf("report JSON differs from %s: %v; if the change is intended, run with -update and say so in the commit", path, err)
	}
}

// sameJSON compares two JSON texts token by token: keys, order, strings,
// nulls and booleans exactly, numbers to 1e-9 (so that a platform whose
// compiler fuses multiply-adds does not fail on the last bit).
func sameJSON(a, b []byte) error {
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	for i := 0; ; i++ {
		ta, errA := da.Token()
		tb, errB := db.Token()
		if errA == io.EOF && errB == io.EOF {
			return nil
		}
		if errA != nil || errB != nil {
			return fmt.Errorf("token %d: %v / %v", i, errA, errB)
		}
		na, okA := ta.(json.Number)
		nb, okB := tb.(json.Number)
		if okA && okB {
			x, _ := na.Float64()
			y, _ := nb.Float64()
			if math.Abs(x-y) > 1e-9 {
				return fmt.Errorf("token %d: %v, want %v", i, na, nb)
			}
			continue
		}
		if ta != tb {
			return fmt.Errorf("token %d: %v, want %v", i, ta, tb)
		}
	}
}
