//go:build linux

package storage

import (
	"errors"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// openBeneath opens p below the directory dir in one system call (openat2):
// the kernel refuses a path that leaves dir or passes through any symlink,
// and O_NONBLOCK keeps a FIFO from blocking the open. Going through os.Root
// costs an open and close per directory level plus a separate lstat, which
// showed on batches of small files. ok is false when the kernel has no
// openat2 (before Linux 5.6); the caller then goes through os.Root. A path
// refused or absent is ErrNotFound, as with os.Root. Errors do not name p
// (it may not be UTF-8): the caller does.
func openBeneath(dir *os.File, p string) (f *os.File, ok bool, err error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return nil, false, nil
	}
	fd := -1
	var openErr error
	ctlErr := rc.Control(func(dfd uintptr) {
		how := &unix.OpenHow{
			Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOFOLLOW,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
		}
		for {
			fd, openErr = unix.Openat2(int(dfd), p, how)
			if openErr != unix.EINTR && openErr != unix.EAGAIN {
				return
			}
		}
	})
	switch {
	case ctlErr != nil:
		return nil, false, nil
	case errors.Is(openErr, unix.ENOSYS) || errors.Is(openErr, unix.EPERM):
		// No openat2 here, or a sandbox (seccomp) that refuses it.
		return nil, false, nil
	case errors.Is(openErr, unix.ENOENT) || errors.Is(openErr, unix.ENOTDIR) ||
		errors.Is(openErr, unix.ELOOP) || errors.Is(openErr, unix.EXDEV):
		return nil, true, ErrNotFound
	case openErr != nil:
		return nil, true, openErr
	}
	return os.NewFile(uintptr(fd), p), true, nil
}

// lstatEach stats the files names of the directory dir of r, links not
// followed, and calls each with the result of every one, in the order of
// names: one fstatat per name relative to the directory, where r.Lstat
// walks each path from the root again (an open, a stat and a close per
// file of a listed page).
func lstatEach(r *os.Root, dir string, names []string, each func(name string, fi fs.FileInfo, err error) error) error {
	d, err := r.Open(dir)
	if err != nil {
		for _, n := range names {
			if err := each(n, nil, err); err != nil {
				return err
			}
		}
		return nil
	}
	defer d.Close()
	rc, err := d.SyscallConn()
	if err != nil {
		return lstatEachInRoot(r, dir, names, each)
	}
	var cbErr error
	if err := rc.Control(func(fd uintptr) {
		for _, n := range names {
			var st unix.Stat_t
			var fi fs.FileInfo
			err := unix.Fstatat(int(fd), n, &st, unix.AT_SYMLINK_NOFOLLOW)
			for err == unix.EINTR {
				err = unix.Fstatat(int(fd), n, &st, unix.AT_SYMLINK_NOFOLLOW)
			}
			if err == nil {
				fi = &statInfo{name: n, size: st.Size, mtime: time.Unix(st.Mtim.Unix()), ino: st.Ino, mode: fileMode(st.Mode)}
			} else {
				err = &fs.PathError{Op: "lstat", Path: n, Err: err}
			}
			if cbErr = each(n, fi, err); cbErr != nil {
				return
			}
		}
	}); err != nil {
		return err
	}
	return cbErr
}

// fileMode is the fs.FileMode of a stat's st_mode.
func fileMode(mode uint32) fs.FileMode {
	m := fs.FileMode(mode & 0o777)
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	default:
		m |= fs.ModeIrregular
	}
	return m
}
