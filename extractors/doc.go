// Package extractors is the extractor framework of metaharvest: the Extractor
// interface that turns one file into metadata, the registry that knows every
// extractor API name of the reference (implemented or not yet), the runner the
// worker uses to run a list of extractors on one item with a time limit each, and
// RunTool, the one way an extractor starts an external program.
//
// # Registration
//
// Every extractor registers itself from an init function, as Caddy modules and
// benthos plugins do:
//
//	func init() {
//		MustRegister(Info{Name: "hashes", DisplayName: "Hashes", Version: "1.0.0",
//			Implemented: true, DefaultEnabled: true,
//			New: func() Extractor { return hashes{} }})
//	}
//	var _ Extractor = hashes{} // compile-time check
//
// Names the reference lists but whose implementation comes later are data in
// catalogue.go, registered with Implemented false; implementing one means moving
// its entry from the catalogue into its own file. Tests build their own Registry
// with NewRegistry.
//
// # Errors
//
// Every error an extractor returns is deterministic (the same file gives the same
// error again, so the worker records it and does not retry, asynq.SkipRetry)
// unless it is wrapped with Transient, which marks failures of the environment
// rather than of the file (a read error on a network mount, a provider that timed
// out, a harvest cancelled half way). ErrUnsupported says the extractor does not
// handle this kind of file: it is not a failure and is never retried. Run wraps a
// panic of an extractor into a PanicError, so a crashing parser costs one outcome
// and not the worker.
//
// # Results
//
// Result.Data is stored on the item under the extractor's name and must encode
// as JSON; Run checks that, and passes the encoded results of earlier extractors
// of the same harvest to later ones in Input.Prior. Artifacts are files the
// extractor wrote below Input.ArtifactDir, named relative to it.
//
// Extensions (store.extension, mime_type.extension) are lower case without the
// leading dot ("jpg"), so that a search filter does not need to know about dots.
package extractors
