// Package atomicfile writes files so that an interruption never leaves a
// half-written one: the engine's checkpoints and tokenizers and the
// trainer's checkpoints and token caches all go through Write.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through fill: into a temporary file in the same
// directory (buffered), synced to disk, then renamed into place. On any
// error the temporary file is removed and an existing file at path is left
// as it was. The file is readable by everyone (0644).
func Write(path string, fill func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("saving %s: %w", path, err)
		}
	}()
	// CreateTemp makes the file private; a saved model is an ordinary file.
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
