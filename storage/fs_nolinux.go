//go:build !linux

package storage

import "os"

// openBeneath is Linux's openat2 path; elsewhere files go through os.Root.
func openBeneath(dir *os.File, p string) (*os.File, bool, error) { return nil, false, nil }
