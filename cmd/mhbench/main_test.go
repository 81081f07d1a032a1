package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// sink keeps TestWriteAllocs's allocation from being optimized away.
var sink []byte

// TestWriteAllocs: -memprofile's file is a pprof profile (gzipped
// protobuf) holding the allocations made before it was written, and a
// path that cannot be created is an error, not a silent nothing.
func TestWriteAllocs(t *testing.T) {
	sink = make([]byte, 8<<20) // above the sampling rate: surely sampled
	path := filepath.Join(t.TempDir(), "allocs.pprof")
	if err := writeAllocs(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) || len(b) < 100 {
		t.Fatalf("profile of %d bytes starting %x: not a gzipped pprof profile", len(b), b[:min(len(b), 4)])
	}
	if err := writeAllocs(filepath.Join(t.TempDir(), "missing", "allocs.pprof")); err == nil {
		t.Fatal("no error for a directory that does not exist")
	}
}
