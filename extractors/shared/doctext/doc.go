// Package doctext holds what the document extractors (extractors/documents,
// extractors/office, extractors/pdf) share about text: the cap on the text
// one extractor reports (MaxText, 256 KiB, with "text_truncated": true when
// cut), the detection of a plain text file's encoding (UTF-8, UTF-16 with
// or without byte order mark, otherwise the single-byte code page its text
// reads best in: Latin-1 / Windows-1252, Central European, Cyrillic, Greek
// or Turkish), and the
// one way they read an item's bytes (Input.Content when the worker read
// the file already, the file at Input.Path otherwise): streamed (Open,
// ReadAll) or for random access (OpenAt, which extractors/archive reads
// its archives with too), and Counter, the byte count of a stream read.
//
// Cut, the prefix of a text that does not split a character, is the one
// way every extractor family bounds the text it keeps.
package doctext
