// Package archive is the archive extractor family: archive lists the
// entries of zip, tar, gzip, bzip2, xz, zstd and 7z files (and tar inside
// the compressed ones: .tar.gz, .tgz, .tar.bz2, .tar.xz, .tar.zst) without
// extracting anything anywhere: names, sizes, modes, dates, compression
// ratio, counts, and the text of small inner text documents.
//
// Every archive is untrusted, so every walk is bounded while the headers
// are read, before anything is decompressed or allocated after them:
//
//   - entries: at most MaxListed listed in Data, at most MaxEntries
//     walked (counted); beyond, the walk stops (truncated, stopped_by
//     "entries").
//   - bytes: a compressed stream (tar.gz, .xz ...) is decompressed to walk
//     it; at most MaxStreamBytes are, and the walk stops with stopped_by
//     "ratio" and bomb true once more than MaxRatio times the compressed
//     bytes read came out past RatioFloor (a decompression bomb).
//   - declared sizes (zip, 7z): an entry declaring more than MaxRatio
//     times its compressed size past RatioFloor, a total over
//     MaxDeclaredTotal, or entries whose compressed data overlap (a
//     zip bomb of shared data) flag the listing as a bomb; nothing is
//     decompressed but small text documents and small nested archives.
//   - nesting: archives inside the archive of at most MaxNestedSize are
//     listed too (their entries named "inner.zip/..." with archive set),
//     one level deep only; deeper ones are listed as entries, not opened.
//   - unsafe entries: names with ".." elements, absolute names (/etc,
//     C:\), symbolic and hard links, device and FIFO entries are flagged
//     (unsafe, unsafe_reason, and in the unsafe list) and never read.
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
