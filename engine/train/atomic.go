package train

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// writeFileAtomic writes path through fill: into a temporary file in the
// same directory, synced to disk, then renamed into place. An interruption
// at any point leaves either the old file or the new one, never a
// half-written file.
func writeFileAtomic(path string, fill func(w io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	tmp := f.Name()
	f.Chmod(0o644) // CreateTemp makes files private; these are ordinary outputs
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}
