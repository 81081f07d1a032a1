package faces

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	pigo "github.com/esimov/pigo/core"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/images"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
	"github.com/metaharvest/metaharvest/extractors/shared/vision"
	"github.com/metaharvest/metaharvest/internal/facedesc"
	"github.com/metaharvest/metaharvest/internal/ids"
)

// facefinder is pigo's frontal face cascade (MIT, see cascade/LICENSE),
// shipped here because the module has it but does not embed it.
//
//go:embed cascade/facefinder
var facefinder []byte

// vendor_faces finds faces with pigo, a pure-Go pixel-intensity
// comparison cascade, on pictures and on the frames of videos that
// video_main_frames picked (or, when it did not run, on frames sampled
// here): rectangles with pigo's score, a crop of each face, one segment
// per frame with faces, a descriptor of each face made by the vision
// sidecar (Human's faceres and faceres-deep, stored apart: see
// describe.go), and the people
// of the item (faces followed from frame to frame and joined by
// descriptor, unknown persons). It runs locally: no provider.
func init() {
	extractors.MustRegister(extractors.Info{
		Name:           "vendor_faces",
		DisplayName:    "Faces",
		Family:         extractors.FamilyFaces,
		Version:        "2.2.0",
		Implemented:    true,
		DefaultEnabled: true,
		// Up to 2000 frames, and 300 faces described at 0.15 to 0.3 s.
		Timeout: 30 * time.Minute,
		Tools:   []string{"ffmpeg", "ffprobe"},
		After:   []string{"video_main_frames"},
		Accept:  images.AcceptPictures,
		Fields:  fields,
		// Without facial recognition pigo alone runs; with it, the
		// sidecar must be installed.
		Check: func(env extractors.Env) error {
			if env.NoFaceDescriptors {
				return nil
			}
			return vision.Check(env)
		},
		Settings: append(append([]extractors.Setting(nil), vision.Settings...),
			extractors.Setting{Name: "same_person", Env: "FACES_SAME_PERSON", Kind: extractors.KindNumber,
				Default: strconv.FormatFloat(DefaultSamePerson, 'f', -1, 64), Min: 0, Above: true, Max: 1,
				Doc: "cosine similarity of two face descriptors from which two persons of one item are one (measured: the same person 0.62 to 0.90, different people 0.10 to 0.46; docs/vision.md)"},
			extractors.Setting{Name: "min_score", Env: "FACES_MIN_SCORE", Kind: extractors.KindNumber, Default: "25", Min: 0,
				Doc: "weakest pigo score kept as a face (false positives of the sample set scored up to 17, real faces 79 and more)"},
			extractors.Setting{Name: "max_pixels", Env: "FACES_MAX_PIXELS", Kind: extractors.KindInt, Default: strconv.Itoa(images.DefaultMaxPixels), Min: 1,
				Doc: "largest picture decoded, in pixels; larger ones are refused before decoding"},
		),
		New: newFaces,
	})
}

