// Package ids makes the opaque identifiers of metaharvest objects.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// New returns a random 32-character hex id (128 bits).
func New() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("ids: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// Derived returns a 32-character hex id determined by its parts, so the same
// object found twice (a container of a location, an item of a container) gets
// the same id and writes are idempotent.
func Derived(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}
