// Package atomicfile writes files so that an interruption never leaves a
// half-written one: the engine's checkpoints and tokenizers and the
// trainer's checkpoints, token caches and summaries all go through Write.
//
// A process killed while writing (kill -9, a power cut) cannot remove its
// temporary file; the temporary's name holds the writer's process id, so
// the next Write to the same path, or Clean, removes it once that process
// is gone.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Write writes path through fill: into a temporary file in the same
// directory (buffered), synced to disk, then renamed into place. On any
// error the temporary file is removed and an existing file at path is left
// as it was. The file is readable by everyone (0644).
func Write(path string, fill func(w io.Writer) error) (err error) {
	Clean(path)
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(filepath.Base(path))+strconv.Itoa(os.Getpid())+"-*")
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
	bw := bufio.NewWriterSize(f, writeSize)
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

// writeSize is the size of Write's writes. Writes of 2 MB or more let
// the file system keep the new file in memory in 2 MB pages, which the
// engine's mapping of a model (LoadModel) can then use whole: a decoding
// step reads the weights from them faster than from 4 kB pages. With 1 MB
// writes the file is cached in small pages.
const writeSize = 4 << 20

// tempPrefix starts the name of every temporary file for base:
// ".base.tmp-", followed by the writer's process id, "-" and random digits.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// Clean removes the temporary files that writers of path left behind when
// they were killed: those of processes that no longer run. It returns the
// paths it removed.
func Clean(path string) []string {
	// Earlier versions named temporaries ".base.tmp" and digits.
	legacy := "." + filepath.Base(path) + ".tmp"
	return clean(filepath.Dir(path), func(name string) bool { return strings.HasPrefix(name, legacy) })
}

// CleanDir removes every stale temporary file in dir (see Clean).
func CleanDir(dir string) []string {
	return clean(dir, func(name string) bool { return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp") })
}

func clean(dir string, match func(name string) bool) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !match(name) || !stale(e) {
			continue
		}
		p := filepath.Join(dir, name)
		if os.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// stale reports whether a temporary file's writer is gone. The process id
// sits between ".tmp-" and the next "-"; a name without one, or a system
// where liveness cannot be asked, falls back to the file's age.
func stale(e os.DirEntry) bool {
	name := e.Name()
	_, rest, ok := strings.Cut(name[strings.LastIndex(name, ".tmp"):], ".tmp-")
	pidText, _, ok2 := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if ok && ok2 && err == nil && pid > 0 {
		if pid == os.Getpid() {
			return false // this process's own write, still going on
		}
		if alive, known := running(pid); known {
			return !alive
		}
	}
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > staleAge
}

// staleAge is how old a temporary file whose writer cannot be asked must be
// to count as abandoned.
const staleAge = time.Hour
