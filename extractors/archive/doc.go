// Package archive is the archive extractor family: archive lists the
// entries of zip, tar, gzip, bzip2, xz, zstd and 7z files (and tar inside
// the compressed ones: .tar.gz, .tgz, .tar.bz2, .tar.xz, .tar.zst) without
// extracting anything anywhere: names, sizes, modes, dates, compression
// ratio, counts, and the text of small inner text documents.
//
// Every archive is untrusted, so every walk is bounded while the headers
// are read, before anything is decompressed or allocated after them. A
// hostile archive, one made to harm whoever unpacks it, fails the
// extractor with a deterministic error (recorded, not retried) and nothing
// of its listing is kept; caps on a harmless archive keep the listing so
// far:
//
//   - entries: at most MaxListed listed in Data, at most MaxEntries
//     walked (counted); beyond, the walk stops (truncated, stopped_by
//     "entries").
//   - bytes: a compressed stream (tar.gz, .xz ...) is decompressed to walk
//     it; at most MaxStreamBytes are (stopped_by "bytes"). Once more than
//     MaxRatio times the compressed bytes read came out past RatioFloor,
//     the archive is a decompression bomb: error "decompression bomb
//     refused: ...".
//   - declared sizes (zip, 7z, tar): an entry declaring more than MaxRatio
//     times its compressed size past RatioFloor, entries declaring more
//     than MaxRatio times the file past RatioFloor, a total over
//     MaxDeclaredTotal, or entries whose compressed data overlap (a zip
//     bomb of shared data) make the archive a bomb as well, found before
//     anything is decompressed (nothing is but small text documents and
//     small nested archives).
//   - nesting: archives inside the archive of at most MaxNestedSize are
//     listed too (their entries named "inner.zip/..." with archive set),
//     one level deep only; deeper ones are listed as entries, not opened.
//     A hostile nested archive makes the whole file hostile.
//   - zip slip: an entry name with a ".." element, an absolute name (/etc,
//     C:\, \\server) or a NUL byte would be written outside the directory
//     the archive is extracted into: error "unsafe entry refused (zip
//     slip): ...".
//   - links and special files: symbolic and hard links, device and FIFO
//     entries are common in real tarballs (a system image); they are
//     listed, flagged (unsafe, unsafe_reason, and in the unsafe list) and
//     never read.
//   - text: entries named .txt, .md, .csv, .tsv, .log, .rst of at most
//     MaxTextFile bytes are read (decompressed) into Data.text, at most
//     MaxTextTotal in all.
//   - time: when the extractor's time limit draws near, the walk stops
//     and the listing so far is kept (stopped_by "time_limit").
//
// A damaged archive whose first entries were read gives the listing so far
// with stopped_by "damaged" and the reason in damage; one of which nothing
// could be read is an error.
//
// The readers are our own where the standard library or the libraries at
// hand would hold more than the caps allow before we could count: the zip
// central directory (archive/zip keeps every record in memory), the 7z
// header (github.com/bodgit/sevenzip allocates what the header declares,
// up to 4 billion entries, before any check of ours), and the check of
// the dictionary sizes an xz file declares (github.com/ulikunitz/xz
// allocates them). Tar, gzip, bzip2 and flate come from the standard
// library, xz and the LZMA of 7z headers from github.com/ulikunitz/xz,
// zstd from github.com/klauspost/compress with its memory bounded.
package archive
