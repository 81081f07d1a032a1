package documents

import (
	"context"
	"errors"
	"io"
	"math"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/doctext"
)

// uncapped is the cap of an extractor that bounds what it keeps, not what
// it reads (dbf reads the records its header declares, email bounds each
// message itself).
const uncapped = math.MaxInt64

// source is the item's content as the extractors of this package stream
// it: at most max bytes of it (Cut says afterwards whether the cap was
// reached), and the read error of the file (Err), told apart from a
// decoder's verdict on the content: failing to read says nothing about the
// file, and is Transient.
type source struct {
	name string
	file io.ReadCloser
	lr   io.LimitedReader
	err  error
}

// openSource opens the item (doctext.Open) for reading at most max bytes.
func openSource(in *extractors.Input, max int64) (*source, error) {
	f, err := doctext.Open(in)
	if err != nil {
		return nil, err
	}
	return &source{name: in.Name, file: f, lr: io.LimitedReader{R: f, N: max}}, nil
}

func (s *source) Read(p []byte) (int, error) {
	n, err := s.lr.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}

func (s *source) Close() error { return s.file.Close() }

// Cut reports whether the cap was reached: the file may hold more.
func (s *source) Cut() bool { return s.lr.N <= 0 }

// Err is the read error of the file (Transient), or nil.
func (s *source) Err() error {
	if s.err == nil {
		return nil
	}
	return doctext.ReadErr(s.name, s.err)
}

// markCut says of data that its file was cut at the cap: the verdict on
// what was read (valid, error) proves nothing about the whole, and the
// file holds more text than was kept.
func markCut(data map[string]any) {
	delete(data, "valid")
	delete(data, "error")
	data["text_truncated"] = true
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
// reads at most max bytes of the item. A read error of the file is
// Transient (walk's own Transient error stands), and data of a file cut
// at the cap is marked so (markCut).
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
	if err != nil {
		return nil, err
	}
	if src.Cut() {
		markCut(data)
	}
	return &extractors.Result{Data: data}, nil
}
