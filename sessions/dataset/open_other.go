//go:build !unix

package dataset

import "os"

// openFlags open a dataset for reading.
const openFlags = os.O_RDONLY