var fields = []extractors.Field{
	{Path: "count", Type: extractors.TypeNumber, Doc: "faces found (every detection, in every analysed frame)"},
	{Path: "frames_analysed", Type: extractors.TypeNumber, Doc: "pictures analysed: 1 for an image, frames for a video"},
	{Path: "frames_source", Type: extractors.TypeString, Doc: "image, video_main_frames (the frames of that extractor) or sampled (frames taken here)"},
	{Path: "faces.time", Type: extractors.TypeNumber, Doc: "video: time of the frame, seconds"},
	{Path: "faces.top", Type: extractors.TypeNumber, Doc: "pixels from the top of the upright picture or frame"},
	{Path: "faces.left", Type: extractors.TypeNumber, Doc: "pixels from the left"},
	{Path: "faces.width", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "faces.height", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "faces.confidence", Type: extractors.TypeNumber, Doc: "the detector's score: pigo's (not a probability: the sum of the scores of the merged detection windows), or for a face blazeface found, its probability times 100"},
	{Path: "faces.detector", Type: extractors.TypeString, Doc: "what found the face: pigo, or blazeface (the vision sidecar's, on pictures with facial recognition on: faces pigo missed)"},
	{Path: "faces.thumbnail_path", Type: extractors.TypeString, Doc: "crop of the face, relative to the extractor's artifact directory (artifact kind face)", Internal: true},
	{Path: "faces.person_id", Type: extractors.TypeString, Doc: "the person (see people) the face belongs to"},
	{Path: "faces.described", Type: extractors.TypeBool, Doc: "a descriptor of the face is stored (in the face_descriptors table, never in this data)"},
	{Path: "recognition", Type: extractors.TypeBool, Doc: "faces were described (FACIAL_RECOGNITION on)"},
	{Path: "descriptors", Type: extractors.TypeNumber, Doc: "faces described: every face of a picture, the best face of each person of a video, where the sidecar found the face again"},
	{Path: "people.person_id", Type: extractors.TypeString, Doc: "stable id of an unknown person of the item: faces followed across consecutive frames of a video, joined by descriptor (FACES_SAME_PERSON) when they never share a frame"},
	{Path: "people.is_known", Type: extractors.TypeBool, Doc: "always false"},
	{Path: "people.appearances", Type: extractors.TypeNumber, Doc: "analysed frames the person appears in (1 for a picture)"},
	{Path: "people.face_img_path", Type: extractors.TypeString, Doc: "crop of the person's best-scored face, relative to the extractor's artifact directory", Internal: true},
	{Path: "people.face_img_width", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "people.face_img_height", Type: extractors.TypeNumber, Doc: "pixels"},
	{Path: "people.confidence", Type: extractors.TypeNumber, Doc: "best score (faces.confidence) of the person's faces"},
	{Path: "people.first_time", Type: extractors.TypeNumber, Doc: "video: first appearance, seconds"},
	{Path: "people.last_time", Type: extractors.TypeNumber, Doc: "video: last appearance, seconds"},
}

const (
	// detectSide is the long side pictures and frames are analysed at:
	// faces of 20 pixels and more at that size are found.
	detectSide = 1280
	minFace    = 20
	// maxRawDetections bounds the windows merged (an O(n²) step) on a
	// picture that fires everywhere.
	maxRawDetections = 20000
	// clusterIoU merges windows that overlap this much into one face.
	clusterIoU = 0.2
	// maxFrames bounds the frames analysed of one video, maxFaces the
	// faces reported of one item, maxFacesPerFrame those of one frame.
	maxFrames        = 2000
	maxFaces         = 2000
	maxFacesPerFrame = 50
	// cropSide is the long side of face crops; cropMargin the share of the
	// face added around it.
	cropSide   = 256
	cropMargin = 0.25
	// trackIoU: a face in the next analysed frame overlapping a face this
	// much (in relative coordinates) is the same person.
	trackIoU = 0.3
	// Sampling when video_main_frames gave no frames: one frame every
	// interval (at least sampleMinInterval apart), at most sampleFrames,
	// at most sampleSide pixels.
	sampleFrames      = 30
	sampleMinInterval = 2.0
	sampleSide        = 960
	sampleMemory      = 2 << 30
)

type faces struct {
	run      *extractors.Runner
	load     *images.Loader
	cascade  *pigo.Pigo
	minScore float32
	// client is the vision sidecar that describes faces; nil when facial
	// recognition is off (FACIAL_RECOGNITION=false).
	client     *vision.Client
	tmp        string // where face crops are written for the sidecar
	model      string // what makes the descriptors
	samePerson float64
}

var (
	_ extractors.Extractor = (*faces)(nil)
	_ io.Closer            = (*faces)(nil) // Registry.Close lets go of the sidecar
)

func newFaces(env extractors.Env) (extractors.Extractor, error) {
	f, err := build(env, vision.Open)
	if err != nil {
		return nil, err
	}
	if f.client != nil {
		f.client.Warm()
	}
	return f, nil
}

