package archive

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
)

// walkTar lists a tar stream with archive/tar, which bounds what it holds
// of one header (PAX records, GNU long names, sparse maps) and skips the
// data it is not asked for (by seeking when r can). Small text documents
// and small nested archives are read as they pass.
func walkTar(l *listing, sc scope, r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if endsWalk(err) || l.ctx.Err() != nil {
				return err
			}
			if l.count == 0 && sc.depth == 0 {
				return fmt.Errorf("tar: %w", err)
			}
			return damaged(fmt.Errorf("tar: %w", err))
		}
		e := Entry{Name: hdr.Name, Size: hdr.Size, CompressedSize: -1, Mode: hdr.FileInfo().Mode(),
			Modified: hdr.ModTime, Type: tarType(hdr.Typeflag), Link: hdr.Linkname}
		if e.Type != "file" {
			e.Size = max(e.Size, 0)
		}
		unsafe, err := l.add(sc, e)
		if err != nil {
			return err
		}
		if l.wantsText(e, unsafe) {
			if b, err := readAtMost(tr, MaxTextFile); err == nil {
				l.addText(b)
			} else if endsWalk(err) {
				return err
			}
		}
		if l.wantsNested(sc, e, unsafe) {
			b, err := readAtMost(tr, MaxNestedSize)
			if err == nil {
				if err := l.walkNested(hdr.Name, b); err != nil {
					return err
				}
			} else if endsWalk(err) {
				return err
			}
		}
	}
}

// readAtMost reads r whole when it holds at most limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, io.LimitReader(r, limit+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > limit {
		return nil, errors.New("entry larger than its header says")
	}
	return buf.Bytes(), nil
}

func tarType(flag byte) string {
	switch flag {
	case tar.TypeReg, tar.TypeCont, tar.TypeGNUSparse: // tar.Reader reports the old TypeRegA as TypeReg (or TypeDir)
		return "file"
	case tar.TypeDir:
		return "dir"
	case tar.TypeSymlink:
		return "symlink"
	case tar.TypeLink:
		return "hardlink"
	case tar.TypeChar, tar.TypeBlock:
		return "device"
	case tar.TypeFifo:
		return "fifo"
	}
	return "other"
}

// isTar checks the header checksum of a first tar block (v7, ustar, GNU
// and PAX alike): the sum of its bytes, the checksum field read as
// spaces, is the octal number in that field.
func isTar(block []byte) bool {
	if len(block) < 512 {
		return false
	}
	field := bytes.TrimRight(bytes.TrimLeft(block[148:156], " "), " \x00")
	want, err := strconv.ParseUint(string(field), 8, 32)
	if err != nil {
		return false
	}
	var sum uint64
	for i, b := range block[:512] {
		if i >= 148 && i < 156 {
			b = ' '
		}
		sum += uint64(b)
	}
	return sum == want && sum != 8*' '
}

// fileModeOf is the listing's mode of a plain file whose mode is unknown.
const fileModeOf = fs.FileMode(0o644)
