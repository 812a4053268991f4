// Package regular opens the files a user names on the command line (models,
// tokenizers, texts, checkpoints) only when they are regular files. A named
// pipe (FIFO) would block the program forever waiting for a writer, and a
// device such as /dev/zero or /dev/urandom never ends: both are refused
// before anything is read, with a message saying what the path is.
package regular

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Open opens path for reading if it is a regular file (or a symbolic link
// to one) and returns it with its size.
func Open(path string) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if err := Check(path, fi); err != nil {
		return nil, 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	// Check again what was opened, in case the path changed in between.
	if fi, err = f.Stat(); err == nil {
		err = Check(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// Check returns an error unless fi describes a regular file.
func Check(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return fmt.Errorf("%s is %s, not a regular file", path, kind(fi.Mode()))
}

// kind names a non-regular file type.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO), which would block until something writes to it"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not an ordinary file (" + m.Type().String() + ")"
}

// ReadFile reads a whole regular file of at most limit bytes; a bigger one
// is refused before it is read, with both sizes in the message.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d this reads", path, size, limit)
	}
	// Read one byte past the size, to notice a file that grew meanwhile.
	b := make([]byte, size, size+1)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if n, _ := f.Read(b[size : size+1]); n > 0 {
		return nil, fmt.Errorf("%s grew while it was being read", path)
	}
	return b, nil
}
