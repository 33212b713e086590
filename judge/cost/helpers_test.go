package cost_test

import (
	"bytes"
	"io"
)

func bytesReader(b []byte) io.ReadCloser { return io.NopCloser(bytes.NewReader(b)) }
