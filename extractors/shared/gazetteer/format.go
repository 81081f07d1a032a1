package gazetteer

// The data file is gzip of:
//
//	magic "MHGAZ1"
//	uvarint count of countries, then each:
//	    string name, string iso_a2, string iso_a3, uvarint count of other names, strings
//	uvarint count of region names, then the strings
//	uvarint count of cities, then each:
//	    string name, string country, string country code (ISO alpha-2), string region
//	    varint lat, varint lon           (label point, 1e-5 degrees)
//	    varint minLat, minLon, maxLat, maxLon (bounding box, 1e-5 degrees)
//	    uvarint count of rings, then each:
//	        uvarint count of points, then each point as varint dLat, varint dLon
//	        (1e-5 degrees, the first from 0, the others from the point before)
//
// A string is a uvarint length and that many UTF-8 bytes. Varints are
// encoding/binary's (zig-zag for signed values).

const magic = "MHGAZ1"

// scale is the fixed-point unit of coordinates: 1e-5 degrees (about a metre).
const scale = 1e5

// Bounds of a well-formed file, checked while reading so that a damaged
// file fails instead of allocating without end.
const (
	maxCountries = 1000
	maxRegions   = 20000
	maxCities    = 50000
	maxRings     = 10000
	maxPoints    = 1 << 20 // in one ring
	maxString    = 1 << 10
	maxTotalPts  = 4 << 20
)
