// Package extractortest holds what every extractor's tests share: Suite, the
// conformance checks run over every registered extractor (cancellation,
// empty and garbage input, JSON output, artifact paths, as search/searchtest
// does for engines), and Golden, the folder-driven golden runner that feeds
// recorded tool output to pure parse functions (go test -update rewrites the
// expected files).
//
// It also holds the one way the families' tests do the common things:
// Registry (a registry of some of Default's extractors, configured and
// closed), Input, Run and Harvest (one extractor on a file, or a harvest as
// the worker runs it) and Data (an outcome's stored data); FFmpeg and Clip
// (clips of known properties generated in t.TempDir()), Shared (clips made
// once for a package's tests); Samples and CopyFile (the sample files of a
// testdata folder); Survives (Suite's checks of a hostile file, for one
// extractor and input), NoRequestURL (a local listener hostile files point
// at, which must see no request) and Allocated (what a hostile file made
// an extractor allocate); ReferenceNames (the reference's extractor list,
// copied by hand).
package extractortest
