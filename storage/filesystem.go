package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Filesystem is the "filesystem" kind: config.path is an absolute directory
// whose immediate sub-directories are the containers.
type Filesystem struct {
	tree
}

var _ Location = (*Filesystem)(nil)

func openFilesystem(config map[string]string) (*Filesystem, error) {
	p := config["path"]
	if !filepath.IsAbs(p) {
		return nil, &ConfigError{Field: "path", Problem: "must be an absolute directory path"}
	}
	return &Filesystem{tree{dir: filepath.Clean(p)}}, nil
}

// Check verifies that the directory exists and can be listed.
func (l *Filesystem) Check(ctx context.Context) error {
	return checkDir(ctx, l.dir, "path")
}

func checkDir(ctx context.Context, dir, field string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &ConfigError{Field: field, Problem: "directory does not exist"}
	case errors.Is(err, fs.ErrPermission):
		return &ConfigError{Field: field, Problem: "directory is not accessible (permission denied)"}
	case err != nil:
		return &ConfigError{Field: field, Problem: fmt.Sprintf("cannot be read: %v", errors.Unwrap(err))}
	case !fi.IsDir():
		return &ConfigError{Field: field, Problem: "is not a directory"}
	}
	f, err := os.Open(dir)
	if err == nil {
		_, err = f.ReadDir(1)
		f.Close()
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return &ConfigError{Field: field, Problem: "directory cannot be listed (permission denied?)"}
	}
	return nil
}
