package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// cacheLimit caps the grader's build cache: well above what compiling the
// whole track with the race detector, engine and standard library
// included, needs; what a submission can add is bounded by buildFileSize a
// file.
const cacheLimit = 2 << 30

// defaultCache is the grader's own build cache: apart from the user's, so
// that grading never fills or reads the cache of their other work.
func defaultCache() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "tokenbytoken", "grade-build"), nil
}

// trimCache removes the least recently used files of a build cache until
// it is at most three quarters of limit, once it passes limit. The go
// command treats a missing cache file as a miss and rebuilds it, and it
// refreshes the time of the files it uses, so the oldest go first.
func trimCache(dir string, limit int64) {
	type entry struct {
		path string
		size int64
		mod  int64
	}
	var files []entry
	var total int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		files = append(files, entry{path, info.Size(), info.ModTime().UnixNano()})
		total += info.Size()
		return nil
	})
	if total <= limit {
		return
	}
	slices.SortFunc(files, func(a, b entry) int { return int(min(max(a.mod-b.mod, -1), 1)) })
	for _, f := range files {
		if total <= limit/4*3 {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}
