// Package places holds the extractors that work from where an item was
// captured: geocoding (offline: GPS to country, region and city) and
// weather (through a configured provider).
//
// # Where the position comes from
//
// exiv2's gps.latitude and gps.longitude (photos, and phone videos whose
// GPS exiftool reads), else, for a video, the ISO 6709 location tag of its
// container as the shared ffprobe reading gives it ("+48.8584+002.2945/",
// ParseISO6709). A position of exactly 0, 0 is what cameras without a fix
// write and counts as none. An item without a position is not supported
// (no error recorded).
//
// # Geocoding levels and their cost
//
// GEOCODING_LEVELS picks the layers, by memory budget. Measured here (2
// cores shared with other work, GOGC=400 as workers run; held = live heap
// after loading, peak = resident size while loading; the load happens once
// per worker process, on the first item with a position, in the
// background):
//
//	countries  rgeo Countries10: held ~75 MB, peak ~0.5 GB, 1.3 s CPU
//	provinces  rgeo Provinces10 (countries included): held ~190 MB, peak ~1.1 GB, 4 s CPU
//	cities     gazetteer shipped with the project: held ~7 MB, 0.2 s
//	(rgeo's own Cities10: held ~700 MB, peak 2.5 GB, 15 s CPU: not offered)
//
// The default, "countries,cities", answers a point in a city from the
// gazetteer alone (city, its country, the region of its centre) and loads
// the countries layer only for a point outside every city. "provinces"
// adds the region of any point and its ISO 3166-2 code.
package places
