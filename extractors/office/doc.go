// Package office holds the officex extractor: the text, sheet names, slide
// titles and document properties of Office Open XML files (docx, xlsx,
// pptx and their macro and template variants) and OpenDocument files (odt,
// ods, odp, odg), read with archive/zip and encoding/xml.
//
// Both formats are zip archives of XML parts, so the package guards
// against zip bombs before it reads anything: the number of entries is
// read from the end of the archive before the central directory is parsed
// (at most 10,000), an entry is opened only when its compression ratio is
// at most 200:1 (for entries over 1 MiB) and its declared size at most
// 64 MiB, and every read is counted against a budget of 256 MiB of
// decompressed bytes per file (archive/zip also refuses an entry that
// inflates beyond its declared size). XML parts are streamed token by
// token; no entity other than XML's five is expanded and no DTD is read:
// a part with a document type declaration is refused.
//
// Each of these is a deterministic error of the extractor (recorded, not
// retried, nothing kept): "zip bomb: ..." (too many entries, a part's
// ratio, a part longer than declared), "document too large: ..." (a part
// over 64 MiB, more than 256 MiB to decompress: more than the extractor
// parses), "part ...: document type declaration refused" and "part ...:
// ... entity ..." (an undefined entity). Only the text cap below is
// truncated data.
//
// Text is capped at doctext.MaxText (256 KiB) with "text_truncated": true
// when cut. Bare-tool equivalent, for benchmarks: `unzip -p FILE
// word/document.xml | xmlstarlet sel -t -v //w:t` (docx), or
// `odt2txt`/`docx2txt`.
package office
