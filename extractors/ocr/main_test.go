package ocr

import (
	"os"
	"testing"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// clips are test videos rendered once for the package's tests (ffmpeg is
// the slow part).
var clips extractortest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	clips.Remove()
	os.Exit(code)
}
