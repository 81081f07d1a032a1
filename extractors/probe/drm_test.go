package probe

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/metaharvest/metaharvest/extractors"
	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/extractors/shared/av"
)

const (
	testKey = "00112233445566778899aabbccddeeff"
	testKID = "0123456789abcdef0123456789abcdef"
	// testKIDUUID is testKID written as a UUID.
	testKIDUUID = "01234567-89ab-cdef-0123-456789abcdef"
	widevineID  = "edef8ba979d64acea3c827dcd51d21ed"
	playreadyID = "9a04f07998404286ab92e65be0885f95"
)

// encryptedMP4 makes a 1 s H.264/AAC MP4 encrypted by ffmpeg with CENC
// (AES-CTR); fragmented when frag is set.
func encryptedMP4(t *testing.T, dir string, frag bool) string {
	t.Helper()
	name := "cenc.mp4"
	args := []string{"-f", "lavfi", "-i", "testsrc=d=1:s=160x120:r=25", "-f", "lavfi", "-i", "sine=d=1",
		"-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
		"-encryption_scheme", "cenc-aes-ctr", "-encryption_key", testKey, "-encryption_kid", testKID}
	if frag {
		name = "cenc-frag.mp4"
		args = append(args, "-movflags", "frag_keyframe+empty_moov")
	}
	p := filepath.Join(dir, name)
	extractortest.FFmpeg(t, append(args, p)...)
	return p
}

// box writes an ISO BMFF box.
func box(typ string, body ...[]byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(bytes.Join(body, nil))))
	b = append(b, typ...)
	return append(b, bytes.Join(body, nil)...)
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// psshV1 is a version 1 pssh box naming one key id.
func psshV1(t testing.TB, system string, data []byte) []byte {
	body := []byte{1, 0, 0, 0}
	body = append(body, unhex(t, system)...)
	body = binary.BigEndian.AppendUint32(body, 1)
	body = append(body, unhex(t, testKID)...)
	body = binary.BigEndian.AppendUint32(body, uint32(len(data)))
	return box("pssh", append(body, data...))
}

