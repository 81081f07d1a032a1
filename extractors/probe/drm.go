package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// drm says whether a media file is protected, and by what: for MP4 and
// fragmented MP4 (CENC, CMAF, PIFF, QuickTime) the encrypted sample entries
// (encv, enca), their protection scheme (cenc, cbcs, ...), default key ids
// and the pssh boxes of DRM systems, from a bounded walk of the boxes; for
// ASF (Windows Media) the content encryption objects of its header; for
// MPEG transport streams the scrambling bits of the first packets; for
// other containers (Matroska/WebM) the encryption side data ffprobe
// reports. Key ids are identifiers, not keys: no secret is read.
func init() {
	extractors.MustRegister(drmInfo)
}

var drmInfo = extractors.Info{
	Name:           "drm",
	DisplayName:    "DRM Detection",
	Family:         extractors.FamilyTechnical,
	Version:        "1.0.0",
	Implemented:    true,
	RangeReads:     true,
	DefaultEnabled: true,
	Tools:          []string{"ffprobe"},
	Accept:         acceptMIME(mediaMIME, mediaExts...),
	Fields: []extractors.Field{
		{Path: "protected", Type: extractors.TypeBool, Doc: "the content is encrypted or scrambled"},
		{Path: "container", Type: extractors.TypeString, Doc: "what was examined: mp4, asf, mpegts, or ffprobe's format name"},
		{Path: "systems", Type: extractors.TypeString, Doc: "list of DRM systems named by the file (Widevine, PlayReady, FairPlay, ClearKey, Marlin, Windows Media DRM, ...)"},
		{Path: "schemes", Type: extractors.TypeString, Doc: "list of common-encryption schemes of the encrypted tracks (cenc, cbcs, cens, cbc1)"},
		{Path: "key_ids", Type: extractors.TypeString, Doc: "list of key ids (UUIDs) the tracks and pssh boxes name"},
		{Path: "encrypted_video_tracks", Type: extractors.TypeNumber, Doc: "video tracks with encrypted samples"},
		{Path: "encrypted_audio_tracks", Type: extractors.TypeNumber, Doc: "audio tracks with encrypted samples"},
		{Path: "encrypted_other_tracks", Type: extractors.TypeNumber, Doc: "other tracks (subtitles, metadata) with encrypted samples"},
		{Path: "pssh.system_id", Type: extractors.TypeString, Doc: "DRM system id (UUID) of a pssh box"},
		{Path: "pssh.system", Type: extractors.TypeString, Doc: "the system's name, when known"},
		{Path: "pssh.key_id_count", Type: extractors.TypeNumber, Doc: "key ids listed in the box (version 1)"},
		{Path: "pssh.data_size", Type: extractors.TypeNumber, Doc: "bytes of system-specific data"},
		{Path: "scrambled_packets", Type: extractors.TypeNumber, Doc: "transport stream packets with scrambling bits set, in the first MiB"},
		{Path: "evidence", Type: extractors.TypeString, Doc: "list of what showed the protection (\"mp4 encv/enca sample entries\", \"pssh boxes\", \"asf content encryption object\", \"mpegts scrambling control\", \"ffprobe encryption side data\")"},
		{Path: "partial", Type: extractors.TypeBool, Doc: "the file could be examined only in part (truncated, or past the walk's limits)"},
	},
	New: newReader(readDRM),
}

// drmSystems names the DRM system ids of the DASH-IF registry met in files.
var drmSystems = map[string]string{
	"edef8ba9-79d6-4ace-a3c8-27dcd51d21ed": "Widevine",
	"9a04f079-9840-4286-ab92-e65be0885f95": "PlayReady",
	"79f0049a-4098-8642-ab92-e65be0885f95": "PlayReady", // PIFF byte order
	"94ce86fb-07ff-4f43-adb8-93d2fa968ca2": "FairPlay",
	"1077efec-c0b2-4d02-ace3-3c1e52e2fb4b": "ClearKey",
	"e2719d58-a985-b3c9-781a-b030af78d30e": "ClearKey",
	"5e629af5-38da-4063-8977-97ffbd9902d4": "Marlin",
	"f239e769-efa3-4850-9c16-a903c6932efb": "Adobe Primetime",
	"adb41c24-2dbf-4a6d-958b-4457c0d27b95": "Nagra",
	"9a27dd82-fde2-4725-8cbc-4234aa06ec09": "Verimatrix",
	"3d5e6d35-9b9a-41e8-b843-dd3c6e72c42c": "ChinaDRM",
	"80a6be7e-1448-4c37-9e70-d5aebe04c8d2": "Irdeto",
	"644fe7b5-260f-4fad-949a-0762ffb054b4": "CMLA (OMA DRM)",
	"29701fe4-3cc7-4a34-8c5b-ae90c7439a47": "DVB CPCM",
}

