package broadcast

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// analysis is one extractor of the family. They differ only by the stream
// they need and by what they read of the shared pass (pass.go): each
// keeps its registration and its reading in a file of its own, and
// registers through register.
type analysis struct {
	run    *extractors.Runner
	name   string
	stream stream
	read   func(p *pass) (map[string]any, error)
}

var _ extractors.Extractor = analysis{}

// stream is what an analysis needs of a file.
type stream int

const (
	picture stream = iota // a moving picture (not only a cover or a still)
	sound                 // an audio stream
	either                // a moving picture or an audio stream
)

// register registers an analysis of the family: info names it, says
// whether a new installation enables it and declares its fields; what the
// analyses share (ffmpeg and ffprobe, the time limit, Accept by the stream
// they need, the pass) is set here.
func register(info extractors.Info, s stream, read func(p *pass) (map[string]any, error)) {
	info.Implemented = true
	info.Tools = []string{"ffmpeg", "ffprobe"}
	info.Timeout = timeout
	info.Accept = extractors.AcceptMIME(soundTypes)
	if s == picture {
		info.Accept = extractors.AcceptMIME(videoTypes)
	}
	name := info.Name
	info.New = func(env extractors.Env) (extractors.Extractor, error) {
		return analysis{run: env.Runner, name: name, stream: s, read: read}, nil
	}
	extractors.MustRegister(info)
}

// Extract reads the file's shared ffprobe reading, refuses a file without
// the stream the analysis needs (ErrUnsupported, recorded as nothing), and
// reads the shared pass.
func (x analysis) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	probe, err := av.Read(ctx, x.run, in)
	if err != nil {
		return nil, err
	}
	switch {
	case x.stream == picture && !hasVideo(probe):
		return nil, fmt.Errorf("no video stream: %w", extractors.ErrUnsupported)
	case x.stream == sound && !hasAudio(probe):
		return nil, fmt.Errorf("no audio stream: %w", extractors.ErrUnsupported)
	case x.stream == either && !hasVideo(probe) && !hasAudio(probe):
		return nil, fmt.Errorf("no audio or video stream: %w", extractors.ErrUnsupported)
	}
	p, err := analyse(ctx, x.run, in, probe, x.name)
	if err != nil {
		return nil, err
	}
	data, err := x.read(p)
	if err != nil {
		return nil, err
	}
	return &extractors.Result{Data: data}, nil
}

// analysedField declares the decoded duration every analysis stores, of
// the stream it reads ("video", "audio").
func analysedField(of string) extractors.Field {
	return extractors.Field{Path: "analysed_duration", Type: extractors.TypeNumber, Doc: "seconds of " + of + " decoded (at most the first 4 hours)"}
}

// summaryFields declares what summaryData writes: the count of what is
// listed (counted, "black stretches"), the total ("seconds of black"),
// the decoded duration of the stream read, and the ranges under listKey.
func summaryFields(listKey, counted, totalOf, decoded string) []extractors.Field {
	return []extractors.Field{
		{Path: "count", Type: extractors.TypeNumber, Doc: counted + " of at least 0.5 s"},
		{Path: "total_duration", Type: extractors.TypeNumber, Doc: "seconds of " + totalOf + " in all"},
		analysedField(decoded),
		{Path: listKey + ".start", Type: extractors.TypeNumber, Doc: "seconds"},
		{Path: listKey + ".end", Type: extractors.TypeNumber, Doc: "seconds"},
		{Path: listKey + ".duration", Type: extractors.TypeNumber, Doc: "seconds"},
	}
}
