package worker

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/metaharvest/metaharvest/extractors/extractortest"
	"github.com/metaharvest/metaharvest/internal/jobs"
	"github.com/metaharvest/metaharvest/models"
)

// hostileExtractors are the extractors of the hostile-folder harvest:
// those the hostile files aim at, hashes (which reads every file whole)
// and text for the normal file.
var hostileExtractors = []string{"hashes", "thumbnailer", "mediainfo", "video_main_frames", "archive", "xml", "text"}

// zeroDeflate is a real deflate stream of mib MiB of zeros, made without
// compressing them: a sync-flushed block of 1 MiB of zeros inflates the
// same whatever came before it, so it is repeated.
func zeroDeflate(mib int) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestSpeed)
	w.Write(make([]byte, 1<<20))
	w.Flush()
	block := bytes.Clone(b.Bytes())
	b.Reset()
	w.Close()
	return append(bytes.Repeat(block, mib), b.Bytes()...)
}

// zipBomb is a zip of four entries of 300 MiB of zeros each (1.2 GB from
// about 1.2 MB).
func zipBomb(t *testing.T) []byte {
	zeros := zeroDeflate(300)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range 4 {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("zeros%d.txt", i), Method: zip.Deflate,
			CompressedSize64: uint64(len(zeros)), UncompressedSize64: 300 << 20})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(zeros)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// gzipBomb is a gzip of 300 MiB of zeros: only decompressing it tells.
func gzipBomb() []byte {
	g := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	return append(append(g, zeroDeflate(300)...), make([]byte, 8)...)
}

// zipSlip is a zip whose second entry would be written outside the
// directory it is extracted into.
func zipSlip(t *testing.T, secret string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range map[string]string{"readme.txt": "harmless words", "../../../../tmp/evil.txt": secret} {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pngFlood is a PNG signature and an IHDR chunk declaring 60000 x 60000
// RGBA pixels (14 GB decoded), and nothing else.
func pngFlood() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 60000)
	binary.BigEndian.PutUint32(ihdr[4:], 60000)
	ihdr[8], ihdr[9] = 8, 6
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// billionLaughs is ten levels of ten entity references each.
func billionLaughs() string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n")
	prev := "lol"
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, " <!ENTITY lol%d \"%s\">\n", i, strings.Repeat("&"+prev+";", 10))
		prev = fmt.Sprintf("lol%d", i)
	}
	b.WriteString("]>\n<lolz>&lol9;</lolz>\n")
	return b.String()
}

