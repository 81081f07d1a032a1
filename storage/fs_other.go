//go:build !unix

package storage

import (
	"io/fs"
	"os"
)

// fileInode is 0 where FileInfo carries no inode; the etag then rests on
// size and modification time alone.
func fileInode(fi fs.FileInfo) uint64 {
	if s, ok := fi.(*statInfo); ok {
		return s.ino
	}
	return 0
}

func readDirTypes(dir *os.File) ([]fs.DirEntry, error) { return dir.ReadDir(-1) }