// withPSSH writes a copy of an MP4 whose moov (after mdat, as ffmpeg writes
// it without faststart: no chunk offset moves) ends with the given boxes.
func withPSSH(t *testing.T, src string, boxes ...[]byte) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off+8 <= len(b); {
		size := int(binary.BigEndian.Uint32(b[off:]))
		if string(b[off+4:off+8]) == "moov" {
			extra := bytes.Join(boxes, nil)
			out := append([]byte{}, b[:off]...)
			out = binary.BigEndian.AppendUint32(out, uint32(size+len(extra)))
			out = append(out, b[off+4:off+size]...)
			out = append(out, extra...)
			out = append(out, b[off+size:]...)
			p := filepath.Join(filepath.Dir(src), "pssh-"+filepath.Base(src))
			if err := os.WriteFile(p, out, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		if size < 8 {
			break
		}
		off += size
	}
	t.Fatal("no moov")
	return ""
}

func TestDRMEncryptedMP4(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	enc := encryptedMP4(t, dir, false)
	// ffmpeg wrote encv and enca sample entries, each with a sinf holding
	// frma, schm "cenc" and tenc with the key id (counted in the bytes of
	// the file by hand: one encv, one enca, two schm, two tenc, no pssh).
	d := extractortest.Data(t, run(t, reg, "drm", enc))
	want := map[string]any{
		"protected": true, "container": "mp4", "partial": false,
		"encrypted_video_tracks": 1.0, "encrypted_audio_tracks": 1.0, "encrypted_other_tracks": 0.0,
		"schemes": []any{"cenc"}, "key_ids": []any{testKIDUUID}, "evidence": []any{"mp4 encv/enca sample entries"},
	}
	for k, w := range want {
		if !reflect.DeepEqual(d[k], w) {
			t.Errorf("%s = %v, want %v", k, d[k], w)
		}
	}
	if d["pssh"] != nil || d["systems"] != nil {
		t.Errorf("no pssh was written: %v", d)
	}

	// The same with Widevine and PlayReady pssh boxes in the moov.
	withBoxes := withPSSH(t, enc, psshV1(t, widevineID, []byte{0x12, 0x10}), psshV1(t, playreadyID, bytes.Repeat([]byte{1}, 40)))
	d = extractortest.Data(t, run(t, reg, "drm", withBoxes))
	if !reflect.DeepEqual(d["systems"], []any{"Widevine", "PlayReady"}) {
		t.Errorf("systems %v", d["systems"])
	}
	ps := d["pssh"].([]any)
	if len(ps) != 2 || ps[0].(map[string]any)["system_id"] != "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed" ||
		ps[0].(map[string]any)["key_id_count"] != 1.0 || ps[1].(map[string]any)["data_size"] != 40.0 {
		t.Errorf("pssh %v", ps)
	}
	if !reflect.DeepEqual(d["evidence"], []any{"mp4 encv/enca sample entries", "pssh boxes"}) {
		t.Errorf("evidence %v", d["evidence"])
	}
	// ffprobe reports the pssh as encryption side data (on the last track it
	// read): the hint drm uses for containers it does not walk itself.
	p, err := av.Read(context.Background(), extractors.NewRunner(1), &extractors.Input{Path: withBoxes})
	if err != nil {
		t.Fatal(err)
	}
	if h := describeProbeProtection(p); h["protected"] != true {
		t.Errorf("ffprobe hint %v", h)
	}

	// Fragmented: the sample entries in the moov, sample encryption in the
	// fragments.
	frag := extractortest.Data(t, run(t, reg, "drm", encryptedMP4(t, dir, true)))
	if frag["protected"] != true || frag["encrypted_video_tracks"] != 1.0 || !reflect.DeepEqual(frag["schemes"], []any{"cenc"}) {
		t.Errorf("fragmented: %v", frag)
	}

	// Clear files say so.
	for _, f := range []string{"testdata/mp4.mp4", "testdata/mov.mov", "testdata/3gp.3gp"} {
		d := extractortest.Data(t, run(t, reg, "drm", f))
		if d["protected"] != false || d["container"] != "mp4" || d["partial"] != false {
			t.Errorf("%s: %v", f, d)
		}
	}
	for _, f := range []string{"testdata/webm.webm", "testdata/bell.oga"} {
		d := extractortest.Data(t, run(t, reg, "drm", f))
		if d["protected"] != false {
			t.Errorf("%s: %v", f, d)
		}
	}
}

// asfObject writes an ASF object.
func asfObject(guid string, body []byte) []byte {
	g := asfGUID(guid)
	b := append([]byte{}, g[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(24+len(body)))
	return append(b, body...)
}

// withASFObject writes a copy of an ASF file whose header object ends with
// obj (its size and object count raised).
func withASFObject(t *testing.T, src string, obj []byte) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	size := binary.LittleEndian.Uint64(b[16:24])
	count := binary.LittleEndian.Uint32(b[24:28])
	out := append([]byte{}, b[:size]...)
	binary.LittleEndian.PutUint64(out[16:24], size+uint64(len(obj)))
	binary.LittleEndian.PutUint32(out[24:28], count+1)
	out = append(out, obj...)
	out = append(out, b[size:]...)
	p := filepath.Join(filepath.Dir(src), "drm-"+filepath.Base(src))
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDRMASF(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	clear := filepath.Join(dir, "clip.wmv")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=1:s=160x120:r=25", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "wmv2", "-c:a", "wmav2", clear)
	if d := extractortest.Data(t, run(t, reg, "drm", clear)); d["protected"] != false || d["container"] != "asf" {
		t.Errorf("clear ASF: %v", d)
	}
	// A Content Encryption Object (Windows Media DRM 1): secret data,
	// protection type "DRM", key id, license URL, each after its length.
	var body []byte
	for _, field := range [][]byte{{1, 2, 3, 4}, []byte("DRM\x00"), []byte("key-id\x00"), []byte("http://127.0.0.1:9/licence\x00")} {
		body = binary.LittleEndian.AppendUint32(body, uint32(len(field)))
		body = append(body, field...)
	}
	wmdrm := withASFObject(t, clear, asfObject("2211B3FB-BD23-11D2-B4B7-00A0C955FC6E", body))
	d := extractortest.Data(t, run(t, reg, "drm", wmdrm))
	if d["protected"] != true || !reflect.DeepEqual(d["systems"], []any{"Windows Media DRM"}) ||
		!reflect.DeepEqual(d["evidence"], []any{"asf content encryption object"}) {
		t.Errorf("WMDRM ASF: %v", d)
	}
	// PlayReady's Advanced Content Encryption Object sits in the header
	// extension object.
	ext := append(make([]byte, 16+2), 0, 0, 0, 0) // reserved GUID, reserved word, data size
	inner := asfObject("43058533-6981-49E6-9B74-AD12CB86D58C", []byte{0, 0})
	binary.LittleEndian.PutUint32(ext[18:22], uint32(len(inner)))
	pr := withASFObject(t, clear, asfObject("5FBF03B5-A92E-11CF-8EE3-00C00C205365", append(ext, inner...)))
	if d := extractortest.Data(t, run(t, reg, "drm", pr)); !reflect.DeepEqual(d["systems"], []any{"PlayReady"}) {
		t.Errorf("PlayReady ASF: %v", d)
	}
}

// A transport stream whose video packets carry scrambling bits (as under
// conditional access) is protected; m2ts says scrambled.
func TestDRMScrambledTransportStream(t *testing.T) {
	t.Parallel()
	reg := registry(t)
	dir := t.TempDir()
	clear := filepath.Join(dir, "clear.ts")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=d=1:s=160x120:r=25", "-c:v", "mpeg2video", "-f", "mpegts", clear)
	b, err := os.ReadFile(clear)
	if err != nil {
		t.Fatal(err)
	}
	scrambled := 0
	for off := 0; off+188 <= len(b); off += 188 {
		p := b[off : off+188]
		pid := int(p[1]&0x1f)<<8 | int(p[2])
		if p[0] == 0x47 && pid == 0x100 && p[3]&0x10 != 0 {
			p[3] |= 0x80 // scrambled with the even key
			scrambled++
		}
	}
	ts := filepath.Join(dir, "scrambled.ts")
	if err := os.WriteFile(ts, b, 0o644); err != nil {
		t.Fatal(err)
	}
	d := extractortest.Data(t, run(t, reg, "drm", ts))
	if d["protected"] != true || d["container"] != "mpegts" || d["scrambled_packets"] != float64(scrambled) ||
		!reflect.DeepEqual(d["evidence"], []any{"mpegts scrambling control"}) {
		t.Errorf("drm: %v (scrambled %d)", d, scrambled)
	}
	m := extractortest.Data(t, run(t, reg, "m2ts", ts))
	if m["scrambled"] != true {
		t.Errorf("m2ts: %v", m)
	}
	for _, p := range m["pids"].([]any) {
		p := p.(map[string]any)
		if p["pid"] == 256.0 && p["scrambled_packets"] != float64(scrambled) {
			t.Errorf("pid 256: %v", p)
		}
	}
}

func FuzzReadMP4(f *testing.F) {
	f.Add(box("ftyp", []byte("isom\x00\x00\x02\x00")))
	sinf := box("sinf", box("frma", []byte("avc1")), box("schm", []byte{0, 0, 0, 0}, []byte("cenc"), []byte{0, 1, 0, 0}),
		box("schi", box("tenc", make([]byte, 24))))
	stsd := box("stsd", []byte{0, 0, 0, 0, 0, 0, 0, 1}, box("encv", make([]byte, 78), sinf))
	stts := box("stts", []byte{0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 9, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 1, 0})
	trak := box("trak", box("mdia", box("hdlr", make([]byte, 8), []byte("vide")), box("minf", box("stbl", stsd, stts))))
	f.Add(append(box("ftyp", []byte("isom")), box("moov", trak)...))
	f.Add(append(box("moov", psshV1(f, widevineID, []byte{1, 2})), 0, 0, 0, 1, 'm', 'd', 'a', 't', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	if b, err := os.ReadFile("testdata/mov.mov"); err == nil {
		f.Add(b[len(b)-4000:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := readMP4(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if info.Boxes > maxBoxes+1 {
			t.Fatalf("walked %d boxes", info.Boxes)
		}
		_ = describeMP4Protection(info)
		for i := range info.Tracks {
			_ = info.Tracks[i].FrameRateMode()
		}
	})
}

func FuzzASF(f *testing.F) {
	g := asfGUID("75B22630-668E-11CF-A6D9-00AA0062CE6C")
	head := append(append([]byte{}, g[:]...), binary.LittleEndian.AppendUint64(nil, 30+24+4)...)
	head = append(head, 1, 0, 0, 0, 1, 2)
	f.Add(append(head, asfObject("2211B3FB-BD23-11D2-B4B7-00A0C955FC6E", []byte{0, 0, 0, 0})...))
	f.Add(append(head, asfObject("5FBF03B5-A92E-11CF-8EE3-00C00C205365", make([]byte, 30))...))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = asfProtectionSystems(bytes.NewReader(b), int64(len(b)))
	})
}

func FuzzScanTS(f *testing.F) {
	pkt := make([]byte, 188)
	pkt[0], pkt[1], pkt[2], pkt[3], pkt[4], pkt[5] = 0x47, 0x41, 0x00, 0xb0, 7, 0x10
	f.Add(bytes.Repeat(pkt, 6))
	m2 := append([]byte{0, 0, 0, 0}, pkt...)
	f.Add(bytes.Repeat(m2, 6))
	f.Add(append(bytes.Repeat(pkt, 5), append([]byte{1, 2, 3}, bytes.Repeat(pkt, 5)...)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := scanTS(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if s.Scanned > int64(len(b)) || len(s.PIDs) > tsMaxPIDs {
			t.Fatalf("scanned %d of %d, %d PIDs", s.Scanned, len(b), len(s.PIDs))
		}
		_ = describeTS(s, nil)
	})
}

// A long fragmented file is walked up to its first fragments, whole.
func TestMP4ManyFragments(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	buf.Write(box("ftyp", []byte("iso6")))
	buf.Write(box("moov", box("trak", box("mdia", box("hdlr", make([]byte, 8), []byte("vide"))))))
	for i := 0; i < 30000; i++ {
		buf.Write(box("moof", box("traf", box("senc", make([]byte, 8)))))
		buf.Write(box("mdat", make([]byte, 16)))
	}
	info, err := readMP4(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil || info.Partial || info.Fragments != maxFragmentsOpened || info.EncryptionBoxes != maxFragmentsOpened || len(info.Tracks) != 1 {
		t.Errorf("%+v %v", info, err)
	}
}
