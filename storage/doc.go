// Package storage implements the location kinds behind one interface,
// Location: list containers, list a container's files page by page with a
// cursor, stat, open, and (for local kinds) a path tools can read directly.
//
// It also decides how an item's bytes reach the extractors of a harvest
// (Inputs, input.go): the worker opens a container once per task
// (Inputs.Open) and asks once per item (Batch.Item) with what its
// extractors need; storage answers with the bytes in memory, a stream, a
// local path, a temporary copy or a loopback URL serving ranges (the range
// server, which its Inputs owns and Close stops).
//
// Kinds:
//   - "filesystem": config.path is an absolute directory; each immediate,
//     visible, real sub-directory is a container.
//   - "uploadstore": the deployment's built-in store under
//     <DATA_DIR>/uploadstore, listed the same way, written by UploadStore;
//     or, beyond one host, under the uploadstore/ prefix of the DATA_BUCKET
//     bucket (BucketUploads), listed alike and read by ranges as s3 is.
//   - "s3": any S3-compatible server through minio-go; buckets (or the one
//     configured bucket) are containers, keys under config.prefix are items.
//
// Rules shared by the kinds, which the walker and api rely on:
//   - Listings are sorted byte-wise; the cursor is the last name or path
//     returned and next == "" means the end. A page may be shorter than the
//     limit (files vanish between reading a directory and stat'ing them), so
//     callers continue while next != "".
//   - The local kinds never list or serve symlinks, devices, FIFOs, sockets,
//     or hidden names (leading "."): symlinks could leave the location or
//     alias files, and hidden names keep the upload store's temporary files
//     out of listings. Every access below a container goes through os.Root.
//   - ETags change when content may have changed: (size, mtime ns, inode)
//     for local files, the server's ETag for s3.
//   - ErrNotFound, ErrBadPath and ErrTooLarge are matched with errors.Is;
//     configuration problems are *ConfigError with the config key at fault,
//     and no error text ever contains a secret value.
//   - The s3 kind refuses link-local and cloud metadata addresses, in Check
//     and again at connect time (DNS can change between the two).
package storage
