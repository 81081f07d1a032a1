// Package standard links every extractor family into the Default registry,
// as Caddy's modules/standard does for its modules: a program that imports
// it for its side effects (cmd/metaharvest, tests of the worker) knows every
// extractor of the reference. The base extractors (store, mime_type,
// hashes) live in package extractors itself.
package standard

import (
	_ "github.com/metaharvest/metaharvest/extractors"        // base extractors
	_ "github.com/metaharvest/metaharvest/extractors/faces"  // vendor_faces
	_ "github.com/metaharvest/metaharvest/extractors/images" // exiv2, thumbnailer
)
