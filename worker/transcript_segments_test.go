package worker

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// A harvest through the real extractors, drained into the Postgres search
// engine: the words of a video's sidecar caption file and of its embedded
// subtitle track are found by a segment search at the frame whose stretch
// their cue falls in, and the words recognised in an audio file (speech to
// text, which has no frames) at segments of their own, at the times spoken.
func TestHarvestedCaptionsAndSpeechAreFoundInSegments(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"ffmpeg", "pocketsphinx_continuous"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s: %v", tool, err)
		}
	}
	f := newFixture(t, extractors.Default)
	// 4 s red then 4 s blue (frames at 0 and 4), with a French subtitle
	// track; an English caption file beside it.
	track := filepath.Join(t.TempDir(), "track.srt")
	if err := os.WriteFile(track, []byte("1\n00:00:06,500 --> 00:00:07,500\nLe phare au loin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.generateClip("clip.mp4",
		"-f", "lavfi", "-i", "color=red:s=160x120:r=25:d=4",
		"-f", "lavfi", "-i", "color=blue:s=160x120:r=25:d=4", "-i", track,
		"-filter_complex", "[0][1]concat=n=2:v=1:a=0[v]", "-map", "[v]", "-map", "2:s",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:s", "mov_text", "-metadata:s:s:0", "language=fra")
	f.write("clip.en.srt", "1\n00:00:01,000 --> 00:00:02,000\nThe ferry leaves at noon\n\n"+
		"2\n00:00:04,500 --> 00:00:06,000\nHarbour lights ahead\n")
	// Two sentences of a LibriVox reading, 2 s of silence between them
	// (the two-utterances recording of extractors/speech/testdata).
	f.generateClip("talk.wav", "-i", "../extractors/speech/testdata/ill-disposed.wav", "-i", "../extractors/speech/testdata/amiable.wav",
		"-filter_complex", "[0]apad=pad_dur=2[a];[a][1]concat=n=2:v=0:a=1")
	f.startWorker()
	// speech_to_text is not enabled by default: named with override.
	req := f.harvest(jobs.Spec{Extractors: []string{"video_main_frames", "caption_files", "captionsv2", "speech_to_text"}, OverrideExtractors: true})
	if job := f.waitJob(req, 2*time.Minute); job.IndexedCount != 3 {
		t.Fatalf("job: %+v", job)
	}
	var errs []models.Activity
	f.db.Where("request_id = ? AND kind = ? AND error <> ''", req, models.ActivityExtractor).Find(&errs)
	if len(errs) != 0 {
		t.Fatalf("extractor errors: %+v", errs)
	}
	ids := map[string]string{}
	for _, p := range []string{"clip.mp4", "talk.wav"} {
		var it models.Item
		if err := f.db.Where("path = ?", p).Take(&it).Error; err != nil {
			t.Fatal(err)
		}
		ids[p] = it.ID
	}

	eng := f.drained()
	ctx := context.Background()
	find := func(item, word string) []search.Segment {
		t.Helper()
		res, err := eng.SearchSegments(ctx, search.SegmentRequest{Query: word, Limit: 10,
			Filters: &search.SegmentFilters{ExactTerms: []search.Term{{Field: "item_id", Value: search.FlexString(ids[item])}}}},
			search.Visibility{All: true})
		if err != nil {
			t.Fatal(err)
		}
		var out []search.Segment
		for _, r := range res.Results {
			b, _ := json.Marshal(r.Result)
			var s search.Segment
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	for _, tc := range []struct {
		item, word   string
		time, tol    float64
		source, lang string
		thumbnail    bool
		cueStart     float64 // the entry's start: its first cue's
		text         string  // the entry's text, when known exactly
	}{
		{"clip.mp4", "ferry", 0, 0.05, "sidecar", "en", true, 1, "The ferry leaves at noon"},
		{"clip.mp4", "harbour", 4, 0.05, "sidecar", "en", true, 4.5, "Harbour lights ahead"},
		{"clip.mp4", "phare", 4, 0.05, "embedded", "fra", true, 6.5, "Le phare au loin"},
		// Near the times the bare tool gives (testdata/output/two-utterances.golden);
		// a segment made of cues is at its first cue's start.
		{"talk.wav", "young", 0.21, 0.1, "speech", "en", false, -1, ""},
		{"talk.wav", "amiable", 5.21, 0.1, "speech", "en", false, -1, ""},
	} {
		got := find(tc.item, tc.word)
		if len(got) != 1 || !nearly(got[0].Time, tc.time, tc.tol) || (got[0].Thumbnail != nil) != tc.thumbnail {
			t.Errorf("%s in %s: %+v, want one segment at %v", tc.word, tc.item, got, tc.time)
			continue
		}
		var entry *search.SegmentTranscript
		for i, tr := range got[0].Summary.Transcript {
			if tr.Source == tc.source {
				entry = &got[0].Summary.Transcript[i]
			}
		}
		if tc.cueStart < 0 {
			tc.cueStart = got[0].Time
		}
		if entry == nil || entry.Language != tc.lang || entry.Start != tc.cueStart || entry.End <= entry.Start ||
			!strings.Contains(strings.ToLower(entry.Text), tc.word) || tc.text != "" && entry.Text != tc.text {
			t.Errorf("%s in %s: transcript %+v", tc.word, tc.item, got[0].Summary.Transcript)
		}
	}
	// The audio file's segments are its two utterances, nothing else.
	if got := find("talk.wav", ""); len(got) != 2 {
		t.Errorf("segments of the audio file: %+v", got)
	}
}
