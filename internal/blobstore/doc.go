// Package blobstore keeps the files the platform makes and receives: the
// artifacts extractors write (thumbnails, sprites, frames, previews, face
// crops, page images, waveforms) and, beyond one host, the upload store.
//
// A Store is one of two kinds behind one interface:
//
//   - a local directory (Dir): the default, DATA_DIR/artifacts, for a
//     deployment on one host or one with a shared file system;
//   - an S3-compatible bucket (Bucket), configured by the DATA_BUCKET_*
//     settings, so that api and workers on different hosts share only
//     Redis, Postgres, the search engine and the bucket.
//
// Keys are slash-separated paths without empty, "." or ".." segments (the
// artifact paths of the artifacts table). Every write is atomic: a reader
// sees the old file or the complete new one, never part of one (a
// directory renames a finished file into place; a bucket makes an object
// visible when its upload completes). Names starting with "." are the
// directory's temporary files: never listed, never valid keys.
//
// Files opens the stores of a configuration; Copy moves a tree from one
// store to another (metaharvest artifacts migrate) and Sweep removes the
// keys nothing refers to any more.
package blobstore
