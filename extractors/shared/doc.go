// Package shared is only a folder: its sub-packages hold what several
// extractor families share (av: one ffprobe reading and safe ffmpeg
// arguments; doctext: text bounds, encodings and the reading of an item's
// bytes; gazetteer: the embedded world atlas; langid: language
// identification; provider: the one client of third-party analysis
// services). The families themselves are extractors/<family>; the package
// linking them all into the default registry is extractors/families, and
// the extractors' test kit is extractors/extractortest.
package shared
