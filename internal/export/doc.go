// Package export writes what leaves the platform for other tools: a
// search's results as CSV or JSON lines (streamed a page at a time through
// the engine's cursor, with the caller's visibility, for up to MaxResults
// results in bounded memory), a compilation as a shot list (CSV), a CMX
// 3600 edit decision list or OpenTimelineIO JSON, and a picture's
// metadata as an XMP sidecar.
//
// The api serves them (api/exports.go) and the web pages link to
// those routes; nothing here reads a request or the database: callers pass
// an engine, the clips of a compilation (store.ClipSources) or an item's
// metadata. Every text that came from a file or a user (names, paths,
// titles, captions) is written as data of its format: CSV quoting with
// formula-looking cells neutralised, no line breaks inside an EDL line,
// JSON and XML escaping.
package export
