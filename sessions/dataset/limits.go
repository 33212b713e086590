package dataset

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// A dataset's text stays in memory while it is open (items share its
// bytes), so the caps below are caps on memory: what is read is what is
// parsed, and a file cannot make Gavel hold more than it allows.
const (
	// DefaultMaxBytes is the most text Gavel reads from one dataset, after
	// decompression, unless --max-bytes says otherwise: 8 GiB is over ten
	// times the 1,000,000-item benchmark file (~0.6 GB), more than anyone
	// reviews at once, and still a figure a workstation can hold.
	DefaultMaxBytes int64 = 8 << 30
	// MaxGzipRatio is how many times its compressed size a gzip file may
	// inflate to by default. Text datasets compress 3 to 20 times (the real
	// eval files in the repository's data: 3x to 18x, the few-shot BBH file
	// the most); deflate cannot pass about 1032x, which only runs of one
	// byte reach, so 100x leaves real files five times the room they use and
	// stops a bomb (1 MB that inflates to 1 GB) after 100 MB.
	MaxGzipRatio = 100
	// GzipFloor is what any gzip file may inflate to whatever its ratio, so
	// that small, very repetitive files still load.
	GzipFloor int64 = 64 << 20
	// sniffLen is how much of a stream is looked at before the rest is read,
	// to refuse binary data (a stream of zeros) at once: what looksBinary
	// reads, and a byte-order mark.
	sniffLen = 8192 + 3
)

// ErrTooLarge is wrapped by the errors of files past the read cap.
var ErrTooLarge = errors.New("dataset too large")

// limitError is an error past the cap: its message is for people, and it
// matches ErrTooLarge.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ErrTooLarge }

// maxBytes is the cap on text read and whether the person set it.
func (o Options) maxBytes() (int64, bool) {
	if o.MaxBytes > 0 {
		return o.MaxBytes, true
	}
	return DefaultMaxBytes, false
}

// inflateLimit is how many bytes compressed bytes may inflate to, and
// whether the ratio rule set it. A cap the person set is the one cap.
func inflateLimit(compressed int, maxBytes int64, explicit bool) (int64, bool) {
	if explicit {
		return maxBytes, false
	}
	r := max(GzipFloor, MaxGzipRatio*int64(compressed))
	if r < maxBytes {
		return r, true
	}
	return maxBytes, false
}

// sizeError is the message for text of size bytes (-1: unknown, more than
// limit) past the cap. what is "NAME is", "NAME inflates to" or
// "standard input holds".
func sizeError(what string, size, limit int64, explicit bool) error {
	amount := "more than"
	if size >= 0 {
		amount = FormatSize(size) + ", more than"
	}
	suggest := suggestSize(max(size, 4*limit))
	if explicit {
		return &limitError{fmt.Sprintf("%s %s the --max-bytes limit of %s: raise it if the file is genuine (e.g. --max-bytes %s)", what, amount, FormatSize(limit), suggest)}
	}
	return &limitError{fmt.Sprintf("%s %s the %s Gavel reads by default: if it is one dataset, raise the limit with --max-bytes (e.g. --max-bytes %s)", what, amount, FormatSize(limit), suggest)}
}

// bombError is the message for compressed bytes inflating past the ratio
// rule.
func bombError(name string, compressed int, limit int64) error {
	return &limitError{fmt.Sprintf("%s inflates to more than %s, over %d times its compressed size (%s), which looks like a decompression bomb rather than a dataset: if the file is genuine, raise the limit with --max-bytes (e.g. --max-bytes %s)",
		name, FormatSize(limit), MaxGzipRatio, FormatSize(int64(compressed)), suggestSize(DefaultMaxBytes))}
}

// readCapped reads r to its end, holding at most limit bytes: past that it
// stops and reports over. hint is the size expected (0 when unknown):
// when it is right, the text is read into one buffer of that size. sniff,
// if not nil, sees the first sniffLen bytes (all, when there are fewer) as
// soon as they are in, and its error stops the read. Errors from r are
// returned as they are.
func readCapped(r io.Reader, hint, limit int64, sniff func([]byte) error) (data []byte, over bool, err error) {
	// One byte more than expected, so that the end shows without a new
	// buffer; never more than the cap allows.
	size := min(max(hint, 64<<10)+1, limit+1)
	first := make([]byte, size)
	buf, n := first, 0
	var full [][]byte
	total, empty := int64(0), 0
	for {
		m, rerr := r.Read(buf[n:])
		n += m
		total += int64(m)
		if sniff != nil && (total >= sniffLen || total > limit || rerr == io.EOF) {
			head := first
			if len(full) == 0 {
				head = first[:n]
			}
			if err := sniff(head[:min(len(head), sniffLen)]); err != nil {
				return nil, false, err
			}
			sniff = nil
		}
		if total > limit {
			return nil, true, nil
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, false, rerr
		}
		if m == 0 {
			if empty++; empty > 100 {
				return nil, false, io.ErrNoProgress
			}
			continue
		}
		empty = 0
		if n == len(buf) {
			// Further buffers grow with what came so far, and stop at the
			// cap: a stream past it allocates the cap and no more.
			full = append(full, buf)
			buf, n = make([]byte, min(max(total/2, 1<<20), limit+1-total)), 0
		}
	}
	if len(full) == 0 {
		return buf[:n], false, nil
	}
	out := make([]byte, 0, total)
	for _, b := range full {
		out = append(out, b...)
	}
	return append(out, buf[:n]...), false, nil
}

// sizeUnits are the units ParseSize reads; K, M, G and T are powers of
// 1024 whichever way they are spelt.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}

// ParseSize reads a size such as 512MiB, 8G, 1.5GB or 1000000 (bytes);
// K, M, G and T are powers of 1024.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	mult, ok := sizeUnits[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not a size: write a number of bytes with a unit, e.g. 512MiB, 8GiB or 1.5G", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: write a number of bytes with a unit, e.g. 512MiB, 8GiB or 1.5G", s)
	}
	b := v * float64(mult)
	if b < 1 || b >= math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is out of range: give a size from 1 byte to a few TiB, e.g. 16GiB", s)
	}
	return int64(b), nil
}

// FormatSize writes n bytes for people: "64 MiB", "1.5 GiB", "900 bytes".
func FormatSize(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + units[u]
}

// suggestSize is a --max-bytes value of at least n: a power of two, in
// the flag's syntax ("16GiB").
func suggestSize(n int64) string {
	p := int64(1 << 20)
	for p < n && p < 1<<50 {
		p <<= 1
	}
	switch {
	case p >= 1<<40:
		return strconv.FormatInt(p>>40, 10) + "TiB"
	case p >= 1<<30:
		return strconv.FormatInt(p>>30, 10) + "GiB"
	}
	return strconv.FormatInt(p>>20, 10) + "MiB"
}
