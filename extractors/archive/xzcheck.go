package archive

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The xz format (tukaani.org/xz/xz-file-format.txt): streams of a 12-byte
// header, blocks, an index and a 12-byte footer, possibly padded with
// zeros and concatenated. The decoder allocates the dictionary each
// block header declares (up to 4 GiB), so before decoding, checkXZ walks
// the streams from the end (footer, index, then each block header the
// index locates) and refuses a dictionary over maxXZDict.
const (
	xzHeaderLen    = 12
	xzMaxIndex     = 16 << 20
	xzMaxBlocks    = 1 << 20
	xzFilterLZMA2  = 0x21
	xzMaxStreams   = 1024
	xzMaxBlockHead = 1024
)

var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0}

func checkXZ(r io.ReaderAt, size int64) error {
	pos := size
	for streams := 0; pos > 0; streams++ {
		if streams >= xzMaxStreams {
			return errors.New("xz: too many streams")
		}
		var pad [4]byte
		for pos >= 4 {
			if _, err := r.ReadAt(pad[:], pos-4); err != nil {
				return fmt.Errorf("xz: %w", err)
			}
			if pad != [4]byte{} {
				break
			}
			pos -= 4
		}
		if pos == 0 {
			break
		}
		start, err := checkXZStream(r, pos)
		if err != nil {
			return err
		}
		pos = start
	}
	return nil
}

// checkXZStream checks the stream ending at end and returns where it
// starts.
func checkXZStream(r io.ReaderAt, end int64) (int64, error) {
	if end < 2*xzHeaderLen {
		return 0, errors.New("xz: truncated stream")
	}
	var footer [xzHeaderLen]byte
	if _, err := r.ReadAt(footer[:], end-xzHeaderLen); err != nil {
		return 0, fmt.Errorf("xz: footer: %w", err)
	}
	if footer[10] != 'Y' || footer[11] != 'Z' {
		return 0, errors.New("xz: no stream footer")
	}
	indexLen := (int64(binary.LittleEndian.Uint32(footer[4:])) + 1) * 4
	if indexLen > xzMaxIndex || indexLen > end-2*xzHeaderLen {
		return 0, errors.New("xz: index too large")
	}
	index := make([]byte, indexLen)
	indexAt := end - xzHeaderLen - indexLen
	if _, err := r.ReadAt(index, indexAt); err != nil {
		return 0, fmt.Errorf("xz: index: %w", err)
	}
	ir := bytes.NewReader(index)
	if b, _ := ir.ReadByte(); b != 0 {
		return 0, errors.New("xz: no index")
	}
	count, err := binary.ReadUvarint(ir)
	if err != nil || count > xzMaxBlocks {
		return 0, errors.New("xz: bad index")
	}
	padded := make([]int64, 0, min(count, 4096))
	var blocks int64
	for range count {
		unpadded, err1 := binary.ReadUvarint(ir)
		_, err2 := binary.ReadUvarint(ir)
		if err1 != nil || err2 != nil || unpadded > uint64(end) {
			return 0, errors.New("xz: bad index record")
		}
		p := (int64(unpadded) + 3) &^ 3
		padded = append(padded, p)
		blocks += p
		if blocks > end {
			return 0, errors.New("xz: index larger than the file")
		}
	}
	start := indexAt - blocks - xzHeaderLen
	if start < 0 {
		return 0, errors.New("xz: index larger than the file")
	}
	var head [xzHeaderLen]byte
	if _, err := r.ReadAt(head[:], start); err != nil || !bytes.Equal(head[:6], xzMagic) {
		return 0, errors.New("xz: no stream header where the index says")
	}
	at := start + xzHeaderLen
	for _, p := range padded {
		if err := checkXZBlockHeader(r, at); err != nil {
			return 0, err
		}
		at += p
	}
	return start, nil
}

// checkXZBlockHeader refuses a block whose LZMA2 dictionary is over
// maxXZDict.
func checkXZBlockHeader(r io.ReaderAt, at int64) error {
	var sizeByte [1]byte
	if _, err := r.ReadAt(sizeByte[:], at); err != nil {
		return fmt.Errorf("xz: block header: %w", err)
	}
	n := (int(sizeByte[0]) + 1) * 4
	if sizeByte[0] == 0 || n > xzMaxBlockHead {
		return errors.New("xz: bad block header")
	}
	h := make([]byte, n)
	if _, err := r.ReadAt(h, at); err != nil {
		return fmt.Errorf("xz: block header: %w", err)
	}
	br := bytes.NewReader(h[2:])
	flags := h[1]
	if flags&0x40 != 0 {
		if _, err := binary.ReadUvarint(br); err != nil {
			return errors.New("xz: bad block header")
		}
	}
	if flags&0x80 != 0 {
		if _, err := binary.ReadUvarint(br); err != nil {
			return errors.New("xz: bad block header")
		}
	}
	for range int(flags&3) + 1 {
		id, err1 := binary.ReadUvarint(br)
		propLen, err2 := binary.ReadUvarint(br)
		if err1 != nil || err2 != nil || propLen > uint64(br.Len()) {
			return errors.New("xz: bad block header")
		}
		props := make([]byte, propLen)
		_, _ = io.ReadFull(br, props)
		if id == xzFilterLZMA2 {
			if len(props) != 1 || props[0] > 40 {
				return errors.New("xz: bad LZMA2 properties")
			}
			if d := lzma2Dict(props[0]); d > maxXZDict {
				return fmt.Errorf("xz: dictionary of %d bytes, more than %d", d, maxXZDict)
			}
		}
	}
	return nil
}

// lzma2Dict is the dictionary size an LZMA2 properties byte declares.
func lzma2Dict(b byte) int64 {
	if b >= 40 {
		return 1<<32 - 1
	}
	return int64(2|b&1) << (b/2 + 11)
}
