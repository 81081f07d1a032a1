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
// once loaded, peak = resident size of the whole process while loading;
// the load happens once per worker process, in the background, on the
// first item that needs it; a lookup then takes 10-60 µs):
//
//	cities               gazetteer shipped with the project: held 10 MB, peak 27 MB, 0.1 s CPU
//	countries,cities     + rgeo Countries10: held 66 MB, peak 250 MB, 2.4 s CPU
//	provinces,cities     + rgeo Provinces10 (countries included): held 141 MB, peak 650 MB, 7 s CPU
//	(rgeo's own Cities10: held ~700 MB, peak 2.5 GB: not offered)
//
// The collector runs at GOGC=50 while rgeo decodes its GeoJSON and the
// garbage is returned to the system after (without that, peaks are 476 MB
// and 1.1 GB at GOGC=400).
//
// The default, "countries,cities", answers a point in a city from the
// gazetteer alone (the city, its country, and its region when nearly all
// of it lies in one: not for Paris, Tokyo or London, which spread over
// several) and loads the countries layer only for a point outside every
// city. "provinces" adds the region of any point and its ISO 3166-2 code.
//
// # Weather
//
// weather asks the provider configured by WEATHER_API_URL and
// WEATHER_API_KEY (see extractors/shared/provider for the contract) for the
// weather at the position and capture time (exiv2 created, else
// mediainfo creation_time); without both settings it is not available.
// An item without a position or a capture time is not supported.
package places
