package faces

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/facedesc"
)

// registry holds vendor_faces, which runs here, without a provider, with
// the vision sidecar of this clone describing the faces (env may name
// another).
func registry(t testing.TB, env map[string]string) *extractors.Registry {
	t.Helper()
	if info, _ := extractors.Default.Get("vendor_faces"); info.Provider != "" {
		t.Fatalf("vendor_faces needs a provider: %+v", info)
	}
	all := map[string]string{"VISION_SIDECAR_DIR": extractortest.VisionDir(t)}
	for k, v := range env {
		all[k] = v
	}
	return extractortest.Registry(t, all, "vendor_faces")
}

// run runs vendor_faces on the file at path of the given MIME type, the
// extractors before it having given prior and their artifacts below root
// (the item's artifact directory; a fresh one when empty).
func run(t testing.TB, reg *extractors.Registry, path, mime string, prior map[string]json.RawMessage, root string) extractors.Outcome {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	in := extractortest.Input(t, abs)
	in.MIME, in.Prior = mime, prior
	if root != "" {
		in.ArtifactDir = root
	}
	return extractortest.Run(t, reg, "vendor_faces", in)
}

// The astronaut (Eileen Collins, NASA, public domain; skimage's sample):
// one face, whose centre was measured by hand on the picture at about
// (223, 118), some 100 pixels wide from ear to ear.
func TestFacesAstronaut(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	o := run(t, registry(t, nil), "testdata/astronaut.png", "image/png", nil, root)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["count"] != 1 || o.Data["frames_source"] != "image" || len(o.Segments) != 0 {
		t.Fatalf("data %v segments %v", o.Data, o.Segments)
	}
	face := o.Data["faces"].([]any)[0].(map[string]any)
	cx := face["left"].(float64) + face["width"].(float64)/2
	cy := face["top"].(float64) + face["height"].(float64)/2
	if math.Abs(cx-223) > 20 || math.Abs(cy-118) > 20 || face["width"].(float64) < 80 || face["width"].(float64) > 160 {
		t.Errorf("face %v: centre (%.0f, %.0f)", face, cx, cy)
	}
	if face["confidence"].(float64) <= 25 || face["described"] != true || o.Data["recognition"] != true || o.Data["descriptors"] != 1 {
		t.Errorf("face %v, data %v", face, o.Data)
	}
	if len(o.Faces) != 1 || o.Faces[0].Face != 0 || len(o.Faces[0].Descriptor) != facedesc.Size ||
		o.Faces[0].PersonID != face["person_id"] || o.Faces[0].Thumbnail != face["thumbnail_path"] || o.Faces[0].Time != nil ||
		!strings.HasPrefix(o.Faces[0].Model, "human-faceres+faceres-deep+face-api 3.") {
		t.Errorf("descriptors %+v", o.Faces)
	}
	person := o.Data["people"].([]any)[0].(map[string]any)
	if person["appearances"] != 1 || person["is_known"] != false || person["person_id"] != face["person_id"] ||
		person["face_img_path"] != face["thumbnail_path"] || len(person["person_id"].(string)) != 32 {
		t.Errorf("person %v", person)
	}
	if len(o.Artifacts) != 1 || o.Artifacts[0].Kind != "face" {
		t.Fatalf("artifacts %v", o.Artifacts)
	}
	if _, err := os.Stat(filepath.Join(root, "vendor_faces", o.Artifacts[0].Path)); err != nil {
		t.Error(err)
	}
	// The same picture gives the same person id.
	again := run(t, registry(t, nil), "testdata/astronaut.png", "image/png", nil, "")
	if again.Data["people"].([]any)[0].(map[string]any)["person_id"] != person["person_id"] {
		t.Error("person id not stable")
	}
}