// build makes the extractor on the worker process's shared sidecar pool,
// or on one of its own (tests: vision.Own).
func build(env extractors.Env, open func(*extractors.Runner, *slog.Logger, vision.Config, ...string) *vision.Client) (*faces, error) {
	score, err := env.Number("min_score")
	if err != nil {
		return nil, err
	}
	px, err := env.Int("max_pixels")
	if err != nil {
		return nil, err
	}
	same, err := env.Number("same_person")
	if err != nil {
		return nil, err
	}
	cascade, err := unpackCascade(facefinder)
	if err != nil {
		return nil, err
	}
	f := &faces{run: env.Runner, load: images.NewLoader(env.Runner, int64(px)), cascade: cascade, minScore: float32(score),
		samePerson: same}
	if env.NoFaceDescriptors {
		return f, nil
	}
	cfg, err := vision.FromEnv(env)
	if err != nil {
		return nil, err
	}
	if f.tmp, err = os.MkdirTemp("", "metaharvest-faces-"); err != nil {
		return nil, fmt.Errorf("vendor_faces: %w", err)
	}
	f.model = descriptorModel(vision.HumanVersion(cfg.Dir), vision.HumanModelsVersion(cfg.Dir), vision.FaceAPIVersion(cfg.Dir))
	f.client = open(env.Runner, env.Logger, cfg, vision.TaskFace)
	return f, nil
}

// Close lets go of the sidecar.
func (f *faces) Close() error {
	if f.client == nil {
		return nil
	}
	err := f.client.Close()
	os.RemoveAll(f.tmp)
	return err
}

// unpackCascade reads a pigo cascade; pigo indexes the bytes without
// checking them, so a damaged one is a panic turned into an error.
func unpackCascade(b []byte) (p *pigo.Pigo, err error) {
	defer func() {
		if v := recover(); v != nil {
			p, err = nil, fmt.Errorf("unpack face cascade: %v", v)
		}
	}()
	return pigo.NewPigo().Unpack(b)
}

// frame is one picture analysed: an image, or a frame of a video at time.
type frame struct {
	time  float64
	video bool
	img   *image.RGBA
	// scale maps the analysed picture to the reported coordinates (the
	// upright picture, or the frame as video_main_frames wrote it).
	scale float64
}

// found is one face.
type found struct {
	frame  int
	rect   extractors.Rectangle // reported coordinates
	rel    [4]float64           // left, top, right, bottom in 0..1 of the frame, for tracking
	score  float64
	crop   string
	cw, ch int
	person int
	desc   []float32 // its descriptor, L2-normalised; nil when not described
	// byBlazeface: found by the sidecar's blazeface (a picture's face pigo
	// missed), not by pigo.
	byBlazeface bool
}

