package ocr

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// When video_main_frames has not run, the frames to read are sampled by
// one ffmpeg decode: densely at both ends of the video, where slates,
// titles and credits are, and sparsely between, within the image budget.
const (
	// denseInterval is the spacing of the frames at both ends, seconds.
	denseInterval = 2.0
	// endZone is how much of each end is sampled densely, seconds.
	endZone = 60.0
	// unknownInterval spaces the frames of a stream of unknown length.
	unknownInterval = 10.0
	// maxDecode caps the decode, as the other video analyses do.
	maxDecode = 4 * 60 * 60
	// sampleBox bounds the sampled frames (aspect kept, never enlarged):
	// text of a 1080p picture stays readable at half size.
	sampleBox = 960
	// maxVideoPixels refuses pictures no decoder should be asked for.
	maxVideoPixels = 8192 * 8192
)

// samplePlan says which frames the decode keeps: every Dense seconds
// before Head and from TailStart, every Sparse seconds between, until
// Limit, and MaxFrames at most.
type samplePlan struct {
	Dense, Sparse          float64
	Head, TailStart, Limit float64
	MaxFrames              int
}

// planSamples spreads maxFrames over a video of the given duration (0 when
// unknown): the ends take at most 60% of the budget (spaced more widely
// when the budget is small), the middle the rest.
func planSamples(duration float64, maxFrames int) samplePlan {
	p := samplePlan{Dense: denseInterval, MaxFrames: maxFrames, Limit: maxDecode}
	if duration > 0 {
		p.Limit = min(duration, maxDecode)
	}
	p.Head = min(endZone, p.Limit)
	p.TailStart = p.Limit
	if duration > 0 {
		p.TailStart = max(p.Head, p.Limit-endZone)
	}
	ends := p.Head + p.Limit - p.TailStart
	if budget := max(1, maxFrames*6/10); ends/p.Dense > float64(budget) {
		p.Dense = roundUpHalf(ends / float64(budget))
	}
	left := maxFrames - int(math.Ceil(p.Head/p.Dense)) - int(math.Ceil((p.Limit-p.TailStart)/p.Dense))
	middle := p.TailStart - p.Head
	switch {
	case duration <= 0:
		p.Sparse = max(p.Dense, unknownInterval)
	case middle <= 0:
		p.Sparse = p.Dense
	default:
		p.Sparse = max(p.Dense, roundUpHalf(middle/float64(max(left, 1))))
	}
	return p
}

// roundUpHalf rounds seconds up to a half second, so that intervals read well.
func roundUpHalf(x float64) float64 { return math.Ceil(x*2) / 2 }

// selectExpr is the select filter's expression. Register 0 holds the time
// the next frame is due; a frame at or after it is taken and the next due
// time set on the grid of the zone the frame is in (a zone's grid ends
// where the next zone begins).
func (p samplePlan) selectExpr() string {
	r := strings.NewReplacer("LIMIT", num(p.Limit), "HEAD", num(p.Head), "TAIL", num(p.TailStart),
		"DENSE", num(p.Dense), "SPARSE", num(p.Sparse))
	return r.Replace("if(isnan(t)+lt(t,0)+gte(t,LIMIT),0,if(lt(t,ld(0)),0," +
		"st(0,if(lt(t,HEAD),min((floor(t/DENSE)+1)*DENSE,HEAD)," +
		"if(lt(t,TAIL),min(HEAD+(floor((t-HEAD)/SPARSE)+1)*SPARSE,TAIL)," +
		"TAIL+(floor((t-TAIL)/DENSE)+1)*DENSE)));1))")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// sampled are frames the decode wrote in a temporary directory, removed by
// cleanup.
type sampled struct {
	frames   []videoFrame
	plan     samplePlan
	duration float64
	cleanup  func()
}

// sampleFrames decodes the video once and writes the planned frames as
// grey PNG files named by their time in milliseconds:
//
//	ffmpeg -nostdin -v error -t LIMIT -i FILE -map 0:V -an -sn -dn \
//	  -vf "select='EXPR',scale=w='min(960,iw)':h='min(960,ih)':force_original_aspect_ratio=decrease,format=gray" \
//	  -fps_mode passthrough -enc_time_base 1/1000 -frames:v MAX -c:v png -f image2 -frame_pts 1 DIR/%09d.png
func sampleFrames(ctx context.Context, run *extractors.Runner, in *extractors.Input, maxFrames int) (*sampled, error) {
	probe, v, err := av.ReadMoving(ctx, run, in)
	if err != nil {
		return nil, err
	}
	if int64(v.Width)*int64(v.Height) > maxVideoPixels {
		return nil, fmt.Errorf("video picture of %dx%d pixels is over the limit", v.Width, v.Height)
	}
	duration := av.Seconds(v.Duration)
	if duration <= 0 {
		duration = probe.Duration()
	}
	plan := planSamples(duration, maxFrames)
	dir, err := os.MkdirTemp("", "metaharvest-ocr-")
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("frame directory: %w", err))
	}
	cleanup := func() { os.RemoveAll(dir) }
	abs, err := filepath.Abs(in.Path)
	if err != nil {
		cleanup()
		return nil, extractors.Transient(fmt.Errorf("video path: %w", err))
	}
	args := []string{"-nostdin", "-v", "error", "-nostats", "-threads", "2", "-t", num(plan.Limit)}
	args = append(args, av.InputArgs(abs)...)
	args = append(args, "-map", fmt.Sprintf("0:%d", v.Index), "-an", "-sn", "-dn",
		"-vf", fmt.Sprintf("select='%s',scale=w='min(%d,iw)':h='min(%d,ih)':force_original_aspect_ratio=decrease,format=gray",
			plan.selectExpr(), sampleBox, sampleBox),
		"-fps_mode", "passthrough", "-enc_time_base", "1/1000", "-frames:v", strconv.Itoa(maxFrames),
		"-c:v", "png", "-f", "image2", "-frame_pts", "1", "file:"+filepath.Join(dir, "%09d.png"))
	if _, err := run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, MaxOutput: 1 << 20}); err != nil {
		cleanup()
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("sample frames: %w", err)
	}
	frames, err := listSampled(dir)
	if err != nil {
		cleanup()
		return nil, err
	}
	if duration <= 0 && len(frames) > 0 {
		duration = frames[len(frames)-1].Time + plan.Sparse
	}
	return &sampled{frames: frames, plan: plan, duration: min(duration, plan.Limit), cleanup: cleanup}, nil
}

// listSampled lists the frames ffmpeg wrote, in time order.
func listSampled(dir string) ([]videoFrame, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, extractors.Transient(fmt.Errorf("list frames: %w", err))
	}
	var out []videoFrame
	for _, e := range entries {
		ms, ok := strings.CutSuffix(e.Name(), ".png")
		n, err := strconv.ParseInt(ms, 10, 64)
		if !ok || err != nil || n < 0 || !e.Type().IsRegular() {
			continue
		}
		out = append(out, videoFrame{Time: float64(n) / 1000, Path: filepath.Join(dir, e.Name())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out, nil
}