// readDRM looks for protection in the container the item is: the MP4 box
// walk, the ASF header, the packet scan, else ffprobe's reading.
func readDRM(ctx context.Context, run *extractors.Runner, in *extractors.Input) (map[string]any, error) {
	boxes, err := mp4Of(ctx, in)
	if err != nil {
		return nil, err
	}
	if boxes != nil {
		return describeMP4Protection(boxes), nil
	}
	src, err := open(in)
	if err != nil {
		return nil, err
	}
	systems, err := asfProtectionSystems(src, src.Size)
	src.Close()
	switch {
	case err == nil:
		d := obj{"container": "asf", "protected": len(systems) > 0, "partial": false}
		if len(systems) > 0 {
			d["systems"] = systems
			d["evidence"] = []string{"asf content encryption object"}
		}
		return d, nil
	case !errors.Is(err, errNotASF):
		return nil, extractors.Transient(fmt.Errorf("read %s: %w", in.Name, err))
	}
	scan, err := tsOf(ctx, in)
	if err != nil {
		return nil, err
	}
	if scan != nil {
		n := scan.scrambled()
		d := obj{"container": "mpegts", "protected": n > 0, "scrambled_packets": n, "partial": !scan.Whole}
		if n > 0 {
			d["evidence"] = []string{"mpegts scrambling control"}
		}
		return d, nil
	}
	// Other containers: what ffprobe's demuxers report.
	p, err := av.Read(ctx, run, in)
	if err != nil {
		return nil, err
	}
	return describeProbeProtection(p), nil
}

// describeMP4Protection turns the box walk into drm's data.
func describeMP4Protection(b *mp4Info) map[string]any {
	d := obj{"container": "mp4", "partial": b.Partial}
	var evidence, systems, schemes, kids []string
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) && len(*list) < 64 {
			*list = append(*list, v)
		}
	}
	video, audio, other := 0, 0, 0
	for _, t := range b.Tracks {
		if !t.Protected {
			continue
		}
		switch {
		case t.Handler == "vide" || t.Entry == "encv" || t.Entry == "drmi":
			video++
		case t.Handler == "soun" || t.Entry == "enca" || t.Entry == "drms":
			audio++
		default:
			other++
		}
		switch t.Entry {
		case "encv", "enca", "encs", "enct":
			add(&evidence, "mp4 encv/enca sample entries")
		case "drms", "drmi":
			add(&evidence, "mp4 drms/drmi sample entries")
			add(&systems, "FairPlay")
		default:
			add(&evidence, "mp4 protection scheme info")
		}
		add(&schemes, strings.TrimSpace(t.Scheme))
		if t.KID != "" && t.KID != "00000000-0000-0000-0000-000000000000" {
			add(&kids, t.KID)
		}
	}
	var pssh []any
	for _, p := range b.PSSH {
		add(&evidence, "pssh boxes")
		o := obj{"system_id": p.SystemID, "key_id_count": len(p.KIDs), "data_size": p.DataSize}
		if name := drmSystems[p.SystemID]; name != "" {
			o["system"] = name
			add(&systems, name)
		}
		for _, k := range p.KIDs {
			add(&kids, k)
		}
		pssh = append(pssh, o)
	}
	if video+audio+other == 0 && b.EncryptionBoxes > 0 {
		add(&evidence, "mp4 sample encryption boxes")
	}
	d["protected"] = video+audio+other > 0 || len(pssh) > 0 || b.EncryptionBoxes > 0
	d["encrypted_video_tracks"], d["encrypted_audio_tracks"], d["encrypted_other_tracks"] = video, audio, other
	setList(d, "evidence", evidence)
	setList(d, "systems", systems)
	setList(d, "schemes", schemes)
	setList(d, "key_ids", kids)
	if len(pssh) > 0 {
		d["pssh"] = pssh
	}
	return d
}

// describeProbeProtection reads the protection hints of ffprobe's
// demuxers: encryption side data on a stream (Matroska/WebM
// ContentEncryption, MP4 pssh). The side data says the file is protected,
// not which tracks are (ffmpeg hangs an MP4's pssh on the last track it
// read), so no track is counted.
func describeProbeProtection(p *av.Probe) map[string]any {
	d := obj{"container": p.Format.FormatName, "partial": false, "protected": false}
	for i := range p.Streams {
		for _, sd := range p.Streams[i].SideDataList {
			if t, _ := sd["side_data_type"].(string); strings.Contains(strings.ToLower(t), "encryption") {
				d["protected"] = true
				d["evidence"] = []string{"ffprobe encryption side data"}
			}
		}
	}
	return d
}
