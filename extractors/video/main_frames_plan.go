package video

import (
	"fmt"
	"strings"
)

// framePlan is how video_main_frames samples one video: the rules of the
// select expression and the bounds on each output, computed from the
// declared duration so that a long video spreads its frame budget over its
// whole length.
type framePlan struct {
	// Limit is how many seconds are analysed at most (max_duration).
	Limit float64
	// Interval is the spacing of periodic frames, widened for long videos.
	Interval float64
	// Threshold is the scene score (0..1) above which a frame starts a new scene.
	Threshold float64
	// SceneGap is the least time between two scene or keyframe frames;
	// KeyGap the least time before a keyframe is taken again.
	SceneGap, KeyGap float64
	// PerOutput bounds the frames written by each of the three outputs
	// (scene, keyframe, interval); MaxFrames bounds them all together.
	PerOutput, MaxFrames int
}

// dupWindow is how close two frames may be before one of them is dropped:
// an interval frame just before a cut says nothing the cut does not.
const dupWindow = 0.5

// frameSettings are video_main_frames' settings.
type frameSettings struct {
	MaxFrames   int
	Interval    float64
	Threshold   float64
	MaxDuration float64
}

// planFrames splits the budget: half for periodic frames, half for scene
// changes and keyframes together. With a known duration the spacing keeps
// each half within its share; with none (a raw stream) the base spacing
// applies and the per-output bounds stop the outputs.
func planFrames(declared float64, s frameSettings) framePlan {
	half := max(1, float64(s.MaxFrames)/2)
	span := 0.0
	if declared > 0 {
		span = min(declared, s.MaxDuration)
	}
	p := framePlan{
		Limit:     s.MaxDuration,
		Interval:  max(s.Interval, roundUp(span/half)),
		Threshold: s.Threshold,
		SceneGap:  max(dupWindow, span/half),
		MaxFrames: s.MaxFrames,
	}
	p.KeyGap = max(p.SceneGap, p.Interval/2)
	p.PerOutput = s.MaxFrames/2 + 2
	return p
}

// roundUp rounds seconds up to a whole number, so that intervals read well.
func roundUp(f float64) float64 {
	n := float64(int64(f))
	if n < f {
		n++
	}
	return n
}

// selectExpr is the select filter's expression: it sends each frame to
// output 1 (a scene change), 2 (a keyframe), 3 (the next periodic frame)
// or drops it (0). Registers keep state between frames: 0 the time of the
// next periodic frame, 2 the time of the last scene or keyframe frame,
// 3 the time of the last frame taken. Frames without a time, before 0 or at
// and after the limit are dropped. Rules:
//   - a scene change at least SceneGap after the last scene/keyframe;
//   - a keyframe at least KeyGap after the last scene/keyframe and
//     dupWindow after any frame taken;
//   - a periodic frame when its time has come, unless a frame was taken
//     within dupWindow before (a cut right after it is dropped later).
func (p framePlan) selectExpr() string {
	r := strings.NewReplacer("LIMIT", num(p.Limit), "INTERVAL", num(p.Interval), "THRESHOLD", num(p.Threshold),
		"SCENEGAP", num(p.SceneGap), "KEYGAP", num(p.KeyGap), "DUP", num(dupWindow))
	return r.Replace(strings.Join([]string{
		"if(eq(n,0),st(2,-1e9)+st(3,-1e9))",
		"if(isnan(t)+lt(t,0)+gte(t,LIMIT),0," + strings.Join([]string{
			"st(4,gte(t,ld(0)))",
			"if(ld(4),st(0,(floor(t/INTERVAL)+1)*INTERVAL))",
			"st(5,gt(scene,THRESHOLD)*gte(t-ld(2),SCENEGAP))",
			"st(6,key*gte(t-ld(2),KEYGAP)*gte(t-ld(3),DUP))",
			"st(7,ld(4)*gte(t-ld(3),DUP))",
			"st(8,if(ld(5),1,if(ld(6),2,if(ld(7),3,0))))",
			"if(between(ld(8),1,2),st(2,t))",
			"if(ld(8),st(3,t))",
			"ld(8)",
		}, ";") + ")",
	}, ";"))
}

// progressExpr selects the first frame of every second, so that the last
// one printed says how far the stream was decoded.
const progressExpr = "if(gte(t,ld(0)),st(0,floor(t)+1),0)"

// frameOutputs are the select filter's outputs in order, with the reason
// each gives its frames.
var frameOutputs = []string{"scene", "keyframe", "interval"}

// filterGraph is the -filter_complex of the one decoding pass: the video
// stream is split into the sampler (select, then each output scaled and its
// frames' metadata printed to <reason>.txt) and the progress tap (one frame
// a second printed to progress.txt). Paths are relative to ffmpeg's
// working directory.
func (p framePlan) filterGraph(stream int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[0:%d]split=2[main][tap];", stream)
	fmt.Fprintf(&b, "[main]select=outputs=%d:expr='%s'", len(frameOutputs), p.selectExpr())
	for _, o := range frameOutputs {
		fmt.Fprintf(&b, "[%s]", o)
	}
	for _, o := range frameOutputs {
		fmt.Fprintf(&b, ";[%s]%s,metadata=mode=print:file=%s.txt[%s_out]", o, fitScale(frameBox, frameBox), o, o)
	}
	// The metadata filter prints only frames that carry metadata: the tap's
	// are given some.
	fmt.Fprintf(&b, ";[tap]select=expr='%s',metadata=mode=add:key=tap:value=1,metadata=mode=print:file=progress.txt[progress_out]", progressExpr)
	return b.String()
}

// outputArgs map the graph's outputs: JPEG files named by their time in
// milliseconds (-frame_pts with a 1/1000 time base) in a directory per
// reason, and the progress tap to the null muxer.
func (p framePlan) outputArgs() []string {
	var args []string
	for _, o := range frameOutputs {
		args = append(args, "-map", "["+o+"_out]", "-fps_mode", "passthrough", "-enc_time_base", "1/1000",
			"-frames:v", fmt.Sprint(p.PerOutput), "-c:v", "mjpeg", "-q:v", "4",
			"-f", "image2", "-frame_pts", "1", "file:"+o+"/%09d.jpg")
	}
	return append(args, "-map", "[progress_out]", "-fps_mode", "passthrough", "-f", "null", "-")
}
