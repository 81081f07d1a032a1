package extractors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// airAPISampleNames is the extractor list air-api-sample (2024) sends with
// every harvest (ALL_EXTRACTOR_LIST in curio_harvest.py), in its order.
var airAPISampleNames = []string{
	"archive", "audioinfo", "audio_previews", "audiopeak", "black_scenes", "caption_files",
	"captionsv2", "slates", "gm_color_bars", "credits", "csv", "dbf", "gm_digital_slates",
	"document_pages", "dpx", "drm", "email", "captions", "exiv2", "fdx", "geocoding",
	"gm_audio_classification", "gm_faces", "hashes", "html", "json", "gmlanguage", "gmlogos",
	"m2ts", "mediainfo", "mime_type", "gmocr", "officex", "pdf", "gm_silence", "gms2t",
	"gmsports", "gm_start_end", "stow", "gm_texted", "gm_textless", "thumbnailer", "tokens",
	"video_main_frames", "video_previews", "volumedetect", "weather", "xml",
}

// Every name air-api-sample sends resolves: its own names to themselves,
// the brand-prefixed ones to the reference's neutral names, and the two
// provider extractors without a counterpart to themselves (not available).
func TestResolveOriginalClientNames(t *testing.T) {
	t.Parallel()
	if len(airAPISampleNames) != 48 {
		t.Fatalf("%d names, want 48", len(airAPISampleNames))
	}
	want := map[string]string{
		"gm_color_bars": "vendor_color_bars", "gm_digital_slates": "vendor_digital_slates",
		"gm_audio_classification": "vendor_audio_classification", "gm_faces": "vendor_faces",
		"gm_silence": "vendor_silence", "gm_start_end": "vendor_start_end", "gm_texted": "vendor_texted",
		"gm_textless": "vendor_textless", "gmsports": "vendorsports", "gmlanguage": "vendorlanguage",
		"gmocr": "tesseract", "stow": "store", "gmlogos": "gmlogos", "gms2t": "gms2t",
	}
	// The reference's names as placeholders (the families are not linked
	// in this package's tests; extractors/families checks the aliases
	// against the extractors the binary links).
	r := NewRegistry()
	for _, name := range airAPISampleNames {
		if _, aliased := want[name]; !aliased {
			r.MustRegister(Info{Name: name, Family: FamilyTechnical, Version: "1"})
		}
	}
	for _, target := range aliases {
		if _, ok := r.Get(target); !ok {
			r.MustRegister(Info{Name: target, Family: FamilyTechnical, Version: "1"})
		}
	}
	for _, name := range airAPISampleNames {
		got, ok := r.Resolve(name)
		if !ok {
			t.Errorf("Resolve(%q) unknown", name)
			continue
		}
		if w, aliased := want[name]; aliased {
			if got != w {
				t.Errorf("Resolve(%q) = %q, want %q", name, got, w)
			}
		} else if got != name {
			t.Errorf("Resolve(%q) = %q, want itself", name, got)
		}
	}
	for _, name := range []string{"gm_nonsense", "gmfoo", "vendorfoo", "", "STORE"} {
		if got, ok := r.Resolve(name); ok {
			t.Errorf("Resolve(%q) = %q, want unknown", name, got)
		}
	}
}

// A provider extractor without a counterpart runs as "not available" with
// its reason, like any extractor that cannot run here.
func TestProviderExtractorWithoutCounterpart(t *testing.T) {
	t.Parallel()
	ok, reason := Default.Available("gms2t")
	if ok || !strings.Contains(reason, "speech to text") {
		t.Fatalf("Available(gms2t) = %v, %q", ok, reason)
	}
	outs := Run(context.Background(), Default, []string{"gms2t", "gmlogos"}, sampleInput(t), time.Minute)
	var names []string
	for _, o := range outs {
		names = append(names, o.Name)
		if o.Name == "gms2t" || o.Name == "gmlogos" {
			if !errors.Is(o.Err, ErrUnavailable) || !strings.HasPrefix(o.Err.Error(), "not available: "+o.Name+" (") {
				t.Errorf("%s: %v", o.Name, o.Err)
			}
		}
	}
	if strings.Join(names, ",") != "gms2t,gmlogos" {
		t.Errorf("ran %v", names)
	}

}

// Once the extractor doing a provider extractor's work is registered (the
// vendor and speech families linked), the client's name resolves to it;
// without it (this package's Default) the name stays, not available.
func TestProviderExtractorWithCounterpart(t *testing.T) {
	t.Parallel()
	r := NewRegistry()
	newHashes := func(Env) (Extractor, error) { return hashes{}, nil }
	for _, name := range []string{"logos", "speech_to_text"} {
		r.MustRegister(Info{Name: name, Family: FamilyTechnical, DisplayName: name, Implemented: true, New: newHashes})
	}
	for client, want := range map[string]string{"gmlogos": "logos", "gms2t": "speech_to_text"} {
		if got, ok := r.Resolve(client); !ok || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", client, got, ok, want)
		}
		if got, ok := NewRegistry().Resolve(client); !ok || got != client {
			t.Errorf("without %s: Resolve(%q) = %q, %v", want, client, got, ok)
		}
	}
}
