package av

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
)

// The extractors that need a stream read the shared reading through these:
// a file without that stream is not theirs (ErrUnsupported, recorded as
// nothing), and they get the stream with the reading.

// ReadVideo is Read and the file's first video stream (a cover picture is
// not one; a still picture is).
func ReadVideo(ctx context.Context, run *extractors.Runner, in *extractors.Input) (*Probe, *Stream, error) {
	p, err := Read(ctx, run, in)
	if err != nil {
		return nil, nil, err
	}
	v := p.Video()
	if v == nil {
		return nil, nil, fmt.Errorf("no video stream: %w", extractors.ErrUnsupported)
	}
	return p, v, nil
}

// ReadMoving is Read and the file's moving picture: its first video
// stream, when the file is not a still picture.
func ReadMoving(ctx context.Context, run *extractors.Runner, in *extractors.Input) (*Probe, *Stream, error) {
	p, err := Read(ctx, run, in)
	if err != nil {
		return nil, nil, err
	}
	v := p.Video()
	if v == nil || p.IsStill() {
		return nil, nil, fmt.Errorf("no moving picture: %w", extractors.ErrUnsupported)
	}
	return p, v, nil
}

// ReadAudio is Read and the file's first audio stream.
func ReadAudio(ctx context.Context, run *extractors.Runner, in *extractors.Input) (*Probe, *Stream, error) {
	p, err := Read(ctx, run, in)
	if err != nil {
		return nil, nil, err
	}
	a := p.Audio()
	if a == nil {
		return nil, nil, fmt.Errorf("no audio stream: %w", extractors.ErrUnsupported)
	}
	return p, a, nil
}