// video-001.png (two men at a lectern, faces of about 25 pixels in a
// 150-pixel picture) makes pigo fire at a score of about 17: the default
// minimum (25) drops it, a low one keeps it (pigo alone: facial
// recognition off). With it on, the sidecar's blazeface finds both men
// and finds the larger one (31 pixels) again in his crop: one face.
func TestFacesWeakDetectionsFiltered(t *testing.T) {
	t.Parallel()
	o := run(t, registryOff(t, nil), "testdata/video-001.png", "image/png", nil, "")
	if o.Err != nil || o.Data["count"] != 0 {
		t.Errorf("default: %v %v", o.Data, o.Err)
	}
	o = run(t, registryOff(t, map[string]string{"FACES_MIN_SCORE": "5"}), "testdata/video-001.png", "image/png", nil, "")
	if o.Err != nil || o.Data["count"].(int) < 1 {
		t.Errorf("min score 5: %v %v", o.Data, o.Err)
	}
	o = run(t, registry(t, nil), "testdata/video-001.png", "image/png", nil, "")
	if o.Err != nil || o.Data["count"] != 1 || o.Data["descriptors"] != 1 {
		t.Errorf("recognition on: %v %v", o.Data, o.Err)
	}
}

// Frames of video_main_frames (made here: the astronaut, shifted, black,
// again): one segment per frame with a face, the face followed across
// consecutive frames as one person, a new person after a frame without it.
func TestFacesVideoMainFrames(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "video_main_frames", "frames")
	os.MkdirAll(dir, 0o755)
	extractortest.FFmpeg(t, "-i", "testdata/astronaut.png", filepath.Join(dir, "a.jpg"))
	extractortest.FFmpeg(t, "-i", "testdata/astronaut.png", "-vf", "crop=496:512:16:0,pad=512:512:0:0", filepath.Join(dir, "b.jpg"))
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "color=c=black:s=512x512", "-frames:v", "1", filepath.Join(dir, "c.jpg"))
	prior := map[string]json.RawMessage{"video_main_frames": json.RawMessage(`{"frames":[
		{"time":4,"path":"frames/a.jpg","width":512,"height":512,"reason":"periodic"},
		{"time":1,"path":"frames/a.jpg","width":512,"height":512,"reason":"scene"},
		{"time":2,"path":"frames/b.jpg","width":512,"height":512,"reason":"keyframe"},
		{"time":3,"path":"frames/c.jpg","width":512,"height":512,"reason":"periodic"},
		{"time":5,"path":"../../etc/passwd","reason":"hostile"}]}`)}
	video := filepath.Join(t.TempDir(), "v.mp4")
	os.WriteFile(video, []byte("not read: the frames are"), 0o644)
	o := run(t, registry(t, nil), video, "video/mp4", prior, root)
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["frames_source"] != "video_main_frames" || o.Data["frames_analysed"] != 4 || o.Data["count"] != 3 {
		t.Fatalf("data %v", o.Data)
	}
	var times []float64
	for _, s := range o.Segments {
		times = append(times, s.Time)
		if len(s.Summary.People) != 1 || s.Summary.People[0].Source != "pigo" || s.Summary.People[0].FaceRectangle == nil ||
			s.Summary.People[0].ThumbnailPath == "" || s.Summary.People[0].FaceAttributes["confidence"].(float64) <= 25 {
			t.Errorf("segment %+v", s)
		}
	}
	if fmt.Sprint(times) != "[1 2 4]" {
		t.Errorf("segment times %v", times)
	}
	// Followed from 1 s to 2 s by position, lost in the black frame, and
	// found again at 4 s by descriptor: one person.
	people := o.Data["people"].([]any)
	if len(people) != 1 {
		t.Fatalf("people %v", people)
	}
	first := people[0].(map[string]any)
	if first["appearances"] != 3 || first["first_time"] != 1.0 || first["last_time"] != 4.0 {
		t.Errorf("people %v", people)
	}
	// One descriptor per person followed by position: the best face of
	// each of the two runs, at their frames' times.
	if len(o.Faces) != 2 || o.Faces[0].Time == nil || o.Faces[0].PersonID != first["person_id"] || o.Faces[1].PersonID != first["person_id"] {
		t.Errorf("descriptors %+v", o.Faces)
	}
	// Without descriptors (FACIAL_RECOGNITION=false), position only: two.
	off := run(t, registryOff(t, nil), video, "video/mp4", prior, root)
	if off.Err != nil || len(off.Data["people"].([]any)) != 2 || len(off.Faces) != 0 {
		t.Errorf("recognition off: people %v, descriptors %d, %v", off.Data["people"], len(off.Faces), off.Err)
	}
	// The shifted frame's face is 16 pixels to the left.
	faces := o.Data["faces"].([]any)
	if d := faces[0].(map[string]any)["left"].(float64) - faces[1].(map[string]any)["left"].(float64); d < 8 || d > 24 {
		t.Errorf("shift %v", d)
	}
}

