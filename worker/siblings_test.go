package worker

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/internal/jobs"
)

// siblingLister records what Input.Siblings gives each item, with the
// content read through Open.
type siblingLister struct {
	mu  sync.Mutex
	got map[string][]string // item name -> "name=content" of its siblings
	nil map[string]bool     // item name -> Siblings was nil
}

func (s *siblingLister) Extract(ctx context.Context, in *extractors.Input) (*extractors.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in.Siblings == nil {
		s.nil[in.Name] = true
		return &extractors.Result{}, nil
	}
	sibs, err := in.Siblings(ctx, []string{"srt", "vtt"})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sb := range sibs {
		rc, err := sb.Open()
		if err != nil {
			out = append(out, sb.Name+"!"+err.Error())
			continue
		}
		b, _ := io.ReadAll(io.LimitReader(rc, 100))
		rc.Close()
		out = append(out, sb.Name+"="+string(b))
	}
	s.got[in.Name] = out
	return &extractors.Result{}, nil
}

// A local container gives extractors the files named like the item in its
// directory: not the item itself, not other extensions, not files of a
// sub-directory, not symlinks, at most MaxSiblings of them.
func TestSiblingsOfLocalItems(t *testing.T) {
	t.Parallel()
	lister := &siblingLister{got: map[string][]string{}, nil: map[string]bool{}}
	reg := testRegistry(t)
	reg.MustRegister(extractors.Info{Name: "sidecars", Family: extractors.FamilyTechnical, DisplayName: "Sidecars", Version: "1", Implemented: true, DefaultEnabled: true,
		Accept: extractors.AcceptMIME(nil, "mp4", "mkv"),
		New:    func(extractors.Env) (extractors.Extractor, error) { return lister, nil }})
	f := newFixture(t, reg)
	f.write("show/clip.mp4", "video")
	f.write("show/clip.srt", "plain")
	f.write("show/clip.en.srt", "english")
	f.write("show/clip.fr.VTT", "french")
	f.write("show/clip.txt", "not a caption")
	f.write("show/clip.d/clip.srt", "in a sub-directory")
	f.write("show/clip2.srt", "another clip's")
	f.write("show/other.mkv", "video")
	f.write("show/many.mkv", "video")
	for i := range extractors.MaxSiblings + 5 {
		f.write(filepath.Join("show", "many."+strings.Repeat("x", i+1)+".srt"), "m")
	}
	secret := filepath.Join(t.TempDir(), "secret.srt")
	if err := os.WriteFile(secret, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(f.media, "show", "clip.de.srt")); err != nil {
		t.Fatal(err)
	}
	f.startWorker()
	req := f.harvest(jobs.Spec{Extractors: []string{"sidecars"}})
	f.waitJob(req, mediaJobWait)

	lister.mu.Lock()
	defer lister.mu.Unlock()
	want := "clip.en.srt=english|clip.fr.VTT=french|clip.srt=plain"
	if got := strings.Join(lister.got["clip.mp4"], "|"); got != want {
		t.Errorf("siblings of clip.mp4: %s, want %s", got, want)
	}
	if got := lister.got["other.mkv"]; len(got) != 0 || lister.nil["other.mkv"] {
		t.Errorf("siblings of other.mkv: %v (nil %v)", got, lister.nil["other.mkv"])
	}
	if got := lister.got["many.mkv"]; len(got) != extractors.MaxSiblings {
		t.Errorf("siblings of many.mkv: %d, want the cap %d", len(got), extractors.MaxSiblings)
	}
}

func TestIsSibling(t *testing.T) {
	t.Parallel()
	exts := []string{"srt", "vtt"}
	for name, want := range map[string]bool{
		"clip.srt": true, "clip.en.srt": true, "clip.eng.forced.SRT": true, "clip.mp4.vtt": true,
		"clip.mp4": false, "clip2.srt": false, "clip.txt": false, "clipsrt": false, "sub/clip.srt": false, "x.clip.srt": false,
	} {
		if got := extractors.IsSibling("clip.mp4", name, exts); got != want {
			t.Errorf("IsSibling(clip.mp4, %s) = %v", name, got)
		}
	}
	if extractors.IsSibling(".mp4", ".srt", exts) || extractors.IsSibling("clip.srt", "clip.srt", exts) {
		t.Error("an item without a base name, or the item itself, has siblings")
	}
}
