package extractors

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// Extractor turns one file into metadata. Implementations must honour ctx (Run
// gives each extractor its own time limit through it), keep memory bounded
// whatever the input, and start external programs only through a Runner.
//
// One Extractor value is made per process by Info.New and used by many
// harvests at once: Extract must be safe for concurrent use. Extractors that
// hold resources (a long-lived exiftool, a loaded model) implement io.Closer;
// Registry.Close closes them.
type Extractor interface {
	Extract(ctx context.Context, in *Input) (*Result, error)
}

// Info describes an extractor known by its API name.
type Info struct {
	// Name is the API name of the reference ("mediainfo", "hashes").
	Name string
	// DisplayName is the human name shown in extractor lists and error reports.
	DisplayName string
	// Family groups the extractor with others by what it tells about a
	// file (family.go); Register refuses an Info without a known family.
	Family Family
	// Version of the extractor's output; bumped when the shape or the meaning of
	// its Data changes, so that items can be harvested again with the new version.
	Version string
	// Tools are the executables the extractor runs, looked up on PATH.
	Tools []string
	// Provider names the external service the extractor needs besides its
	// tools ("weather", "vendor"); empty when it needs none. A provider is
	// reached through Settings (its key, its URL): a Required setting that is
	// not set makes the extractor unavailable ("not available: ... not set").
	Provider string
	// Implemented is false for an API name whose implementation has not
	// landed (a placeholder, declared once by its family with its name,
	// family and version): it is known (settings, profiles and harvest
	// requests may name it) but never runs, and Available says "not
	// implemented in this release". Registering an implemented Info under a
	// placeholder's name replaces the placeholder. Every extractor of the
	// reference is implemented today.
	Implemented bool
	// DefaultEnabled says whether a new installation enables the extractor.
	DefaultEnabled bool
	// Always marks the base extractors (store, mime_type): every harvest runs
	// them, first, whatever was requested, and every other extractor runs
	// after them and finds their data in Input.Prior.
	Always bool
	// Inline: on a file handed in memory (Input.Content), the extractor's
	// work is small and bounded (a hash, a look at the first bytes), so it
	// runs in the caller's goroutine, without a timer of its own (a panic
	// is still recovered and recorded): for folders of small files these
	// are most of what a harvest does. An Inline extractor writes no files
	// (no artifacts, nothing below Input.ArtifactDir): the worker does not
	// look for a temporary directory of an item whose extractors are all
	// Inline (Registry.Access).
	Inline bool
	// RangeReads: the extractor reads the file only through av.InputArgs
	// (ffmpeg, ffprobe) and doctext.OpenAt (Go parsers), or through
	// Content, so that it also runs on a remote object served by ranges
	// on loopback (Input.Path is then an http URL, see IsRangeURL): a
	// harvest whose extractors are all Inline or RangeReads reads the few
	// ranges they look at instead of downloading the object.
	RangeReads bool
	// After names extractors whose data this one reads from Input.Prior (or
	// whose artifacts it reads, such as the frames of video_main_frames).
	// When both run in a harvest, they run first. A name that is not
	// requested is simply absent from Prior.
	After []string
	// Needs names extractors that produce what this one reads (tokens
	// reads the words text extracts). A harvest that selects this one
	// selects them too, transitively (Registry.WithNeeds), and runs them
	// first as if named in After: a client that asks for tokens need not
	// know the name text. Cycles are refused by Register.
	Needs []string
	// Accept says whether the extractor handles a file, judged on its name,
	// size and MIME type (mime_type's result). Files it does not accept are
	// skipped without running it and without an activity row: a harvest
	// with forty extractors costs a file of another type nothing. Nil
	// accepts every file.
	Accept func(f File) bool
	// Timeout is the extractor's own time limit on one file; zero means the
	// platform's EXTRACTOR_TIMEOUT. Analyses that decode whole videos set a
	// longer one.
	Timeout time.Duration
	// Fields declares the data the extractor writes, by path below its name
	// ("video.duration" of mediainfo is the search field
	// "mediainfo.video.duration"): the search catalogue, the OpenAPI
	// description of item metadata and the summaries read this declaration.
	Fields []Field
	// Settings are the configuration the extractor reads from the
	// environment (provider keys, languages, limits), given to New in Env.
	Settings []Setting
	// Check, when set, says cheaply (starting nothing) whether the
	// extractor can be made here with env's settings: a sidecar installed,
	// say. Its error makes the extractor unavailable, as a missing tool
	// does, so that profiles skip it and a request naming it records "not
	// available: <error>".
	Check func(env Env) error
	// New makes the extractor, once per process, the first time it is
	// needed. An error makes it unavailable for the life of the process
	// with that error as the reason. Nil when not Implemented.
	New func(env Env) (Extractor, error)
}

// File is what Accept judges a file on.
type File struct {
	// Name is the file name; Ext its lower-case extension without the dot.
	Name, Ext string
	// MIME is the type mime_type detected ("" when it did not run or failed).
	MIME string
	// Size in bytes; negative if unknown.
	Size int64
}

// AcceptMIME returns an Accept function that takes files whose MIME type
// starts with one of prefixes ("video/", "audio/", "image/jpeg") or whose
// extension is one of exts (lower case, no dot).
func AcceptMIME(prefixes []string, exts ...string) func(File) bool {
	return func(f File) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(f.MIME, p) {
				return true
			}
		}
		for _, e := range exts {
			if f.Ext == e {
				return true
			}
		}
		return false
	}
}

