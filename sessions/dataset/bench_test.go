package dataset

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

var benchFile = flag.String("bench-file", "", "BenchmarkLoadJSONL1M writes its file here and keeps it, so that `jq -c .` can be timed on the same file")

var benchWords = strings.Fields(`the a of to and in is that for it as was with be by on not he this are
or his from at which but have an they you were her all she there would their we him been has when who
will more no if out so said what up its about into than them can only other new some could time these
two may then do first any my now such like our over man me even most made after also did many before
must through back years where much your way well down should because each just those people how too
little state good very make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since against go came right
used take three answer café naïve déjà-vu “quoted” 10% 3.14 (B) Paris 1937 12/14/1937`)

// benchRow writes one row of the benchmark file: about 500 bytes, with
// escapes in the prediction as real model outputs have.
func benchRow(w *bufio.Writer, r *rand.Rand, i int) {
	words := func(n int) string {
		var b strings.Builder
		for k := 0; k < n; k++ {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(benchWords[r.IntN(len(benchWords))])
		}
		return b.String()
	}
	cats := [...]string{"arithmetic", "dates", "geography", "history", "logic", "science", "sports", "language"}
	diffs := [...]string{"easy", "medium", "hard"}
	fmt.Fprintf(w, `{"id": "item-%07d", "question": "%s?", "answer": "%s", "prediction": "Let's think step by step.\n%s.\n\"%s\"\nSo the answer is %s.", "category": "%s", "difficulty": "%s", "is_correct": %t}`+"\n",
		i, words(22), words(2), words(26), words(8), words(2), cats[r.IntN(len(cats))], diffs[r.IntN(len(diffs))], r.IntN(2) == 0)
}

func writeBenchFile(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 1; i <= n; i++ {
		benchRow(w, r, i)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// heapPeak samples the heap's object bytes until stopped and returns the
// highest value seen.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// BenchmarkLoadJSONL1M loads a 1,000,000-row JSONL file (about 0.5 GB) and
// reports the speed (MB/s), the peak heap during the load and the heap the
// loaded dataset holds, both as multiples of the file's size.
func BenchmarkLoadJSONL1M(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a 0.5 GB file; skipped with -short")
	}
	path := *benchFile
	if path == "" {
		path = filepath.Join(b.TempDir(), "bench.jsonl")
	}
	if _, err := os.Stat(path); err != nil {
		if err := writeBenchFile(path, 1_000_000); err != nil {
			b.Fatal(err)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := st.Size()
	b.SetBytes(size)
	var peak, live uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		stop := heapPeak()
		b.StartTimer()
		ds, err := Load(path, Options{})
		b.StopTimer()
		peak = max(peak, stop())
		if err != nil {
			b.Fatal(err)
		}
		if len(ds.Items) != 1_000_000 {
			b.Fatalf("loaded %d items, want 1000000", len(ds.Items))
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		live = ms.HeapAlloc
		runtime.KeepAlive(ds)
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/float64(size), "peak-heap/file")
	b.ReportMetric(float64(live)/float64(size), "live-heap/file")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
