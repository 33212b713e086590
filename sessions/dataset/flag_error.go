package dataset

import "errors"

// ErrFlag is matched by the errors of a flag that names what the rows do
// not have (a --map field none of them holds): a mistake in how the
// command was called, which the command line reports as a usage error
// (exit 2), as it does for a --judge the session does not have.
var ErrFlag = errors.New("a flag names what the rows lack")

// flagError is such an error: its message is for people, and it matches
// ErrFlag.
type flagError struct{ msg string }

func (e *flagError) Error() string        { return e.msg }
func (e *flagError) Is(target error) bool { return target == ErrFlag }