// Input is the file an extractor works on.
type Input struct {
	// ItemID is the id of the item being harvested.
	ItemID string
	// Name is the file name of the item as the storage knows it.
	Name string
	// Path is a local path of the file's content: the worker downloads to a
	// temporary file when the storage has no local path. The name of that
	// file says nothing about the item: use Name. For a remote object it
	// is empty when every extractor of the harvest is Inline (the content
	// is in Content or Stream: no copy on disk), and a loopback URL
	// serving byte ranges (IsRangeURL) when every one is Inline or
	// RangeReads.
	Path string
	// Size of the item in bytes as the storage reports it; negative if unknown.
	Size int64
	// MIME is the type the mime_type extractor detected, set by Run once it
	// has run ("" before, or when it failed).
	MIME string
	// Content is the whole file when the worker has read it already (small
	// files: one read serves every extractor); nil otherwise. Extractors that
	// read the bytes themselves use it when set; Path is set either way.
	Content []byte
	// Stream reads the content from its start when Path is empty and
	// Content nil: Inline extractors then read it (once: a second call may
	// fetch the object again). limit is the most bytes the caller will read
	// (< 0: all of them), so that a look at the first bytes does not start
	// a transfer of the whole object. Errors are Transient.
	Stream func(ctx context.Context, limit int64) (io.ReadCloser, error)
	// ArtifactDir is where the extractor may write artifacts (thumbnails,
	// frames): the item's artifact directory as given to Run (the worker's
	// temporary directory of this harvest of the item, whose listed files
	// it publishes to the artifact store afterwards), plus the extractor's
	// name, so that a harvest running some extractors again replaces their
	// artifacts and keeps the others'. It may not exist yet:
	// an extractor that writes artifacts creates it with os.MkdirAll first
	// (most items produce none, and a directory per item is a measurable cost
	// on folders of small files). The caller owns its lifetime.
	ArtifactDir string
	// Prior holds the JSON-encoded Data of the extractors that ran before in this
	// harvest, by extractor name.
	Prior map[string]json.RawMessage
	// Requested are the extractors of this harvest of the file, so that a
	// shared pass (one ffmpeg decode) computes what every one of them needs.
	Requested []string
	// Siblings lists the files next to the item (sidecars such as
	// clip.en.srt for clip.mp4); nil when the storage cannot list them
	// (remote locations), in which case an extractor reports no sidecars.
	// See Sibling for what it returns and its bounds.
	Siblings func(ctx context.Context, exts []string) ([]Sibling, error)

	shared       *sharedWork
	artifactRoot string
}

// ArtifactsOf is the artifact directory of another extractor of the same
// item (the frames of video_main_frames, read by faces and OCR): the paths
// that extractor reports in its Data are relative to it.
func (in *Input) ArtifactsOf(name string) string {
	root := in.artifactRoot
	if root == "" {
		root = filepath.Dir(in.ArtifactDir)
	}
	return filepath.Join(root, name)
}

// Wants reports whether the named extractor is requested in this harvest.
func (in *Input) Wants(name string) bool {
	for _, n := range in.Requested {
		if n == name {
			return true
		}
	}
	return false
}

// Result is what one extractor found.
type Result struct {
	// Data is stored on the item under the extractor name; it must encode as JSON.
	Data map[string]any
	// Artifacts lists the files the extractor wrote below Input.ArtifactDir.
	Artifacts []Artifact
	// Segments are analysed moments of a video. The segments of every
	// extractor of an item are merged by time (to the millisecond) into the
	// item's Segment records; a harvest replaces the segments an extractor
	// gave before.
	Segments []Segment
	// Captions are timed transcripts (subtitle tracks, sidecar files,
	// speech), stored as the item's Caption records; a harvest replaces the
	// captions an extractor gave before.
	Captions []Caption
	// Faces are the descriptors of faces the extractor found
	// (vendor_faces), stored apart from Data in the face_descriptors
	// table, never in a search document; a harvest replaces the faces an
	// extractor gave before.
	Faces []FaceDescriptor
}

// FaceDescriptor is a face an extractor described: which entry of its
// Data "faces" list it is, and the descriptor (facedesc.Quantize's bytes).
type FaceDescriptor struct {
	// Face is the index of the face in the extractor's Data "faces".
	Face int
	// PersonID is the person of the item the face belongs to.
	PersonID string
	// Time is the video frame's time in seconds; nil for a picture.
	Time *float64
	// Box is the face's rectangle in the upright picture or the frame.
	Box Rectangle
	// Thumbnail is the crop of the face, relative to Input.ArtifactDir
	// ("" when none).
	Thumbnail string
	// Model names what made the descriptor.
	Model string
	// Descriptor is the stored form of the descriptor (internal/facedesc).
	Descriptor []byte
}

// Artifact is a file written by an extractor, such as a thumbnail or a frame.
type Artifact struct {
	// Path is relative to Input.ArtifactDir, slash-separated, without "..".
	Path string
	// Kind says what the file is ("thumbnail", "sprite", "frame", "preview", "face").
	Kind string
	// Width and Height in pixels, for images and videos; 0 otherwise.
	Width, Height int
}

// Outcome is the result of running one extractor by Run.
type Outcome struct {
	// Name is the extractor's API name.
	Name string
	// Data, Artifacts, Segments, Captions and Faces are the extractor's Result;
	// nil when Err is set.
	Data      map[string]any
	Artifacts []Artifact
	Segments  []Segment
	Captions  []Caption
	Faces     []FaceDescriptor
	// JSON is Data encoded (compact), once, for storing; nil when Err is set.
	JSON json.RawMessage
	// Err is nil on success. See IsTransient and ErrUnsupported for how to treat it.
	Err error
	// Started is when the extractor began; Duration is the wall time it
	// took (or until it was given up).
	Started  time.Time
	Duration time.Duration
}
