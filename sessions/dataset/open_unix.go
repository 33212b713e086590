//go:build unix

package dataset

import (
	"os"
	"syscall"
)

// openFlags open a dataset without waiting: a named pipe with no writer
// would block open(2) for ever, and is refused once open instead.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
