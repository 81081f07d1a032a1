package probe

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

// m2ts describes MPEG transport streams (broadcast .ts, Blu-ray and AVCHD
// .m2ts/.mts): programs with their PMT and PCR PIDs and service names,
// streams with their PIDs and stream types, and what the first megabyte of
// packets shows per PID (packets, scrambling, PCR, continuity errors). Files
// that are not transport streams are refused (ErrUnsupported) after a look
// at their first packets, before ffprobe runs.
func init() {
	extractors.MustRegister(m2tsInfo)
}

var m2tsInfo = extractors.Info{
	Name:           "m2ts",
	DisplayName:    "MPEG Transport Stream",
	Family:         extractors.FamilyTechnical,
	Version:        "1.0.0",
	Implemented:    true,
	RangeReads:     true,
	DefaultEnabled: true,
	Tools:          []string{"ffprobe"},
	Accept:         acceptMIME([]string{"video/mp2t", "video/vnd.dlna.mpeg-tts"}, tsExts...),
	Fields: []extractors.Field{
		{Path: "packet_size", Type: extractors.TypeNumber, Doc: "bytes per packet: 188, 192 (M2TS, with a 4-byte timestamp) or 204 (with parity)"},
		{Path: "duration", Type: extractors.TypeNumber, Doc: "seconds, 3 decimals"},
		{Path: "bit_rate", Type: extractors.TypeNumber, Doc: "overall bit rate, bits per second"},
		{Path: "program_count", Type: extractors.TypeNumber, Doc: "programs (PMTs)"},
		{Path: "programs.program_number", Type: extractors.TypeNumber, Doc: "program number (service id)"},
		{Path: "programs.pmt_pid", Type: extractors.TypeNumber, Doc: "PID of the program map table"},
		{Path: "programs.pcr_pid", Type: extractors.TypeNumber, Doc: "PID carrying the program clock reference (8191: none)"},
		{Path: "programs.pcr_present", Type: extractors.TypeBool, Doc: "a PCR was seen on the PCR PID in the scanned packets"},
		{Path: "programs.service_name", Type: extractors.TypeString, Doc: "service name (DVB SDT)"},
		{Path: "programs.service_provider", Type: extractors.TypeString, Doc: "service provider (DVB SDT)"},
		{Path: "programs.stream_count", Type: extractors.TypeNumber, Doc: "elementary streams of the program"},
		{Path: "streams.index", Type: extractors.TypeNumber, Doc: "stream index as ffprobe numbers it"},
		{Path: "streams.pid", Type: extractors.TypeNumber, Doc: "PID of the elementary stream"},
		{Path: "streams.program_number", Type: extractors.TypeNumber, Doc: "program the stream belongs to"},
		{Path: "streams.type", Type: extractors.TypeString, Doc: "video, audio, subtitle or data"},
		{Path: "streams.codec", Type: extractors.TypeString, Doc: "codec as ffprobe names it"},
		{Path: "streams.stream_type", Type: extractors.TypeNumber, Doc: "PMT stream_type (27 = H.264, 2 = MPEG-2 video, 15 = AAC)"},
		{Path: "streams.stream_type_name", Type: extractors.TypeString, Doc: "what the stream_type means"},
		{Path: "streams.language", Type: extractors.TypeString, Doc: "ISO 639-2 language of the stream"},
		{Path: "pids.pid", Type: extractors.TypeNumber, Doc: "PID seen in the scanned packets"},
		{Path: "pids.kind", Type: extractors.TypeString, Doc: "PAT, CAT, PMT, NIT, SDT, EIT, TDT, null, video, audio, subtitle, data or other"},
		{Path: "pids.packets", Type: extractors.TypeNumber, Doc: "packets in the scanned part"},
		{Path: "pids.scrambled_packets", Type: extractors.TypeNumber, Doc: "packets with transport_scrambling_control set"},
		{Path: "pids.pcr_packets", Type: extractors.TypeNumber, Doc: "packets carrying a PCR"},
		{Path: "pids.continuity_errors", Type: extractors.TypeNumber, Doc: "continuity counter jumps"},
		{Path: "pcr_present", Type: extractors.TypeBool, Doc: "some PID carries a PCR in the scanned packets"},
		{Path: "scrambled", Type: extractors.TypeBool, Doc: "some packets are scrambled (conditional access)"},
		{Path: "scanned_packets", Type: extractors.TypeNumber, Doc: "packets scanned (the first MiB of the file)"},
		{Path: "scanned_bytes", Type: extractors.TypeNumber, Doc: "bytes scanned"},
		{Path: "sync_losses", Type: extractors.TypeNumber, Doc: "places in the scanned part where packet sync was lost"},
		{Path: "continuity_errors", Type: extractors.TypeNumber, Doc: "continuity counter jumps of every PID in the scanned part"},
		{Path: "transport_errors", Type: extractors.TypeNumber, Doc: "packets flagged with transport_error_indicator in the scanned part"},
	},
	New: newReader(readM2TS),
}

// readM2TS describes the shared packet scan of the item, with its shared
// ffprobe reading.
func readM2TS(ctx context.Context, run *extractors.Runner, in *extractors.Input) (map[string]any, error) {
	scan, err := tsOf(ctx, in)
	if err != nil {
		return nil, err
	}
	if scan == nil {
		return nil, fmt.Errorf("no transport stream packets at the start: %w", extractors.ErrUnsupported)
	}
	p, err := av.Read(ctx, run, in)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, extractors.ErrUnsupported):
		p = nil // packets but no stream ffprobe could identify: the scan alone
	case err != nil:
		return nil, err
	case p.Format.FormatName != "mpegts" && p.Format.FormatName != "mpegtsraw":
		return nil, fmt.Errorf("ffprobe reads it as %q, not a transport stream: %w", p.Format.FormatName, extractors.ErrUnsupported)
	}
	return describeTS(scan, p), nil
}

