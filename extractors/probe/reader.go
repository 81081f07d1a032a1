package probe

import (
	"context"

	"github.com/metaharvest/metaharvest/extractors"
)

// reader is an extractor of the family: a read function of the item's
// shared readings (av.Read, mp4Of, tsOf, or the bytes themselves) that
// describes what it found. Each extractor keeps its registration and its
// read function in its own file.
type reader struct {
	run  *extractors.Runner
	read readFunc
}

// readFunc reads an item with the process's Runner and returns the
// extractor's data.
type readFunc func(ctx context.Context, run *extractors.Runner, in *extractors.Input) (map[string]any, error)

var _ extractors.Extractor = reader{}

// newReader is the Info.New of the extractor that read is.
func newReader(read readFunc) func(env extractors.Env) (extractors.Extractor, error) {
	return func(env extractors.Env) (extractors.Extractor, error) {
		return reader{run: env.Runner, read: read}, nil
	}
}

func (x reader) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	d, err := x.read(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: d}, nil
}
