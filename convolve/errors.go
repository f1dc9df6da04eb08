package convolve

import (
	"fmt"
	"strings"
)

// prefix starts the message of every error of this package.
const prefix = "convolve: "

// wrapError adds context to another error, reading "convolve: context:
// detail" without a second prefix. Its message is built when asked for,
// so that it shows a variant name NameVariant set after wrapping.
type wrapError struct {
	context string
	err     error
}

func (e *wrapError) Error() string {
	return prefix + e.context + ": " + strings.TrimPrefix(e.err.Error(), prefix)
}

func (e *wrapError) Unwrap() error { return e.err }

// wrapf returns err with the context format and args describe.
func wrapf(err error, format string, args ...any) error {
	return &wrapError{context: fmt.Sprintf(format, args...), err: err}
}

// variantError returns err named by NameVariant, wrapped as "convolve:
// name: message" where its message still does not name the variant.
func variantError(name string, err error) error {
	err = NameVariant(name, err)
	if mentions(err.Error(), name) {
		return err
	}
	return wrapf(err, "%s", name)
}

// mentions reports whether msg holds name as a whole word, not inside a
// longer variant name.
func mentions(msg, name string) bool {
	if name == "" {
		return true
	}
	for i := 0; ; {
		j := strings.Index(msg[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !nameByte(msg[start-1])) && (end == len(msg) || !nameByte(msg[end])) {
			return true
		}
		i = start + 1
	}
}

// nameByte reports whether b may be part of a variant name.
func nameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-' || b == '_' || b == '.'
}
