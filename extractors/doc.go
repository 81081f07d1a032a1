// Package extractors is the extractor framework of metaharvest: the Extractor
// interface that turns one file into metadata, the registry that knows every
// extractor API name of the reference (implemented or not yet) and makes the
// extractors a process runs, the runner the worker uses to run a list of
// extractors on one item with a time limit each, and Runner, the one way an
// extractor starts an external program (Run for one file, Start for a
// long-lived helper that serves many, such as exiftool -stay_open).
//
// # Registration
//
// Every extractor registers itself from an init function, as Caddy modules and
// benthos plugins do, and declares what it needs and what it writes:
//
//	func init() {
//		extractors.MustRegister(extractors.Info{
//			Name: "mediainfo", DisplayName: "Media Info", Family: extractors.FamilyTechnical,
//			Version: "1.0.0", Implemented: true, DefaultEnabled: true,
//			Tools:  []string{"ffprobe"},
//			Accept: extractors.AcceptMIME([]string{"video/", "audio/"}),
//			Fields: []extractors.Field{{Path: "video.duration", Type: extractors.TypeNumber, Doc: "seconds"}},
//			New:    func(env extractors.Env) (extractors.Extractor, error) { return &mediainfo{run: env.Runner}, nil },
//		})
//	}
//
// That declaration is the one place an extractor is described: the registry
// (Default) is the one list of extractors, read by the extractor list of the
// API, the table of docs/extractors.md (checked by extractors/families), the
// search catalogue and the web UI, which groups an item's metadata by Family
// (family.go). Register refuses an Info without a known Family.
//
// The base extractors (store, mime_type, hashes) live in this package; the
// others in sub-packages (extractors/probe for mediainfo and its kin,
// extractors/images for exiv2 and thumbnailer, extractors/broadcast,
// extractors/ocr, extractors/documents ... see extractors/families, which
// links them all into the binary). Code the families share lives apart,
// under extractors/shared: av (the one ffprobe reading of a file), doctext
// (documents' text: its cap, its encoding, reading an item's bytes),
// provider (the client of the provider services and the samples sent to
// them), gazetteer (the world atlas) and langid. The families' test kit is
// extractors/extractortest.
//
// The base extractors store and mime_type are Always run, first;
// an extractor that reads another's data names it in After (or in Needs,
// when a harvest naming it must run the other too).
// Accept lets a harvest skip files an extractor does not handle without
// running it or recording anything. Fields are the search catalogue (a
// declared field filters before any document has it) and are checked by
// extractortest.Suite against what the extractor really writes.
//
// Settings declare what an extractor reads from the environment (provider
// keys, languages, limits) with a kind, a default and bounds (settings.go).
// Register refuses a malformed declaration; Configure checks the values
// once at start and logs each bad one in the one format of Setting.Check
// ("setting DOCUMENT_PAGES_MAX_PAGES = "0": want a whole number from 1 to
// 1000"); New reads them with Env.Int, Env.Number and Env.Choice, never
// parsing by hand. New is called once per process, with those settings and
// the shared Runner; the extractor it returns serves every harvest of the
// process concurrently. An extractor whose Required settings are unset,
// whose settings hold a bad value, or whose New fails, is not available:
// harvests that ask for it record "not available: <reason>".
//
// # Errors
//
// Every error an extractor returns is deterministic (the same file gives the same
// error again, so the worker records it and does not retry, asynq.SkipRetry)
// unless it is wrapped with Transient, which marks failures of the environment
// rather than of the file (a read error on a network mount, a provider that timed
// out, a harvest cancelled half way). ErrUnsupported says the extractor does not
// handle this file after all (an MP4 without an audio track for a loudness
// analysis): it is not a failure, is recorded as nothing, and is never retried.
// Run wraps a panic of an extractor into a PanicError, so a crashing parser
// costs one outcome and not the worker.
//
// # Results
//
// Result.Data is stored on the item under the extractor's name and must encode
// as JSON; Run checks that, and passes the encoded results of earlier extractors
// of the same harvest to later ones in Input.Prior. Artifacts are files the
// extractor wrote below its Input.ArtifactDir (one directory per extractor
// and item), named relative to it. Segments (analysed moments of a video) and
// Captions (timed transcripts) are typed and stored beside the item; the
// segments of all extractors are merged by time into the item's Segment
// records. Input.Shared lets the extractors of one file share one expensive
// pass (one ffprobe reading, one ffmpeg decode).
//
// Extensions (store.extension, mime_type.extension) are lower case without the
// leading dot ("jpg"), so that a search filter does not need to know about dots.
package extractors
