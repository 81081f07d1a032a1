package ocr

import (
	"encoding/json"
	"testing"
)

func TestScratch(t *testing.T) {
	reg := registry(t, nil)
	p := programmeClip(t)
	outs := runAll(t, reg, input(t, p), names...)
	for _, n := range names {
		o := outs[n]
		b, _ := json.MarshalIndent(o.Data, "", " ")
		t.Logf("%s err=%v took %s\n%s", n, o.Err, o.Duration, b)
	}
}