func (f *faces) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, extractors.Transient(err)
	}
	var (
		frames []frame
		source string
		err    error
	)
	if strings.HasPrefix(in.MIME, "video/") {
		frames, source, err = f.videoFrames(ctx, in)
	} else {
		var pic *images.Picture
		pic, err = f.load.Load(ctx, in.Path, detectSide)
		if err == nil {
			upright := pic.Width
			if pic.Orientation >= 5 {
				upright = pic.Height
			}
			frames, source = []frame{{img: pic.Image, scale: float64(upright) / float64(pic.Image.Bounds().Dx())}}, "image"
		}
	}
	if err != nil {
		return nil, err
	}
	var all []found
	for i, fr := range frames {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		dets := f.detect(fr.img)
		if !fr.video && f.client != nil {
			more, err := f.detectBlazeface(ctx, fr.img, dets)
			if err != nil {
				return nil, err
			}
			dets = append(dets, more...)
		}
		for _, d := range dets {
			if len(all) >= maxFaces {
				break
			}
			d.frame = i
			d.rect = extractors.Rectangle{Top: round1(d.rect.Top * fr.scale), Left: round1(d.rect.Left * fr.scale),
				Width: round1(d.rect.Width * fr.scale), Height: round1(d.rect.Height * fr.scale)}
			all = append(all, d)
		}
	}
	track(all)
	if err := f.describe(ctx, frames, all); err != nil {
		return nil, err
	}
	// A face only blazeface found stays when the sidecar found it again
	// in its crop (described): blazeface's false faces (a cat's, 0.83)
	// end there.
	kept := all[:0]
	for _, d := range all {
		if !d.byBlazeface || d.desc != nil {
			kept = append(kept, d)
		}
	}
	all = kept
	group(all, f.samePerson)
	res := &extractors.Result{}
	if err := f.writeCrops(in, frames, all, res); err != nil {
		return nil, err
	}
	res.Data = f.data(in.ItemID, frames, source, all, res)
	return res, nil
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// detect runs the cascade on img and returns the faces scoring at least
// minScore, best first, with rectangles in img's pixels.
func (f *faces) detect(img *image.RGBA) []found {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w < minFace || h < minFace {
		return nil
	}
	gray := make([]uint8, w*h)
	for y := range h {
		row := img.Pix[img.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := range w {
			p := row[4*x : 4*x+3]
			gray[y*w+x] = uint8((299*uint32(p[0]) + 587*uint32(p[1]) + 114*uint32(p[2])) / 1000)
		}
	}
	dets := f.cascade.RunCascade(pigo.CascadeParams{MinSize: minFace, MaxSize: min(w, h), ShiftFactor: 0.1, ScaleFactor: 1.1,
		ImageParams: pigo.ImageParams{Pixels: gray, Rows: h, Cols: w, Dim: w}}, 0)
	if len(dets) > maxRawDetections {
		sort.Slice(dets, func(i, j int) bool { return dets[i].Q > dets[j].Q })
		dets = dets[:maxRawDetections]
	}
	dets = f.cascade.ClusterDetections(dets, clusterIoU)
	var out []found
	for _, d := range dets {
		if d.Q < f.minScore || d.Scale <= 0 {
			continue
		}
		s := float64(d.Scale)
		left := math.Max(0, float64(d.Col)-s/2)
		top := math.Max(0, float64(d.Row)-s/2)
		right := math.Min(float64(w), float64(d.Col)+s/2)
		bottom := math.Min(float64(h), float64(d.Row)+s/2)
		out = append(out, found{rect: extractors.Rectangle{Top: top, Left: left, Width: right - left, Height: bottom - top},
			rel: [4]float64{left / float64(w), top / float64(h), right / float64(w), bottom / float64(h)}, score: float64(d.Q)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].score > out[j].score })
	// pigo's clustering (by IoU) keeps a smaller window inside a larger
	// one on the same face: the weaker of two faces that share most of
	// the smaller one's area goes.
	kept := out[:0]
	for _, d := range out {
		nested := false
		for _, k := range kept {
			if overlapOfSmaller(d.rel, k.rel) >= nestedShare {
				nested = true
				break
			}
		}
		if !nested {
			kept = append(kept, d)
		}
	}
	out = kept
	if len(out) > maxFacesPerFrame {
		out = out[:maxFacesPerFrame]
	}
	return out
}

// track gives each face a person: a face overlapping (trackIoU) a face of
// the previous analysed frame is the same person, best overlaps first;
// others start a new person. Faces must be in frame order.
func track(all []found) {
	next := 0
	prevStart, prevEnd := 0, 0 // faces of the previous frame: all[prevStart:prevEnd]
	for start := 0; start < len(all); {
		end := start
		for end < len(all) && all[end].frame == all[start].frame {
			end++
		}
		consecutive := prevEnd > prevStart && all[prevStart].frame == all[start].frame-1
		type pair struct {
			cur, prev int
			iou       float64
		}
		var pairs []pair
		if consecutive {
			for i := start; i < end; i++ {
				for j := prevStart; j < prevEnd; j++ {
					if v := iou(all[i].rel, all[j].rel); v >= trackIoU {
						pairs = append(pairs, pair{i, j, v})
					}
				}
			}
		}
		sort.Slice(pairs, func(a, b int) bool { return pairs[a].iou > pairs[b].iou })
		for i := start; i < end; i++ {
			all[i].person = -1
		}
		taken := map[int]bool{}
		for _, p := range pairs {
			if all[p.cur].person < 0 && !taken[p.prev] {
				all[p.cur].person = all[p.prev].person
				taken[p.prev] = true
			}
		}
		for i := start; i < end; i++ {
			if all[i].person < 0 {
				all[i].person = next
				next++
			}
		}
		prevStart, prevEnd = start, end
		start = end
	}
}

// nestedShare: a face sharing this much of the smaller one's area with a
// stronger face is the same face.
const nestedShare = 0.6

// overlapOfSmaller is the share of the smaller rectangle's area inside
// the other.
func overlapOfSmaller(a, b [4]float64) float64 {
	w := math.Min(a[2], b[2]) - math.Max(a[0], b[0])
	h := math.Min(a[3], b[3]) - math.Max(a[1], b[1])
	if w <= 0 || h <= 0 {
		return 0
	}
	small := math.Min((a[2]-a[0])*(a[3]-a[1]), (b[2]-b[0])*(b[3]-b[1]))
	if small <= 0 {
		return 0
	}
	return w * h / small
}

func iou(a, b [4]float64) float64 {
	w := math.Min(a[2], b[2]) - math.Max(a[0], b[0])
	h := math.Min(a[3], b[3]) - math.Max(a[1], b[1])
	if w <= 0 || h <= 0 {
		return 0
	}
	inter := w * h
	union := (a[2]-a[0])*(a[3]-a[1]) + (b[2]-b[0])*(b[3]-b[1]) - inter
	if union <= 0 {
		return 0
	}
	return inter / union
}

// writeCrops writes a crop of each face (with a margin, at most cropSide
// pixels) below faces/ of the artifact directory.
func (f *faces) writeCrops(in *extractors.Input, frames []frame, all []found, res *extractors.Result) error {
	if len(all) == 0 {
		return nil
	}
	dir := filepath.Join(in.ArtifactDir, "faces")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return extractors.Transient(fmt.Errorf("artifact directory: %w", err))
	}
	for i := range all {
		d := &all[i]
		img := frames[d.frame].img
		b := img.Bounds()
		s := frames[d.frame].scale
		l, t := d.rect.Left/s, d.rect.Top/s
		w, h := d.rect.Width/s, d.rect.Height/s
		mx, my := w*cropMargin, h*cropMargin
		r := image.Rect(int(l-mx), int(t-my), int(math.Ceil(l+w+mx)), int(math.Ceil(t+h+my))).Add(b.Min).Intersect(b)
		if r.Empty() {
			continue
		}
		crop := images.Fit(img.SubImage(r), cropSide)
		name := fmt.Sprintf("faces/%04d.jpg", i)
		if err := images.WriteJPEG(filepath.Join(in.ArtifactDir, filepath.FromSlash(name)), crop); err != nil {
			return err
		}
		d.crop, d.cw, d.ch = name, crop.Bounds().Dx(), crop.Bounds().Dy()
		res.Artifacts = append(res.Artifacts, extractors.Artifact{Path: name, Kind: "face", Width: d.cw, Height: d.ch})
	}
	return nil
}

