//go:build !linux

package storage

import (
	"io/fs"
	"os"
)

// openBeneath is Linux's openat2 path; elsewhere files go through os.Root.
func openBeneath(dir *os.File, p string) (*os.File, bool, error) { return nil, false, nil }

// readBeneath is Linux's openat2 path; elsewhere files go through os.Root.
func readBeneath(dir *os.File, p string, limit int64, want func(Entry) bool) ([]byte, Entry, bool, error) {
	return nil, Entry{}, false, nil
}

// lstatEach is lstatEachInRoot where there is no fstatat path.
func lstatEach(r *os.Root, dir string, names []string, each func(name string, fi fs.FileInfo, err error) error) error {
	return lstatEachInRoot(r, dir, names, each)
}
