package extractors

import "fmt"

// Clients written for the original product name extractors by its names
// (DECISIONS.md, "Compatibility"): air-api-sample's harvest sends 48 names,
// among them gm_faces, gmocr, gms2t and stow. This file is the one table of
// those names; Registry.Resolve reads it wherever a request names an
// extractor (harvests, profiles, settings).

// aliases maps a client's name to the API name of the reference that does
// the same work here. The original product's brand prefix (gm_, gm) is the
// reference's neutral vendor_ / vendor.
var aliases = map[string]string{
	"gm_color_bars":           "vendor_color_bars",
	"gm_digital_slates":       "vendor_digital_slates",
	"gm_audio_classification": "vendor_audio_classification",
	"gm_faces":                "vendor_faces",
	"gm_silence":              "vendor_silence",
	"gm_start_end":            "vendor_start_end",
	"gm_texted":               "vendor_texted",
	"gm_textless":             "vendor_textless",
	"gmsports":                "vendorsports",
	"gmlanguage":              "vendorlanguage",
	"gmocr":                   "tesseract", // text recognition in frames and images
	"stow":                    "store",     // the item store data extractor's old name
}

// providerExtractor is an extractor of the original product backed by a
// third-party provider that has no API name in the reference (the reference
// omits the provider-branded names). A request naming one is accepted, and
// each item records it as not available; once an extractor doing that work
// is registered here, Target names it and the client's name resolves to it.
type providerExtractor struct {
	What   string // what it does, for the "not available" reason
	Target string // the registered extractor doing the same work; "" while there is none
}

var providerExtractors = map[string]providerExtractor{
	"gmlogos": {What: "logo detection", Target: "logos"},
	"gms2t":   {What: "speech to text", Target: "speech_to_text"},
}

// Resolve returns the API name a requested extractor name runs as: a
// registered name is itself; a name of the original product's clients is
// the extractor it stands for; a provider-backed extractor of the original
// product with no counterpart here keeps its name (Available says why it
// cannot run, and a harvest records that per item). ok is false for any
// other name: it is unknown.
func (r *Registry) Resolve(name string) (resolved string, ok bool) {
	if _, found := r.Get(name); found {
		return name, true
	}
	if target, alias := aliases[name]; alias {
		if _, found := r.Get(target); found {
			return target, true
		}
		return "", false
	}
	if p, known := providerExtractors[name]; known {
		if _, found := r.Get(p.Target); found && p.Target != "" {
			return p.Target, true
		}
		return name, true
	}
	return "", false
}

// Aliases returns the names of the original product's clients that
// resolve to another extractor once it is registered, with that extractor's
// API name: the brand-prefixed aliases and the provider extractors that
// have a counterpart here. extractors/families checks every target against
// the linked extractors, so that the table cannot drift.
func Aliases() map[string]string {
	out := make(map[string]string, len(aliases)+len(providerExtractors))
	for a, t := range aliases {
		out[a] = t
	}
	for a, p := range providerExtractors {
		if p.Target != "" {
			out[a] = p.Target
		}
	}
	return out
}

// unregisteredReason says why a provider-backed extractor of the original
// product cannot run here; ok is false for other unregistered names.
func unregisteredReason(name string) (reason string, ok bool) {
	p, known := providerExtractors[name]
	if !known {
		return "", false
	}
	return fmt.Sprintf("%s (%s) needs a provider service that this release does not include", name, p.What), true
}
