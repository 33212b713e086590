package dataset

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// gzipBomb returns a gzip stream of n members, each the same mb MiB of
// rows: concatenated members are one stream to gunzip, so a 1 GiB bomb
// costs one MiB of compressing work.
func gzipBomb(t testing.TB, members, mb int, row string) []byte {
	t.Helper()
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	block := []byte(strings.Repeat(row, (mb<<20)/len(row)))
	if _, err := zw.Write(block); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return bytes.Repeat(member.Bytes(), members)
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGzipBomb loads 1 MB of gzip that inflates to 1 GiB (valid rows,
// then blank lines) with the default options: the ratio rule stops it
// after 100 MB, and memory stays near that, not at gigabytes.
func TestGzipBomb(t *testing.T) {
	bomb := append(gzipBomb(t, 1, 1, `{"prediction": "a"}`+"\n"), gzipBomb(t, 1023, 1, "\n")...)
	if len(bomb) > 3<<19 {
		t.Fatalf("the bomb is %d bytes, want about 1 MB", len(bomb))
	}
	path := writeTemp(t, "bomb.jsonl.gz", bomb)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Load(path, Options{})
	runtime.ReadMemStats(&after)
	want := path + " inflates to more than " + FormatSize(100*int64(len(bomb))) + ", over 100 times its compressed size (" + FormatSize(int64(len(bomb))) +
		"), which looks like a decompression bomb rather than a dataset: if the file is genuine, raise the limit with --max-bytes (e.g. --max-bytes 8GiB)"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("error %v does not match ErrTooLarge", err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 200<<20 {
		t.Errorf("the bomb allocated %s, want under 200 MiB", FormatSize(int64(alloc)))
	}
	t.Logf("a %s bomb: %s allocated", FormatSize(int64(len(bomb))), FormatSize(int64(alloc)))
}

// TestGzipCap: a cap the person sets is the one cap, exact.
func TestGzipCap(t *testing.T) {
	bomb := gzipBomb(t, 2, 1, `{"prediction": "a"}`+"\n")
	_, err := LoadBytes("rows.jsonl.gz", bomb, Options{MaxBytes: 1 << 20})
	want := "rows.jsonl.gz inflates to more than the --max-bytes limit of 1 MiB: raise it if the file is genuine (e.g. --max-bytes 4MiB)"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}
	ds, err := LoadBytes("rows.jsonl.gz", bomb, Options{MaxBytes: 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Items) != 2*((1<<20)/20) {
		t.Errorf("%d items", len(ds.Items))
	}
}

// TestZeroBomb: a gzip of zeros is refused as binary after its first
// bytes, whatever the cap allows.
func TestZeroBomb(t *testing.T) {
	bomb := gzipBomb(t, 1024, 1, "\x00")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := LoadBytes("zeros.jsonl.gz", bomb, Options{MaxBytes: 1 << 40})
	runtime.ReadMemStats(&after)
	want := "zeros.jsonl.gz looks like a binary file, not JSONL/JSON/CSV: check that this is the dataset file"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("allocated %s, want a few MiB", FormatSize(int64(alloc)))
	}
}

// TestInflateLimit checks the ratio rule and its floor.
func TestInflateLimit(t *testing.T) {
	tests := []struct {
		compressed int
		max        int64
		explicit   bool
		want       int64
		byRatio    bool
	}{
		{1000, DefaultMaxBytes, false, GzipFloor, true},
		{1 << 20, DefaultMaxBytes, false, 100 << 20, true},
		{1 << 30, DefaultMaxBytes, false, DefaultMaxBytes, false},
		{1 << 20, 1 << 40, true, 1 << 40, false},
		{1 << 20, 1 << 10, true, 1 << 10, false},
	}
	for _, tt := range tests {
		got, byRatio := inflateLimit(tt.compressed, tt.max, tt.explicit)
		if got != tt.want || byRatio != tt.byRatio {
			t.Errorf("inflateLimit(%d, %d, %v) = %d, %v; want %d, %v", tt.compressed, tt.max, tt.explicit, got, byRatio, tt.want, tt.byRatio)
		}
	}
}

// TestPlainCap: a file larger than the cap is refused before it is read.
func TestPlainCap(t *testing.T) {
	_, err := Load("testdata/good/basic.jsonl", Options{MaxBytes: 100})
	want := "testdata/good/basic.jsonl is 398 bytes, more than the --max-bytes limit of 100 bytes: raise it if the file is genuine (e.g. --max-bytes 1MiB)"
	if err == nil || err.Error() != want {
		t.Fatalf("error\n got: %v\nwant: %s", err, want)
	}
	if _, err := LoadBytes("basic.jsonl", make([]byte, 101), Options{MaxBytes: 100}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("LoadBytes past the cap: %v", err)
	}
	if _, err := Load("testdata/good/basic.jsonl", Options{MaxBytes: 398}); err != nil {
		t.Errorf("a file of exactly the cap: %v", err)
	}
}

// zeros is an endless stream of NUL bytes, as /dev/zero is.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestStdin reads "-" from a pipe, plain and gzipped, within the caps.
func TestStdin(t *testing.T) {
	plain, err := os.ReadFile("testdata/good/basic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(plain)
		w.Close()
	}()
	ds, err := Load("-", Options{Stdin: r})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != StdinName || ds.Path != "" || ds.Format != "jsonl" || len(ds.Items) != 3 {
		t.Errorf("stdin: name %q, path %q, format %q, %d items", ds.Name, ds.Path, ds.Format, len(ds.Items))
	}
	want, _ := Load("testdata/good/basic.jsonl", Options{})
	if ds.SHA256 != want.SHA256 {
		t.Errorf("SHA256 from stdin %s, from the file %s", ds.SHA256, want.SHA256)
	}

	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	ds, err = Load("-", Options{Stdin: iotest.HalfReader(bytes.NewReader(gz.Bytes()))})
	if err != nil || ds.Compression != "gzip" || len(ds.Items) != 3 {
		t.Fatalf("gzip on stdin: %v", err)
	}

	tests := []struct {
		name string
		in   io.Reader
		opts Options
		want string
	}{
		{"endless zeros", zeros{}, Options{}, "standard input looks like a binary file, not JSONL/JSON/CSV: check that this is the dataset file"},
		{"past the cap", strings.NewReader(strings.Repeat(`{"prediction": "a"}`+"\n", 1000)), Options{MaxBytes: 10000},
			"standard input holds more than the --max-bytes limit of 9.8 KiB: raise it if the file is genuine (e.g. --max-bytes 1MiB)"},
		{"empty", strings.NewReader(""), Options{}, "standard input is empty: there are no rows to load"},
		{"bomb", bytes.NewReader(gzipBomb(t, 16, 1, "{}\n")), Options{MaxBytes: 1 << 20},
			"standard input inflates to more than the --max-bytes limit of 1 MiB: raise it if the file is genuine (e.g. --max-bytes 4MiB)"},
		{"read error", iotest.ErrReader(errors.New("boom")), Options{}, "standard input cannot be read: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Stdin = tt.in
			_, err := Load("-", tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got: %v\nwant: %s", err, tt.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"1": 1, "512MiB": 512 << 20, "8G": 8 << 30, "8gb": 8 << 30, " 1.5 GiB ": 3 << 29, "100k": 100 << 10, "2TiB": 2 << 40, "10B": 10,
	}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "G", "8 parsecs", "-1G", "0", "1e3", "1.2.3M", "99999999TiB"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
	formats := map[int64]string{0: "0 bytes", 1023: "1023 bytes", 1024: "1 KiB", 100 << 20: "100 MiB", 3 << 29: "1.5 GiB", 8 << 30: "8 GiB"}
	for n, want := range formats {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{1: "1MiB", 3 << 20: "4MiB", 8 << 30: "8GiB", 9 << 30: "16GiB", 3 << 40: "4TiB"} {
		if got := suggestSize(n); got != want {
			t.Errorf("suggestSize(%d) = %q, want %q", n, got, want)
		}
		if v, err := ParseSize(suggestSize(n)); err != nil || v < n {
			t.Errorf("suggestSize(%d) = %q reads back as %d, %v", n, suggestSize(n), v, err)
		}
	}
}

// chunky reads at most the sizes it is given, in turn.
type chunky struct {
	r     io.Reader
	sizes []byte
	i     int
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.sizes) > 0 {
		n := int(c.sizes[c.i%len(c.sizes)]) + 1
		c.i++
		p = p[:min(len(p), n)]
	}
	return c.r.Read(p)
}

// FuzzReadCapped: whatever the reads' sizes, the hint and the cap, the
// text comes back whole when it fits and is refused when it does not,
// never holding much more than the cap.
func FuzzReadCapped(f *testing.F) {
	f.Add([]byte("hello"), []byte{0}, int64(0), int64(5))
	f.Add([]byte("hello"), []byte{}, int64(100), int64(4))
	f.Add(bytes.Repeat([]byte("x"), 70000), []byte{255, 3}, int64(10), int64(69999))
	f.Add(bytes.Repeat([]byte("y"), 200000), []byte{}, int64(70000), int64(1<<20))
	f.Fuzz(func(t *testing.T, data, sizes []byte, hint, limit int64) {
		if limit <= 0 || limit > 1<<20 || hint < 0 || hint > 1<<20 {
			return
		}
		sniffed := -1
		got, over, err := readCapped(&chunky{r: bytes.NewReader(data), sizes: sizes}, hint, limit, func(head []byte) error {
			sniffed = len(head)
			if !bytes.HasPrefix(data, head) {
				t.Errorf("sniffed %q, not a prefix of the data", head)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(data)) > limit {
			if !over || got != nil {
				t.Fatalf("%d bytes with a cap of %d: over %v, %d bytes back", len(data), limit, over, len(got))
			}
		} else if over || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes with a cap of %d: over %v, %d bytes back", len(data), limit, over, len(got))
		}
		if want := min(len(data), sniffLen); !over && sniffed != want {
			t.Errorf("sniffed %d bytes, want %d", sniffed, want)
		}
		if int64(cap(got)) > max(limit+1, 64<<10+1) {
			t.Errorf("a buffer of %d bytes for a cap of %d", cap(got), limit)
		}
	})
}
