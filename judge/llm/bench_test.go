//go:build unix

package llm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gavel-dev/gavel/judge"
)

// benchServerEnv, when set to a duration, makes the test binary a fixed
// latency OpenAI-compatible server instead of running tests: the
// benchmark runs the server in its own process so that getrusage counts
// the client's CPU alone.
const benchServerEnv = "GAVEL_LLM_BENCH_SERVER_LATENCY"

func TestMain(m *testing.M) {
	if lat := os.Getenv(benchServerEnv); lat != "" {
		serveBench(lat)
		return
	}
	os.Exit(m.Run())
}

// serveBench answers every chat completion after a fixed latency with a
// docqa answer and its logprobs, until stdin closes.
func serveBench(latency string) {
	l, err := time.ParseDuration(latency)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Printf("ADDR %s\n", ln.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(l)
		writeCompletion(w, "bench-model", completion{content: "reason: The prediction names NASA, the standard answer's organisation.\nresult: YES", withLogprobs: true, logprob: -0.01, answerLogprob: -0.02})
	})}
	go func() { _ = srv.Serve(ln) }()
	_, _ = io.Copy(io.Discard, os.Stdin)
}

func startBenchServer(b *testing.B, latency time.Duration) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchServerEnv+"="+latency.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ADDR ") {
		b.Fatalf("bench server: %q, %v", line, err)
	}
	return "http://" + strings.TrimSpace(strings.TrimPrefix(line, "ADDR ")) + "/v1"
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkJudgeThroughput measures the docqa judge through judge.RunPool
// against a server in another process that answers after a fixed latency
// L, at concurrency C. The targets: req/s within 5 % of C/L ("%C/L" at 95
// or more) and under 1 ms of client CPU per request ("cpu-µs/req" under
// 1000). Run it with enough requests per size, e.g.
//
//	go test -run '^$' -bench JudgeThroughput -benchtime 1600x ./judge/llm
func BenchmarkJudgeThroughput(b *testing.B) {
	const latency = 50 * time.Millisecond
	base := startBenchServer(b, latency)
	for _, c := range []int{8, 16, 32} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			cfg := Config{BaseURL: base, APIKey: testKey, Model: "bench-model", Concurrency: c, Timeout: 10 * time.Second}
			j, err := NewCatalog().New("docqa", cfg)
			if err != nil {
				b.Fatal(err)
			}
			run := func(n int) {
				ok := 0
				for v := range judge.RunPool(context.Background(), j, manyTasks(n), cfg.PoolOptions()) {
					if v.OK() {
						ok++
					}
				}
				if ok != n {
					b.Fatalf("%d of %d verdicts ok", ok, n)
				}
			}
			run(c) // open the connections
			// Whole waves of C requests, so that the ideal time is exact.
			n := (b.N + c - 1) / c * c
			cpu0 := cpuTime()
			b.ResetTimer()
			start := time.Now()
			run(n)
			elapsed := time.Since(start)
			b.StopTimer()
			cpu := cpuTime() - cpu0
			rps := float64(n) / elapsed.Seconds()
			ideal := float64(c) / latency.Seconds()
			b.ReportMetric(rps, "req/s")
			b.ReportMetric(100*rps/ideal, "%C/L")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/req")
		})
	}
}
