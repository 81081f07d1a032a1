//go:build linux

package storage

import (
	"errors"
	"io"
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
	fd, ok, err := openat2Beneath(dir, p)
	if !ok || err != nil {
		return nil, ok, err
	}
	return os.NewFile(uintptr(fd), p), true, nil
}

// openat2Beneath is openBeneath's system call: the descriptor, which the
// caller closes.
func openat2Beneath(dir *os.File, p string) (fd int, ok bool, err error) {
	rc, err := dir.SyscallConn()
	if err != nil {
		return -1, false, nil
	}
	fd = -1
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
		return -1, false, nil
	case errors.Is(openErr, unix.ENOSYS) || errors.Is(openErr, unix.EPERM):
		// No openat2 here, or a sandbox (seccomp) that refuses it.
		return -1, false, nil
	case errors.Is(openErr, unix.ENOENT) || errors.Is(openErr, unix.ENOTDIR) ||
		errors.Is(openErr, unix.ELOOP) || errors.Is(openErr, unix.EXDEV):
		return -1, true, ErrNotFound
	case openErr != nil:
		return -1, true, openErr
	}
	return fd, true, nil
}

// readBeneath is Files.Read on a descriptor of its own, without an
// os.File: wrapping one costs a fcntl and a refused epoll registration
// (the descriptor is non-blocking), a quarter of the system calls of a
// small file's harvest. ok is false as for openBeneath.
func readBeneath(dir *os.File, p string, limit int64, want func(Entry) bool) (content []byte, e Entry, ok bool, err error) {
	fd, ok, err := openat2Beneath(dir, p)
	if !ok || err != nil {
		return nil, Entry{}, ok, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := ignoringEINTR(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return nil, Entry{}, true, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, Entry{}, true, errNotRegular
	}
	e = entryOf(p, &statInfo{name: p, size: st.Size, mtime: time.Unix(st.Mtim.Unix()), ino: st.Ino, mode: fileMode(st.Mode)})
	if e.Size > limit || (want != nil && !want(e)) {
		return nil, e, true, nil
	}
	content = make([]byte, e.Size)
	for n := 0; n < len(content); {
		m, err := unix.Read(fd, content[n:])
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err != nil:
			return nil, e, true, err
		case m == 0:
			return nil, e, true, io.ErrUnexpectedEOF // shrunk since its stat
		}
		n += m
	}
	return content, e, true, nil
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
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
			err := ignoringEINTR(func() error { return unix.Fstatat(int(fd), n, &st, unix.AT_SYMLINK_NOFOLLOW) })
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
