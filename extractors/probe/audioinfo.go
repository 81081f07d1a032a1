package probe

import (
	"context"
	"fmt"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// audioinfo is the audio view of a file: the main audio stream's
// properties, every audio track, and the music tags (title, artist, album,
// ...). It reads the file's shared ffprobe reading; a file without audio is
// not its business (ErrUnsupported, recorded as nothing).
func init() {
	extractors.MustRegister(audioinfoInfo)
}

var audioinfoInfo = extractors.Info{
	Name:           "audioinfo",
	DisplayName:    "Audio Info",
	Family:         extractors.FamilyTechnical,
	Version:        "1.0.0",
	Implemented:    true,
	RangeReads:     true,
	DefaultEnabled: true,
	Tools:          []string{"ffprobe"},
	Accept:         acceptMIME(mediaMIME, mediaExts...),
	Fields: []extractors.Field{
		{Path: "codec", Type: extractors.TypeString, Doc: "codec of the main audio stream as ffprobe names it (aac, pcm_s16le, flac)"},
		{Path: "codec_long_name", Type: extractors.TypeString, Doc: "codec in words"},
		{Path: "format", Type: extractors.TypeString, Doc: "usual name of the codec (AAC, PCM, MPEG Audio, FLAC)"},
		{Path: "profile", Type: extractors.TypeString, Doc: "codec profile (LC, HE-AAC)"},
		{Path: "container", Type: extractors.TypeString, Doc: "container format as ffprobe names it (wav, ogg, mp3)"},
		{Path: "duration", Type: extractors.TypeNumber, Doc: "seconds of the main audio stream, 3 decimals"},
		{Path: "channels", Type: extractors.TypeNumber, Doc: "channel count"},
		{Path: "channel_layout", Type: extractors.TypeString, Doc: "channel layout (mono, stereo, 5.1(side))"},
		{Path: "sample_rate", Type: extractors.TypeNumber, Doc: "samples per second (Hz)"},
		{Path: "bit_depth", Type: extractors.TypeNumber, Doc: "bits per sample (PCM and lossless codecs)"},
		{Path: "bit_rate", Type: extractors.TypeNumber, Doc: "bits per second of the main audio stream"},
		{Path: "track_count", Type: extractors.TypeNumber, Doc: "audio streams in the file"},
		{Path: "tracks.index", Type: extractors.TypeNumber, Doc: "stream index in the container (list of the first 64 audio streams)"},
		{Path: "tracks.codec", Type: extractors.TypeString, Doc: "codec as ffprobe names it"},
		{Path: "tracks.channels", Type: extractors.TypeNumber, Doc: "channel count"},
		{Path: "tracks.channel_layout", Type: extractors.TypeString, Doc: "channel layout"},
		{Path: "tracks.sample_rate", Type: extractors.TypeNumber, Doc: "Hz"},
		{Path: "tracks.bit_depth", Type: extractors.TypeNumber, Doc: "bits per sample (PCM and lossless codecs)"},
		{Path: "tracks.bit_rate", Type: extractors.TypeNumber, Doc: "bits per second"},
		{Path: "tracks.language", Type: extractors.TypeString, Doc: "language tag"},
		{Path: "tracks.title", Type: extractors.TypeString, Doc: "title tag"},
		{Path: "tracks.default", Type: extractors.TypeBool, Doc: "marked default"},
		{Path: "title", Type: extractors.TypeString, Doc: "title tag"},
		{Path: "artist", Type: extractors.TypeString, Doc: "artist tag"},
		{Path: "album", Type: extractors.TypeString, Doc: "album tag"},
		{Path: "album_artist", Type: extractors.TypeString, Doc: "album artist tag"},
		{Path: "composer", Type: extractors.TypeString, Doc: "composer tag"},
		{Path: "genre", Type: extractors.TypeString, Doc: "genre tag"},
		{Path: "date", Type: extractors.TypeString, Doc: "date tag as written (a year, or a full date)"},
		{Path: "track", Type: extractors.TypeString, Doc: "track number tag as written (\"3\", \"3/12\")"},
		{Path: "disc", Type: extractors.TypeString, Doc: "disc number tag as written"},
		{Path: "comment", Type: extractors.TypeText, Doc: "comment tag"},
		{Path: "cover_art", Type: extractors.TypeBool, Doc: "the file carries a cover picture"},
	},
	New: newReader(readAudioinfo),
}

// readAudioinfo describes the shared ffprobe reading of the item.
func readAudioinfo(ctx context.Context, run *extractors.Runner, in *extractors.Input) (map[string]any, error) {
	p, err := av.Read(ctx, run, in)
	if err != nil {
		return nil, err
	}
	return describeAudioFile(p)
}

// musicTags are the tags audioinfo reports, by field name, with the other
// names containers give them (ID3, Vorbis comments, MP4, RIFF INFO as
// ffprobe spells them).
var musicTags = []struct {
	field string
	names []string
}{
	{"title", []string{"title"}},
	{"artist", []string{"artist", "author"}},
	{"album", []string{"album"}},
	{"album_artist", []string{"album_artist", "albumartist", "album artist"}},
	{"composer", []string{"composer"}},
	{"genre", []string{"genre"}},
	{"date", []string{"date", "year", "creation_date", "icrd"}},
	{"track", []string{"track", "tracknumber"}},
	{"disc", []string{"disc", "discnumber"}},
	{"comment", []string{"comment", "description"}},
}

// maxTagLength bounds each tag's text: a tag is a name, not a document.
const maxTagLength = 4096

// describeAudioFile turns an ffprobe reading into audioinfo's data; a
// reading without an audio stream gives ErrUnsupported.
func describeAudioFile(p *av.Probe) (map[string]any, error) {
	main := mainAudio(p)
	if main == nil {
		return nil, fmt.Errorf("no audio stream: %w", extractors.ErrUnsupported)
	}
	d := obj{}
	d.str("codec", main.CodecName)
	d.str("codec_long_name", main.CodecLongName)
	d.str("format", formatName(main))
	d.str("profile", main.Profile)
	d.str("container", p.Format.FormatName)
	d.seconds("duration", streamDuration(p, main))
	d.count("channels", int64(main.Channels))
	d.str("channel_layout", main.ChannelLayout)
	d.count("sample_rate", av.Int(main.SampleRate))
	d.count("bit_depth", int64(main.AudioBitDepth()))
	d.count("bit_rate", streamBitRate(main))

	var tracks []any
	count, cover := 0, false
	for i := range p.Streams {
		s := &p.Streams[i]
		if s.Disposition["attached_pic"] != 0 {
			cover = true
		}
		if s.CodecType != "audio" {
			continue
		}
		count++
		if len(tracks) >= maxStreamsListed {
			continue
		}
		t := obj{"index": s.Index, "default": s.IsDefault()}
		t.str("codec", s.CodecName)
		t.count("channels", int64(s.Channels))
		t.str("channel_layout", s.ChannelLayout)
		t.count("sample_rate", av.Int(s.SampleRate))
		t.count("bit_depth", int64(s.AudioBitDepth()))
		t.count("bit_rate", streamBitRate(s))
		t.str("language", s.Language())
		t.str("title", s.Title())
		tracks = append(tracks, t)
	}
	d["track_count"] = count
	d["tracks"] = tracks
	d["cover_art"] = cover

	// Tags: the container's first (ID3, MP4, RIFF), then the main
	// stream's (Vorbis comments of Ogg and FLAC-in-Ogg live there).
	for _, t := range musicTags {
		for _, tags := range []map[string]string{p.Format.Tags, main.Tags} {
			v := ""
			for _, name := range t.names {
				if v = av.Tag(tags, name); v != "" {
					break
				}
			}
			if v != "" {
				if len(v) > maxTagLength {
					v = v[:maxTagLength]
				}
				d.str(t.field, v)
				break
			}
		}
	}
	return d, nil
}
