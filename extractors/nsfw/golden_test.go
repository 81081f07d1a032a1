package nsfw

import (
	"math"
	"testing"
)

// goldenTolerance is how far a score may be from the one recorded by hand:
// the hand run scaled with ffmpeg's bicubic filter, the extractor with Go's
// Catmull-Rom, and the model answers a little differently to each.
const goldenTolerance = 0.1

// goldens are the sidecar's answers recorded by hand (deploy/vision/server.js
// run with node on each file scaled to 224 x 224 over white by
//
//	ffmpeg -i FILE -f lavfi -i color=white:s=16x16 -filter_complex \
//	  "[0:v]scale=224:224:flags=bicubic,format=rgba[p];[1:v]scale=224:224[b];[b][p]overlay=shortest=1:format=rgb,format=rgb24" \
//	  -frames:v 1 FILE.ppm
//
// and asked {"id":"1","path":"FILE.ppm"}), rounded to 4 decimals.
var goldens = []struct {
	file, mime, top string
	scores          Scores
}{
	// Two men on a stage (a frame of a conference video).
	{"testdata/video-001.png", "image/png", "neutral", Scores{"drawing": 0.0006, "hentai": 0.0003, "neutral": 0.9970, "porn": 0.0020, "sexy": 0.0002}},
	// An icon of the Adwaita theme: a drawing.
	{"testdata/text-x-script.png", "image/png", "drawing", Scores{"drawing": 0.9402, "hentai": 0.0013, "neutral": 0.0586, "porn": 0, "sexy": 0}},
	// A photograph of a camera's sample (JPEG, decoded by Go).
	{"testdata/goexif-sample1.jpg", "image/jpeg", "neutral", Scores{"drawing": 0.3723, "hentai": 0.0020, "neutral": 0.6249, "porn": 0.0004, "sexy": 0.0005}},
	// The same frame as video-001.png in TIFF, decoded by ffmpeg.
	{"testdata/video-001.tiff", "image/tiff", "neutral", Scores{"drawing": 0.0006, "hentai": 0.0003, "neutral": 0.9970, "porn": 0.0020, "sexy": 0.0002}},
}

func TestGoldenPictures(t *testing.T) {
	requireSidecar(t)
	for _, g := range goldens {
		t.Run(g.file, func(t *testing.T) {
			o := run(t, shared, g.file, g.mime, nil, "")
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			t.Logf("%v", o.Data)
			scores := o.Data["scores"].(map[string]any)
			for c, want := range g.scores {
				if got := scores[c].(float64); math.Abs(got-want) > goldenTolerance {
					t.Errorf("%s: %v, recorded %v", c, got, want)
				}
			}
			if o.Data["category"] != g.top {
				t.Errorf("category %v, want %s", o.Data["category"], g.top)
			}
			unsafe := g.scores.Unsafe()
			if got := o.Data["nsfw_score"].(float64); math.Abs(got-unsafe) > goldenTolerance {
				t.Errorf("nsfw_score %v, recorded %v", got, unsafe)
			}
			if o.Data["nsfw"] != false || o.Data["frames_analysed"] != 1 || o.Data["frames_source"] != "image" ||
				o.Data["source"] != "nsfwjs" || o.Data["model"] != "MobileNetV2" || o.Data["threshold"] != DefaultThreshold {
				t.Errorf("data %v", o.Data)
			}
			if len(o.Segments) != 0 || len(o.Artifacts) != 0 {
				t.Errorf("segments %v artifacts %v", o.Segments, o.Artifacts)
			}
		})
	}
}

// NSFW_MODEL picks another model of nsfwjs: MobileNetV2Mid (a graph model)
// on the people of video-001.png, recorded by hand as above with
// "node server.js MobileNetV2Mid".
func TestOtherModel(t *testing.T) {
	requireSidecar(t)
	x := direct(t, map[string]string{"model": "MobileNetV2Mid"})
	o := x.extract(t, "testdata/video-001.png", "image/png")
	if o.err != nil {
		t.Fatal(o.err)
	}
	want := Scores{"drawing": 0.3311, "hentai": 0.0070, "neutral": 0.6614, "porn": 0.0003, "sexy": 0.0002}
	scores := o.res.Data["scores"].(map[string]any)
	for c, w := range want {
		if got := scores[c].(float64); math.Abs(got-w) > goldenTolerance {
			t.Errorf("%s: %v, recorded %v", c, got, w)
		}
	}
	if o.res.Data["model"] != "MobileNetV2Mid" || o.res.Data["category"] != "neutral" {
		t.Errorf("data %v", o.res.Data)
	}
}
