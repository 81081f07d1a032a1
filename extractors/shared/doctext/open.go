package doctext

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/metaharvest/metaharvest/extractors"
)

// Open returns the item's bytes: Input.Content when the worker read the
// file already, else the file at Input.Path. Failing to open the file is
// Transient (it says nothing about the content).
func Open(in *extractors.Input) (io.ReadCloser, error) {
	if in.Content != nil {
		return io.NopCloser(bytes.NewReader(in.Content)), nil
	}
	if extractors.IsRangeURL(in.Path) {
		return openURL(in)
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("open %s: %w", in.Name, err))
	}
	return f, nil
}

// ReadAll returns at most max bytes of the item and whether there was more.
// Read errors are Transient.
func ReadAll(in *extractors.Input, max int64) (b []byte, more bool, err error) {
	if in.Content != nil {
		if int64(len(in.Content)) > max {
			return in.Content[:max], true, nil
		}
		return in.Content, false, nil
	}
	f, err := Open(in)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err = io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, extractors.Transient(fmt.Errorf("read %s: %w", in.Name, err))
	}
	if int64(len(b)) > max {
		return b[:max], true, nil
	}
	return b, false, nil
}

// ReadErr wraps a read error of the item's bytes: Transient when the file
// itself failed (not the decoding of its content).
func ReadErr(name string, err error) error {
	return extractors.Transient(fmt.Errorf("read %s: %w", name, err))
}

// At is an item's bytes for random access (a zip's directory at its end,
// a 7z header): Input.Content when the worker read the file already, else
// the file at Input.Path, whose Size is what the file holds, not what the
// storage said.
type At struct {
	io.ReaderAt
	Size int64
	// Info describes the file (nil for Content), for readers that take
	// regular files only.
	Info fs.FileInfo
	file *os.File
}

// OpenAt opens the item for random access; the caller closes it. Failing
// to open or stat the file is Transient.
func OpenAt(in *extractors.Input) (*At, error) {
	if in.Content != nil {
		return &At{ReaderAt: bytes.NewReader(in.Content), Size: int64(len(in.Content))}, nil
	}
	if extractors.IsRangeURL(in.Path) {
		return openURLAt(in)
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("open %s: %w", in.Name, err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, extractors.Transient(fmt.Errorf("stat %s: %w", in.Name, err))
	}
	return &At{ReaderAt: f, Size: fi.Size(), Info: fi, file: f}, nil
}

// Close closes the file (nothing to do for Content).
func (a *At) Close() error {
	if a.file == nil {
		return nil
	}
	return a.file.Close()
}

// Counter counts the bytes read through it: what a decoder consumed of a
// compressed stream, or a parser of a file.
type Counter struct {
	R io.Reader
	N int64
}

func (c *Counter) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
