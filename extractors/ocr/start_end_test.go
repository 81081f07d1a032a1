package ocr

import (
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	_ "github.com/metaharvest/metaharvest/extractors/broadcast" // vendor_start_end
	"github.com/metaharvest/metaharvest/extractors/extractortest"
)

// A card naming one slate field is a slate when vendor_start_end (the
// broadcast family, run in the same harvest) found it still and silent,
// and not without it.
func TestSlateConfirmedByStartEnd(t *testing.T) {
	t.Parallel()
	needFont(t)
	clip := clips.File(t, "still-slate.mp4", func(t testing.TB, p string) {
		card := textFile(t, t.TempDir(), "card.txt", "TITLE HARBOUR")
		video := "color=c=black:s=640x360:r=25:d=4," + drawText(card, 40, "60", "150") + "[a];" +
			"sierpinski=s=640x360:r=25,trim=duration=6,setpts=PTS-STARTPTS[b];[a][b]concat=n=2:v=1:a=0[out0]"
		audio := "anullsrc=r=48000:cl=mono,atrim=0:4[a];sine=f=440:d=6:r=48000[b];[a][b]concat=n=2:v=0:a=1[out0]"
		extractortest.FFmpeg(t, "-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio, "-c:v", "libx264", "-preset", "ultrafast",
			"-pix_fmt", "yuv420p", "-c:a", "aac", p)
	})
	reg := registry(t, nil)
	info, ok := extractors.Default.Get("vendor_start_end")
	if !ok || !info.Implemented {
		t.Fatal("vendor_start_end is not registered: the broadcast family is imported for it")
	}
	reg.MustRegister(info)

	outs := extractortest.Harvest(t, reg, extractortest.Input(t, clip), "slates", "vendor_start_end")
	if o := outs["vendor_start_end"]; o.Err != nil {
		t.Fatalf("vendor_start_end: %v", o.Err)
	}
	sl := outs["slates"]
	if sl.Err != nil || sl.Data["count"] != 1 {
		t.Fatalf("slates with vendor_start_end: %v %v (vendor_start_end %v)", sl.Data, sl.Err, outs["vendor_start_end"].Data)
	}
	s0 := sl.Data["slates"].([]any)[0].(map[string]any)
	near(t, "slate start", s0["start"], 0, 2)
	near(t, "slate end", s0["end"], 4, 2)

	outs = extractortest.Harvest(t, reg, extractortest.Input(t, clip), "slates")
	if sl := outs["slates"]; sl.Err != nil || sl.Data["count"] != 0 {
		t.Errorf("slates alone found %v %v", sl.Data, sl.Err)
	}
}
