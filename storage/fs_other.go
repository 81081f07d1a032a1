//go:build !unix

package storage

import (
	"io/fs"
	"os"
)

// fileInode is 0 where FileInfo carries no inode; the etag then rests on
// size and modification time alone.
func fileInode(fs.FileInfo) uint64 { return 0 }

func readDirTypes(dir *os.File) ([]fs.DirEntry, error) { return dir.ReadDir(-1) }