// Without video_main_frames, frames are sampled (every 2 s of a 6 s clip
// of the astronaut).
func TestFacesSampledVideo(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "astronaut.mp4")
	extractortest.FFmpeg(t, "-loop", "1", "-i", "testdata/astronaut.png", "-t", "6", "-r", "5", "-c:v", "libx264", "-preset", "ultrafast",
		"-pix_fmt", "yuv420p", p)
	o := run(t, registry(t, nil), p, "video/mp4", nil, "")
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	if o.Data["frames_source"] != "sampled" || o.Data["frames_analysed"] != 3 || o.Data["count"] != 3 || len(o.Segments) != 3 {
		t.Fatalf("data %v", o.Data)
	}
	people := o.Data["people"].([]any)
	if len(people) != 1 || people[0].(map[string]any)["appearances"] != 3 {
		t.Errorf("people %v", people)
	}
	if o.Segments[2].Time != 4 {
		t.Errorf("last segment at %v", o.Segments[2].Time)
	}
}

// A frame declaring 60000 x 60000 pixels is refused before decoding.
func TestFacesHostileFrame(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "video_main_frames")
	os.MkdirAll(dir, 0o755)
	b, _ := os.ReadFile("testdata/video-001.png")
	// IHDR ("IHDR" at 12, width and height at 16..24, CRC at 29..33).
	copy(b[16:], []byte{0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60})
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	os.WriteFile(filepath.Join(dir, "flood.png"), b, 0o644)
	prior := map[string]json.RawMessage{"video_main_frames": json.RawMessage(`{"frames":[{"time":0,"path":"flood.png"}]}`)}
	o := run(t, registry(t, nil), "testdata/video-001.png", "video/mp4", prior, root)
	if o.Err == nil || extractors.IsTransient(o.Err) || !strings.Contains(o.Err.Error(), "pixel") {
		t.Errorf("err = %v", o.Err)
	}
}

func TestParseMainFrames(t *testing.T) {
	t.Parallel()
	got, err := ParseMainFrames([]byte(`{"frames":[{"time":3,"path":"b.jpg"},{"time":-1,"path":"x.jpg"},{"time":1,"path":"/etc/passwd"},
		{"time":1,"path":"../x.jpg"},{"time":2,"path":""},{"time":0.5,"path":"a/b.jpg","width":640,"height":360}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{0.5 a/b.jpg 640 360} {3 b.jpg 0 0}]" {
		t.Errorf("frames %v", got)
	}
	if _, err := ParseMainFrames([]byte(`{"frames":`)); err == nil {
		t.Error("truncated JSON read")
	}
}

func TestUnpackDamagedCascade(t *testing.T) {
	t.Parallel()
	if _, err := unpackCascade(facefinder[:100]); err == nil {
		t.Error("damaged cascade unpacked")
	}
	if _, err := unpackCascade(facefinder); err != nil {
		t.Error(err)
	}
}

func TestSuite(t *testing.T) {
	t.Parallel()
	got := extractortest.Suite(t, registry(t, nil), []string{"testdata/astronaut.png", "testdata/video-001.png"})
	if o := got["vendor_faces"]["astronaut.png"]; o.Err != nil || o.Data["count"] != 1 {
		t.Errorf("astronaut: %v %v", o.Data, o.Err)
	}
}

func FuzzParseMainFrames(f *testing.F) {
	f.Add([]byte(`{"frames":[{"time":1.5,"path":"frames/0001.jpg","width":1280,"height":720,"reason":"scene"}]}`))
	f.Add([]byte(`{"frames":[{"time":1e400,"path":"../x"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		frames, err := ParseMainFrames(b)
		if err != nil {
			return
		}
		for i, fr := range frames {
			if !filepath.IsLocal(filepath.FromSlash(fr.Path)) || fr.Time < 0 || math.IsNaN(fr.Time) || math.IsInf(fr.Time, 0) {
				t.Fatalf("frame %+v", fr)
			}
			if i > 0 && frames[i-1].Time > fr.Time {
				t.Fatal("not in time order")
			}
		}
		if len(frames) > maxFrames {
			t.Fatalf("%d frames", len(frames))
		}
	})
}
