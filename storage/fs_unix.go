//go:build unix

package storage

import (
	"io/fs"
	"os"
	"syscall"
)

func fileInode(fi fs.FileInfo) uint64 {
	if s, ok := fi.(*statInfo); ok {
		return s.ino
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// readDirTypes lists a directory opened through an os.Root with the entry
// types from readdir itself. (*os.File).ReadDir on a Root-opened directory
// lstats every entry, which turned each page of a 100k-file directory into
// 100k stat calls; a duplicate descriptor opened outside the Root reads the
// same directory without that. Only names and types are read this way;
// every later access still goes through the Root.
func readDirTypes(dir *os.File) ([]fs.DirEntry, error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd := -1
	var dupErr error
	err = rc.Control(func(fd uintptr) {
		// Under ForkLock and with close-on-exec, as os/exec expects, so a
		// concurrent exec (extractor tools) cannot inherit the descriptor.
		syscall.ForkLock.RLock()
		nfd, dupErr = syscall.Dup(int(fd))
		if dupErr == nil {
			syscall.CloseOnExec(nfd)
		}
		syscall.ForkLock.RUnlock()
	})
	if err == nil {
		err = dupErr
	}
	if err != nil {
		return dir.ReadDir(-1)
	}
	f := os.NewFile(uintptr(nfd), dir.Name())
	defer f.Close()
	return f.ReadDir(-1)
}