// describeTS joins the packet scan and ffprobe's reading (nil when ffprobe
// found no stream) into m2ts's data.
func describeTS(scan *tsScan, p *av.Probe) map[string]any {
	d := obj{"packet_size": scan.PacketSize, "scanned_packets": scan.Packets, "scanned_bytes": scan.Scanned,
		"sync_losses": scan.SyncLosses}
	kinds := map[uint16]string{0: "PAT", 1: "CAT", 2: "TSDT", 0x10: "NIT", 0x11: "SDT", 0x12: "EIT", 0x13: "RST", 0x14: "TDT", 0x1fff: "null"}
	pcrSeen, scrambled, cc, tei := false, false, 0, 0
	for _, st := range scan.PIDs {
		pcrSeen = pcrSeen || st.PCRs > 0
		scrambled = scrambled || st.Scrambled > 0
		cc += st.ContinuityErrors
		tei += st.TransportErrors
	}
	d["pcr_present"], d["scrambled"], d["continuity_errors"], d["transport_errors"] = pcrSeen, scrambled, cc, tei

	if p != nil {
		d.seconds("duration", p.Duration())
		d.count("bit_rate", av.Int(p.Format.BitRate))
		programOf := map[int]int{}
		var programs []any
		for _, pr := range p.Programs {
			o := obj{"program_number": pr.ProgramNum, "pmt_pid": pr.PMTPID, "pcr_pid": pr.PCRPID, "stream_count": pr.NbStreams}
			pcr := scan.PIDs[uint16(pr.PCRPID)]
			o["pcr_present"] = pr.PCRPID >= 0 && pr.PCRPID < 0x1fff && pcr != nil && pcr.PCRs > 0
			o.str("service_name", av.Tag(pr.Tags, "service_name"))
			o.str("service_provider", av.Tag(pr.Tags, "service_provider"))
			if pr.PMTPID > 0 && pr.PMTPID < 0x1fff {
				kinds[uint16(pr.PMTPID)] = "PMT"
			}
			for _, s := range pr.Streams {
				programOf[s.Index] = pr.ProgramNum
			}
			if len(programs) < maxStreamsListed {
				programs = append(programs, o)
			}
		}
		d["program_count"] = len(p.Programs)
		if len(programs) > 0 {
			d["programs"] = programs
		}
		var streams []any
		for i := range p.Streams {
			s := &p.Streams[i]
			o := obj{"index": s.Index, "type": s.CodecType}
			pid, ok := hexNumber(s.ID)
			if ok {
				o["pid"] = pid
				if pid < 0x1fff {
					if _, psi := kinds[uint16(pid)]; !psi {
						kinds[uint16(pid)] = s.CodecType
					}
				}
			}
			if n, ok := programOf[s.Index]; ok {
				o["program_number"] = n
			}
			o.str("codec", s.CodecName)
			if st, ok := hexNumber(s.CodecTag); ok && st > 0 && st < 256 {
				o["stream_type"] = st
				o.str("stream_type_name", streamTypeName(st, scan.PacketSize))
			}
			o.str("language", s.Language())
			if len(streams) < maxStreamsListed {
				streams = append(streams, o)
			}
		}
		if len(streams) > 0 {
			d["streams"] = streams
		}
	}

	var pids []any
	for _, st := range scan.sortedPIDs() {
		if len(pids) >= maxStreamsListed {
			break
		}
		kind := kinds[st.PID]
		if kind == "" {
			kind = "other"
		}
		pids = append(pids, obj{"pid": st.PID, "kind": kind, "packets": st.Packets, "scrambled_packets": st.Scrambled,
			"pcr_packets": st.PCRs, "continuity_errors": st.ContinuityErrors})
	}
	if len(pids) > 0 {
		d["pids"] = pids
	}
	return d
}

// hexNumber reads ffprobe's "0x1b"; false when absent or malformed.
func hexNumber(s string) (int, bool) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || h == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(h, 16, 31)
	return int(n), err == nil
}

// streamTypeNames are the PMT stream types of ISO/IEC 13818-1 and the
// common private ones (ATSC, Blu-ray).
var streamTypeNames = map[int]string{
	0x01: "MPEG-1 video", 0x02: "MPEG-2 video", 0x03: "MPEG-1 audio", 0x04: "MPEG-2 audio",
	0x05: "private sections", 0x06: "PES private data", 0x0f: "AAC audio (ADTS)", 0x10: "MPEG-4 visual",
	0x11: "AAC audio (LATM)", 0x15: "metadata in PES", 0x1b: "H.264 video", 0x1c: "MPEG-4 audio",
	0x20: "H.264 MVC video", 0x24: "HEVC video", 0x33: "VVC video", 0x42: "AVS video",
	0x80: "LPCM audio", 0x81: "AC-3 audio", 0x82: "DTS audio", 0x83: "Dolby TrueHD audio",
	0x84: "E-AC-3 audio", 0x85: "DTS-HD audio", 0x87: "E-AC-3 audio", 0x90: "PGS subtitles",
	0xa1: "E-AC-3 secondary audio", 0xa2: "DTS-HD secondary audio", 0xea: "VC-1 video",
}

// streamTypeName says what a stream type means; 0x86 is SCTE-35 splice
// information in broadcast streams and DTS-HD Master Audio on Blu-ray
// (192-byte packets).
func streamTypeName(t, packetSize int) string {
	if t == 0x86 {
		if packetSize == 192 {
			return "DTS-HD Master Audio"
		}
		return "SCTE-35 splice information"
	}
	return streamTypeNames[t]
}
