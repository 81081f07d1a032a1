package documents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/doctext"
)

// uncapped is the cap of an extractor that bounds what it keeps, not what
// it reads (dbf reads the records its header declares, email bounds each
// message itself).
const uncapped = math.MaxInt64

// source is the item's content as the extractors of this package stream
// it: at most max bytes of it (Over says afterwards whether the file held
// more), and the read error of the file (Err), told apart from a decoder's
// verdict on the content: failing to read says nothing about the file,
// and is Transient.
type source struct {
	name string
	max  int64
	file io.ReadCloser
	lr   io.LimitedReader
	err  error
}

// openSource opens the item (doctext.Open) for reading at most max bytes
// (and one more, to tell a file of max bytes from a longer one). A file
// the storage says is longer than max is refused before it is opened
// (tooLarge).
func openSource(in *extractors.Input, max int64) (*source, error) {
	if max != uncapped && in.Size > max {
		return nil, tooLarge(in.Size, max)
	}
	f, err := doctext.Open(in)
	if err != nil {
		return nil, err
	}
	limit := max
	if max != uncapped {
		limit++
	}
	return &source{name: in.Name, max: max, file: f, lr: io.LimitedReader{R: f, N: limit}}, nil
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.lr.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}

func (s *source) Close() error { return s.file.Close() }

// Over reports whether the file holds more than max bytes: the parser did
// not read all of it.
func (s *source) Over() bool { return s.max != uncapped && s.lr.N <= 0 }

// Err is the read error of the file (Transient), or nil.
func (s *source) Err() error {
	if s.err == nil {
		return nil
	}
	return doctext.ReadErr(s.name, s.err)
}

// tooLarge is the error of a document larger than its parser reads: the
// verdict on a part (valid or not, the text and counts) would pass for the
// whole, so the extractor fails, deterministically, keeping nothing. It
// is not the text cap (doctext.MaxText), which keeps the text so far of a
// file read whole.
func tooLarge(size, max int64) error {
	if size > max {
		return fmt.Errorf("document too large: %d bytes, over the %d MiB this extractor parses", size, max>>20)
	}
	return fmt.Errorf("document too large: over the %d MiB this extractor parses", max>>20)
}

// openText opens the item and decodes its text to UTF-8 from the encoding
// doctext.NewReader detects at its start; the caller closes f.
func openText(in *extractors.Input) (r io.Reader, enc doctext.Detected, f io.Closer, err error) {
	file, err := doctext.Open(in)
	if err != nil {
		return nil, enc, nil, err
	}
	r, enc, err = doctext.NewReader(file)
	if err != nil {
		file.Close()
		return nil, enc, nil, doctext.ReadErr(in.Name, err)
	}
	return r, enc, file, nil
}

// walker is a streaming extractor of the package (json, xml, fdx): walk
// reads the item, which must hold at most max bytes (tooLarge). A read
// error of the file is Transient (walk's own Transient error stands).
type walker struct {
	max  int64
	walk func(ctx context.Context, r io.Reader) (map[string]any, error)
}

func (x walker) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	src, err := openSource(in, x.max)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	data, err := x.walk(ctx, src)
	if rerr := src.Err(); rerr != nil && !extractors.IsTransient(err) {
		return nil, rerr
	}
	if src.Over() && !extractors.IsTransient(err) {
		return nil, tooLarge(-1, x.max)
	}
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: data}, nil
}