// data is the extractor's Data, and for videos its segments (one per frame
// with faces).
func (f *faces) data(itemID string, frames []frame, source string, all []found, res *extractors.Result) map[string]any {
	personID := map[int]string{}
	type person struct {
		best          *found
		frames        map[int]bool
		first, last   float64
		firstSeen     bool
		firstRect     extractors.Rectangle
		firstFrameIdx int
	}
	people := map[int]*person{}
	var order []int
	for i := range all {
		d := &all[i]
		p := people[d.person]
		if p == nil {
			p = &person{frames: map[int]bool{}, firstRect: d.rect, firstFrameIdx: d.frame}
			people[d.person] = p
			order = append(order, d.person)
		}
		t := frames[d.frame].time
		if !p.firstSeen || t < p.first {
			p.first = t
		}
		p.last = math.Max(p.last, t)
		p.firstSeen = true
		p.frames[d.frame] = true
		if p.best == nil || d.score > p.best.score {
			p.best = d
		}
	}
	for _, k := range order {
		p := people[k]
		// Stable across harvests of the same content: the item, where
		// and when the person first appears.
		personID[k] = ids.Derived("face", itemID, strconv.Itoa(p.firstFrameIdx), strconv.FormatFloat(frames[p.firstFrameIdx].time, 'f', 3, 64),
			strconv.FormatFloat(p.firstRect.Left, 'f', 1, 64), strconv.FormatFloat(p.firstRect.Top, 'f', 1, 64))
	}

	facesOut := make([]any, 0, len(all))
	segAt := map[int]int{}
	for i := range all {
		d := &all[i]
		fr := frames[d.frame]
		entry := map[string]any{"top": d.rect.Top, "left": d.rect.Left, "width": d.rect.Width, "height": d.rect.Height,
			"confidence": round3(d.score), "person_id": personID[d.person], "described": d.desc != nil, "detector": "pigo"}
		if d.byBlazeface {
			entry["detector"] = "blazeface"
		}
		if d.crop != "" {
			entry["thumbnail_path"] = d.crop
		}
		if d.desc != nil {
			fd := extractors.FaceDescriptor{Face: i, PersonID: personID[d.person], Box: d.rect, Thumbnail: d.crop, Model: f.model,
				Descriptor: facedesc.Quantize(d.desc)}
			if fr.video {
				t := round3(fr.time)
				fd.Time = &t
			}
			res.Faces = append(res.Faces, fd)
		}
		if fr.video {
			entry["time"] = round3(fr.time)
			si, ok := segAt[d.frame]
			if !ok {
				si = len(res.Segments)
				segAt[d.frame] = si
				res.Segments = append(res.Segments, extractors.Segment{Time: fr.time})
			}
			rect := d.rect
			res.Segments[si].Summary.People = append(res.Segments[si].Summary.People, extractors.SegmentPerson{
				ID: personID[d.person], FaceRectangle: &rect, ThumbnailPath: d.crop, Source: "pigo",
				FaceAttributes: map[string]any{"confidence": round3(d.score)}})
		}
		facesOut = append(facesOut, entry)
	}
	peopleOut := make([]any, 0, len(order))
	for _, k := range order {
		p := people[k]
		entry := map[string]any{"person_id": personID[k], "is_known": false, "appearances": len(p.frames),
			"confidence": round3(p.best.score)}
		if p.best.crop != "" {
			entry["face_img_path"], entry["face_img_width"], entry["face_img_height"] = p.best.crop, p.best.cw, p.best.ch
		}
		if frames[p.firstFrameIdx].video {
			entry["first_time"], entry["last_time"] = round3(p.first), round3(p.last)
		}
		peopleOut = append(peopleOut, entry)
	}
	// Most seen first: the item summary lists people by appearances.
	slices.SortStableFunc(peopleOut, func(a, b any) int {
		return b.(map[string]any)["appearances"].(int) - a.(map[string]any)["appearances"].(int)
	})
	return map[string]any{"count": len(all), "frames_analysed": len(frames), "frames_source": source,
		"faces": facesOut, "people": peopleOut, "recognition": f.client != nil, "descriptors": len(res.Faces)}
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// mainFrames is the data of video_main_frames this extractor reads.
type mainFrames struct {
	Frames []struct {
		Time   float64 `json:"time"`
		Path   string  `json:"path"`
		Width  int     `json:"width"`
		Height int     `json:"height"`
		Reason string  `json:"reason"`
	} `json:"frames"`
}

// ParseMainFrames reads video_main_frames' data: the frames with a usable
// time and a path inside its artifact directory, in time order, at most
// maxFrames.
func ParseMainFrames(raw []byte) ([]MainFrame, error) {
	var mf mainFrames
	if err := json.Unmarshal(raw, &mf); err != nil {
		return nil, fmt.Errorf("read video_main_frames data: %w", err)
	}
	var out []MainFrame
	for _, fr := range mf.Frames {
		if math.IsNaN(fr.Time) || math.IsInf(fr.Time, 0) || fr.Time < 0 || fr.Path == "" ||
			!filepath.IsLocal(filepath.FromSlash(fr.Path)) || strings.ContainsRune(fr.Path, 0) {
			continue
		}
		out = append(out, MainFrame{Time: fr.Time, Path: fr.Path, Width: fr.Width, Height: fr.Height})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	if len(out) > maxFrames {
		out = out[:maxFrames]
	}
	return out, nil
}

// MainFrame is one frame of video_main_frames: its file is Path below that
// extractor's artifact directory.
type MainFrame struct {
	Time          float64
	Path          string
	Width, Height int
}

// videoFrames loads the frames of video_main_frames when it ran in this
// harvest, else samples frames of the video.
func (f *faces) videoFrames(ctx context.Context, in *extractors.Input) ([]frame, string, error) {
	if raw, ok := in.Prior["video_main_frames"]; ok {
		list, err := ParseMainFrames(raw)
		if err != nil {
			return nil, "", err
		}
		dir := in.ArtifactsOf("video_main_frames")
		var frames []frame
		for _, mf := range list {
			pic, err := f.load.Load(ctx, filepath.Join(dir, filepath.FromSlash(mf.Path)), detectSide)
			if err != nil {
				if ctx.Err() != nil {
					return nil, "", err
				}
				return nil, "", fmt.Errorf("frame at %.3f s (%s): %w", mf.Time, mf.Path, err)
			}
			scale := 1.0
			if mf.Width > 0 {
				scale = float64(mf.Width) / float64(pic.Image.Bounds().Dx())
			} else if pic.Width > 0 {
				scale = float64(pic.Width) / float64(pic.Image.Bounds().Dx())
			}
			frames = append(frames, frame{time: mf.Time, video: true, img: pic.Image, scale: scale})
		}
		return frames, "video_main_frames", nil
	}
	frames, err := f.sample(ctx, in)
	return frames, "sampled", err
}

// sample takes frames of the video every interval seconds in one ffmpeg
// pass (key frames only once they are far apart), at most sampleSide
// pixels, for a harvest without video_main_frames.
func (f *faces) sample(ctx context.Context, in *extractors.Input) ([]frame, error) {
	probe, v, err := av.ReadVideo(ctx, f.run, in)
	if err != nil {
		return nil, err
	}
	if int64(v.Width)*int64(v.Height) > f.load.MaxPixels() {
		return nil, fmt.Errorf("%w: video of %dx%d pixels", images.ErrTooLarge, v.Width, v.Height)
	}
	interval := math.Max(sampleMinInterval, math.Ceil(probe.Duration()/sampleFrames))
	args := []string{"-nostdin", "-v", "error"}
	if interval >= 4 {
		args = append(args, "-skip_frame", "nokey")
	}
	args = append(args, av.InputArgs(in.Path)...)
	filter := fmt.Sprintf("scale=w='trunc(iw*sar/2)*2':h=ih,setsar=1,fps=1/%s,%s",
		strconv.FormatFloat(interval, 'f', -1, 64), images.FitFilter(sampleSide))
	args = append(args, "-map", "0:v:0", "-an", "-sn", "-dn", "-vf", filter, "-frames:v", strconv.Itoa(sampleFrames),
		"-f", "image2pipe", "-c:v", "png", "-compression_level", "0", "-pix_fmt", "rgb24", "pipe:1")
	limit := sampleFrames * (sampleSide*sampleSide*3 + 64<<10)
	out, err := f.run.Run(ctx, extractors.Cmd{Name: "ffmpeg", Args: args, Heavy: true, MaxMemory: sampleMemory, MaxOutput: limit})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("sample frames: ffmpeg: %w", err)
	}
	pics, err := images.DecodePNGs(out, sampleFrames, sampleSide, sampleSide)
	if err != nil {
		return nil, fmt.Errorf("sample frames: %w", err)
	}
	if len(pics) == 0 {
		return nil, errors.New("sample frames: ffmpeg gave no frame")
	}
	// Rectangles are given at the video's resolution; the long sides are
	// compared so that a rotated video (a phone held upright) maps right.
	long := float64(max(v.Width, v.Height))
	frames := make([]frame, 0, len(pics))
	for i, p := range pics {
		img := images.Fit(p, sampleSide)
		frames = append(frames, frame{time: float64(i) * interval, video: true, img: img,
			scale: long / float64(max(img.Bounds().Dx(), img.Bounds().Dy()))})
	}
	return frames, nil
}
