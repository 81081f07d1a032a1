package probe

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"strings"
)

// The ASF (Windows Media) header as drm needs it: the objects of the header
// that say the content is protected. Only the header object is read, at
// most asfMaxHeader bytes of it, and at most asfMaxObjects objects.

const (
	asfMaxHeader  = 1 << 20
	asfMaxObjects = 1024
)

// asfGUID writes a GUID as ASF stores it: the first three groups little
// endian, the last two as written.
func asfGUID(s string) [16]byte {
	h, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
	if err != nil || len(h) != 16 {
		panic("bad GUID " + s)
	}
	var g [16]byte
	g[0], g[1], g[2], g[3] = h[3], h[2], h[1], h[0]
	g[4], g[5] = h[5], h[4]
	g[6], g[7] = h[7], h[6]
	copy(g[8:], h[8:])
	return g
}

var (
	asfHeaderObject    = asfGUID("75B22630-668E-11CF-A6D9-00AA0062CE6C")
	asfHeaderExtension = asfGUID("5FBF03B5-A92E-11CF-8EE3-00C00C205365")
	// asfProtection are the objects that declare protected content, with
	// the system they belong to.
	asfProtection = map[[16]byte]string{
		asfGUID("2211B3FB-BD23-11D2-B4B7-00A0C955FC6E"): "Windows Media DRM", // Content Encryption Object
		asfGUID("298AE614-2622-4C17-B935-DAE07EE9289C"): "Windows Media DRM", // Extended Content Encryption Object
		asfGUID("43058533-6981-49E6-9B74-AD12CB86D58C"): "PlayReady",         // Advanced Content Encryption Object
	}
)

var errNotASF = errors.New("not an ASF file")

// asfProtectionSystems lists the protection systems the ASF header of r
// declares (each once); errNotASF when r is not ASF.
func asfProtectionSystems(r io.ReaderAt, size int64) ([]string, error) {
	var head [30]byte
	if size < 30 {
		return nil, errNotASF
	}
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, errNotASF
	}
	if !bytes.Equal(head[:16], asfHeaderObject[:]) {
		return nil, errNotASF
	}
	hsize := binary.LittleEndian.Uint64(head[16:24])
	if hsize < 30 || hsize > uint64(size) {
		hsize = uint64(size) // a lying size: read what the file holds
	}
	n := min(int64(hsize), asfMaxHeader)
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var systems []string
	seen := map[string]bool{}
	objects := 0
	var walk func(b []byte, depth int)
	walk = func(b []byte, depth int) {
		for len(b) >= 24 && objects < asfMaxObjects {
			objects++
			var id [16]byte
			copy(id[:], b[:16])
			osize := binary.LittleEndian.Uint64(b[16:24])
			if osize < 24 || osize > uint64(len(b)) {
				return
			}
			if name, ok := asfProtection[id]; ok && !seen[name] {
				seen[name] = true
				systems = append(systems, name)
			}
			// The header extension object holds more objects after 22
			// bytes of its own (a reserved GUID, a reserved word, a size).
			if id == asfHeaderExtension && depth == 0 && osize >= 46 {
				walk(b[46:osize], depth+1)
			}
			b = b[osize:]
		}
	}
	walk(buf[30:], 0)
	return systems, nil
}
