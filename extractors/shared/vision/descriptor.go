package vision

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/metaharvest/metaharvest/internal/facedesc"
)

// DecodeDescriptor reads a descriptor of the sidecar (base64 of
// facedesc.Dims little-endian float32) and returns it L2-normalised.
func DecodeDescriptor(s string) ([]float32, error) {
	if len(s) > base64.StdEncoding.EncodedLen(4*facedesc.Dims) {
		return nil, fmt.Errorf("face descriptor of %d characters", len(s))
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("face descriptor: %w", err)
	}
	if len(raw) != 4*facedesc.Dims {
		return nil, fmt.Errorf("face descriptor of %d bytes, want %d", len(raw), 4*facedesc.Dims)
	}
	v := make([]float32, facedesc.Dims)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return facedesc.Normalize(v)
}
