package stats

import (
	"math"
	"testing"
)

// TestStudentQuantile checks against R's qt(p, df) to 1e-6 (the
// fractional df against a numeric integration of the t density).
func TestStudentQuantile(t *testing.T) {
	for _, tc := range []struct{ p, df, want float64 }{
		{0.975, 1, 12.706204736174698},
		{0.975, 2, 4.302652729749464},
		{0.975, 2.5, 3.574654842004997}, // numeric integration of the density
		{0.975, 10, 2.2281388519862744},
		{0.975, 30, 2.0422724563012373},
		{0.975, 1000, 1.9623390808264074},
		{0.95, 5, 2.0150483733330233},
		{0.5, 7, 0},
	} {
		if got := studentQuantile(tc.p, tc.df); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("studentQuantile(%v, %v) = %.10f, want %.10f", tc.p, tc.df, got, tc.want)
		}
	}
	if !math.IsNaN(studentQuantile(0.975, 0.5)) {
		t.Error("df below 1 is not refused")
	}
}
