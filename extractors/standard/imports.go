// Package standard links every extractor family into the Default registry,
// as Caddy's modules/standard does for its modules: a program that imports
// it for its side effects (cmd/metaharvest, tests of the worker) knows every
// extractor of the reference. The base extractors (store, mime_type,
// hashes) live in package extractors itself.
package standard

import (
	_ "github.com/metaharvest/metaharvest/extractors"           // base extractors
	_ "github.com/metaharvest/metaharvest/extractors/broadcast" // broadcast quality control
	_ "github.com/metaharvest/metaharvest/extractors/captions"  // caption_files, captions, captionsv2
	_ "github.com/metaharvest/metaharvest/extractors/documents" // text, csv, json, xml, html, email, fdx, dbf
	_ "github.com/metaharvest/metaharvest/extractors/nlp"       // tokens, vendorlanguage
	_ "github.com/metaharvest/metaharvest/extractors/office"    // officex
	_ "github.com/metaharvest/metaharvest/extractors/pdf"       // pdf, document_pages
	_ "github.com/metaharvest/metaharvest/extractors/places"    // geocoding, weather
	_ "github.com/metaharvest/metaharvest/extractors/vendor"    // vendor_audio_classification, vendorsports (provider)
)
