package extractors

import (
	"context"
	"encoding/json"
	"time"
)

// Extractor turns one file into metadata. Implementations must honour ctx (Run
// gives each extractor its own time limit through it), keep memory bounded
// whatever the input, and start external programs only through RunTool or Cmd.
// An Extractor value is used for one Extract call at a time; the registry's New
// makes a fresh one per run.
type Extractor interface {
	Extract(ctx context.Context, in *Input) (*Result, error)
}

// Info describes an extractor known by its API name.
type Info struct {
	// Name is the API name of the reference ("mediainfo", "hashes").
	Name string
	// DisplayName is the human name shown in extractor lists and error reports.
	DisplayName string
	// Version of the extractor's output; bumped when the shape or the meaning of
	// its Data changes, so that items can be harvested again with the new version.
	Version string
	// Tools are the executables the extractor runs, looked up on PATH.
	Tools []string
	// Provider names the external service the extractor needs besides its tools
	// ("weather", "geocoding", "vendor"); empty when it needs none. Availability of
	// a provider is a matter of configuration, checked by whoever configures it,
	// not by Registry.Available.
	Provider string
	// Implemented is false for API names whose implementation comes in a later
	// release; such extractors are known (settings, profiles and harvest requests
	// may name them) but never run.
	Implemented bool
	// DefaultEnabled says whether a new installation enables the extractor.
	DefaultEnabled bool
	// New returns a fresh extractor; nil when not Implemented.
	New func() Extractor
}

// Input is the file an extractor works on.
type Input struct {
	// ItemID is the id of the item being harvested.
	ItemID string
	// Name is the file name of the item as the storage knows it.
	Name string
	// Path is a local path of the file's content, always set: the worker
	// downloads to a temporary file when the storage has no local path. The name
	// of that file says nothing about the item: use Name.
	Path string
	// Size of the item in bytes as the storage reports it; negative if unknown.
	Size int64
	// Content is the whole file when the worker has read it already (small
	// files: one read serves every extractor); nil otherwise. Extractors that
	// read the bytes themselves use it when set; Path is set either way.
	Content []byte
	// ArtifactDir is where the extractor may write artifacts (thumbnails, frames).
	// It may not exist yet: an extractor that writes artifacts creates it with
	// os.MkdirAll first (most items produce none, and a directory per item is a
	// measurable cost on folders of small files). The caller owns its lifetime.
	ArtifactDir string
	// Prior holds the JSON-encoded Data of the extractors that ran before in this
	// harvest, by extractor name.
	Prior map[string]json.RawMessage
}

// Result is what one extractor found.
type Result struct {
	// Data is stored on the item under the extractor name; it must encode as JSON.
	Data map[string]any
	// Artifacts lists the files the extractor wrote below Input.ArtifactDir.
	Artifacts []Artifact
}

// Artifact is a file written by an extractor, such as a thumbnail or a frame.
type Artifact struct {
	// Path is relative to Input.ArtifactDir, slash-separated, without "..".
	Path string
	// Kind says what the file is ("thumbnail", "frame", "preview").
	Kind string
	// Width and Height in pixels, for images and videos; 0 otherwise.
	Width, Height int
}

// Outcome is the result of running one extractor by Run.
type Outcome struct {
	// Name is the extractor's API name.
	Name string
	// Data and Artifacts are the extractor's Result; nil when Err is set.
	Data      map[string]any
	Artifacts []Artifact
	// JSON is Data encoded (compact), once, for storing; nil when Err is set.
	JSON json.RawMessage
	// Err is nil on success. See IsTransient and ErrUnsupported for how to treat it.
	Err error
	// Started is when the extractor began; Duration is the wall time it
	// took (or until it was given up).
	Started  time.Time
	Duration time.Duration
}