// heapPeak samples the Go heap every few milliseconds until stop is
// called, which returns the largest reading.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// A folder of hostile files is harvested through the real handler: a
// pixel flood, a truncated MP4, an HLS playlist named .mp4 pointing at a
// local listener, an endless stream (a raw H.264 stream past the decode
// limit, and a FIFO the listing never opens), a zip bomb, a gzip bomb, a
// zip slip, a billion laughs, an XXE naming a local file and the
// listener, and a document over what its parser reads. Each is recorded
// once, the extractor it aims at recorded a clear deterministic error and
// kept nothing of it, nothing was fetched or leaked, the heap stayed
// bounded, and a normal file harvested afterwards by the same worker is
// harvested fine.
//
// Not parallel: the heap readings are the harvest's own.
func TestHarvestHostileFilesAreRecordedErrors(t *testing.T) {
	start := time.Now()
	reg := extractortest.Registry(t, map[string]string{"VIDEO_MAIN_FRAMES_MAX_DURATION": "3"},
		append([]string{"store", "mime_type"}, hostileExtractors...)...)
	f := newFixture(t, reg)
	listener := extractortest.NoRequestURL(t)
	secret := fmt.Sprintf("metaharvest-secret-%d", time.Now().UnixNano())
	secretFile := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secretFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}

	f.write("flood.png", string(pngFlood()))
	whole := extractortest.Clip(t, "whole.mp4", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=4", "-c:v", "libx264",
		"-preset", "ultrafast", "-pix_fmt", "yuv420p")
	b, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	f.write("truncated.mp4", string(b[:len(b)/2])) // its moov, at the end, is gone
	f.write("playlist.mp4", "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n"+listener+"/seg0.ts\n#EXTINF:10,\n"+
		listener+"/seg1.ts\n#EXT-X-ENDLIST\n")
	extractortest.FFmpeg(t, "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=12", "-c:v", "libx264", "-preset", "ultrafast",
		"-f", "h264", filepath.Join(f.media, "endless.h264"))
	if err := syscall.Mkfifo(filepath.Join(f.media, "endless.ts"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.write("bomb.zip", string(zipBomb(t)))
	f.write("bomb.gz", string(gzipBomb()))
	f.write("slip.zip", string(zipSlip(t, secret)))
	f.write("laughs.xml", billionLaughs())
	f.write("xxe.xml", `<?xml version="1.0"?>
<!DOCTYPE doc [<!ENTITY xxe SYSTEM "file://`+secretFile+`"><!ENTITY % remote SYSTEM "`+listener+`/x.dtd">%remote;]>
<doc><p>before &xxe; after</p></doc>`)
	f.write("big.xml", "<?xml version=\"1.0\"?>\n<doc><p>words</p>")
	if err := os.Truncate(filepath.Join(f.media, "big.xml"), 64<<20+1); err != nil { // sparse
		t.Fatal(err)
	}
	made := time.Since(start)

	// What each hostile file must give: the extractor it aims at and the
	// words of its error.
	want := map[string]struct{ extractor, err string }{
		"flood.png":     {"thumbnailer", "over the pixel limit"},
		"truncated.mp4": {"mediainfo", "moov atom not found"},
		"playlist.mp4":  {"mediainfo", "a playlist (application/vnd.apple.mpegurl) named .mp4, not a media file: refused"},
		"endless.h264":  {"video_main_frames", "declares no duration and goes on past the limit of 3 s"},
		"bomb.zip":      {"archive", `decompression bomb refused: entry "zeros0.txt" declares 314572800 bytes`},
		"bomb.gz":       {"archive", "decompression bomb refused"},
		"slip.zip":      {"archive", `unsafe entry refused (zip slip): "../../../../tmp/evil.txt": parent directory`},
		"laughs.xml":    {"xml", `entity expansion refused: entity "lol1" refers to entity "lol"`},
		"xxe.xml":       {"xml", `external entity refused: entity "xxe" is declared SYSTEM or PUBLIC (never fetched)`},
		"big.xml":       {"xml", "document too large: 67108865 bytes, over the 64 MiB this extractor parses"},
	}

	f.startWorker()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stopHeap := heapPeak()
	req := f.harvest(jobs.Spec{Extractors: hostileExtractors, OverrideExtractors: true})
	job := f.waitJob(req, 2*time.Minute)
	peak := stopHeap()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	harvested := time.Since(start) - made

	// Every regular file is an item, harvested once; the FIFO is none (the
	// listing never opens it).
	if job.WalkedCount != int64(len(want)) || job.EnqueuedCount != int64(len(want)) || job.IndexedCount != int64(len(want)) {
		t.Errorf("job: %+v", job)
	}
	if n := f.count(&models.Item{}, "container_id = ? AND path = 'endless.ts'", f.ctr.ID); n != 0 {
		t.Errorf("the FIFO became an item")
	}
	items := map[string]models.Item{}
	var all []models.Item
	f.db.Where("container_id = ?", f.ctr.ID).Find(&all)
	for _, it := range all {
		items[it.Path] = it
	}
	for path, w := range want {
		it, ok := items[path]
		if !ok {
			t.Errorf("%s: no item", path)
			continue
		}
		if n := f.count(&models.Activity{}, "item_id = ? AND kind = ?", it.ID, models.ActivityHarvestEnd); n != 1 {
			t.Errorf("%s: %d harvestend rows", path, n)
		}
		var acts []models.Activity
		f.db.Where("request_id = ? AND item_id = ? AND kind = ? AND name = ?", req, it.ID, models.ActivityExtractor, w.extractor).Find(&acts)
		if len(acts) != 1 || !strings.Contains(acts[0].Error, w.err) || acts[0].ErrorHash == "" {
			t.Errorf("%s: %s activities %+v, want one error containing %q", path, w.extractor, acts, w.err)
		}
		// Deterministic: not retried, so recorded once, as a failed item
		// whose data holds nothing of the failed extractor.
		if !it.HarvestFailed || strings.Contains(string(it.Metadata), `"`+w.extractor+`":`) {
			t.Errorf("%s: failed %v, metadata %.300s", path, it.HarvestFailed, it.Metadata)
		}
		// The base extractors ran on it all the same.
		if !strings.Contains(string(it.Metadata), `"hashes":`) {
			t.Errorf("%s: no hashes: %.300s", path, it.Metadata)
		}
	}

	// The playlist is no video: no media extractor gave data of it, and the
	// listener it points at (checked when the test ends) saw no request.
	for _, name := range []string{"mediainfo", "video_main_frames", "thumbnailer"} {
		if strings.Contains(string(items["playlist.mp4"].Metadata), `"`+name+`":`) {
			t.Errorf("playlist: %s gave data: %.300s", name, items["playlist.mp4"].Metadata)
		}
	}

	// Nothing of the secret the XXE and the zip slip name was stored.
	if n := f.count(&models.Item{}, "metadata::text LIKE ?", "%"+secret+"%"); n != 0 {
		t.Errorf("the secret is in %d items' data", n)
	}
	if n := f.count(&models.Activity{}, "error LIKE ?", "%"+secret+"%"); n != 0 {
		t.Errorf("the secret is in %d activity rows", n)
	}
	if n := f.count(&models.Item{}, "metadata::text LIKE '%lollol%'"); n != 0 {
		t.Errorf("an entity was expanded")
	}

	// Memory: the bombs (2.5 GB inflated), the flood (14 GB of pixels) and
	// the laughs (3 GB of text) never came near the heap.
	t.Logf("heap peak %d MiB, %d MiB allocated; files made in %s, harvested in %s",
		peak>>20, (after.TotalAlloc-before.TotalAlloc)>>20, made.Round(time.Millisecond), harvested.Round(time.Millisecond))
	if peak > 512<<20 {
		t.Errorf("heap peak %d MiB during the hostile harvest", peak>>20)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<30 {
		t.Errorf("%d MiB allocated by the hostile harvest", alloc>>20)
	}

	// The worker goes on: a normal file added afterwards is harvested by
	// the same worker, with its words, and nothing else is harvested again.
	f.write("notes/normal.txt", "an ordinary note about pelicans\n")
	req2 := f.harvest(jobs.Spec{Extractors: hostileExtractors, OverrideExtractors: true, IgnoreRecentlyWalked: true})
	job2 := f.waitJob(req2, time.Minute)
	if job2.EnqueuedCount != 1 || job2.IndexedCount != 1 || job2.ErrorCount != 0 {
		t.Errorf("second job: %+v", job2)
	}
	var normal models.Item
	if err := f.db.Where("container_id = ? AND path = 'notes/normal.txt'", f.ctr.ID).Take(&normal).Error; err != nil {
		t.Fatal(err)
	}
	if normal.HarvestFailed || !strings.Contains(string(normal.Metadata), "pelicans") {
		t.Errorf("normal file: failed %v, metadata %.300s", normal.HarvestFailed, normal.Metadata)
	}
	if n := f.count(&models.Activity{}, "request_id = ? AND kind = ? AND error <> ''", req2, models.ActivityExtractor); n != 0 {
		t.Errorf("%d extractor errors on the normal file", n)
	}
	t.Logf("whole test %s", time.Since(start).Round(time.Millisecond))
}
