package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"gorm.io/gorm"

	"github.com/metaharvest/metaharvest/internal/config"
	"github.com/metaharvest/metaharvest/internal/ids"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/models"
	"github.com/metaharvest/metaharvest/search"
)

// The artifacts suite (issue 47): a folder of pictures harvested with
// thumbnails by a `metaharvest all` process keeping its artifacts in
// DATA_DIR (the baseline) and by one keeping them in a versitygw bucket on
// loopback, in interleaved rounds, each timed from the harvest POST until
// a search counts every picture; the figure is the bucket's throughput
// over the directory's (goal >= 0.8x). Then one thumbnail served by each
// api, GETs one after the other: p50 and p99, beside bare baselines in the
// same run (the file by net/http's FileServer, the object by a bare
// minio-go GET).
const (
	artPictures = 150
	artRounds   = 5
	artGets     = 1000
	artWorkers  = 4
)

var artExtractors = []string{"thumbnailer"}

// allProc is a `metaharvest all` process on a scratch database.
type allProc struct {
	db      *gorm.DB
	engine  search.Engine
	api     string
	token   string
	proc    *exec.Cmd
	exited  chan struct{}
	closers []func()
}

func benchArtifacts(ctx context.Context) error {
	if _, err := testbucket.Binary(); err != nil {
		fmt.Printf("artifacts: skipped: %v\n\n", err)
		return nil
	}
	dir, err := os.MkdirTemp("", "mhbench-artifacts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	vgw, err := testbucket.Run(filepath.Join(dir, "vgw"))
	if err != nil {
		return err
	}
	defer vgw.Kill()
	client, err := minio.New(vgw.HostPort(), &minio.Options{Creds: credentials.NewStaticV4(vgw.AccessKey, vgw.SecretKey, ""),
		Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return err
	}
	if err := client.MakeBucket(ctx, "platform", minio.MakeBucketOptions{}); err != nil {
		return err
	}
	root := filepath.Join(dir, "pictures")
	if err := writePictures(filepath.Join(root, "media"), artPictures); err != nil {
		return err
	}
	bin, err := metaharvestBinary(dir)
	if err != nil {
		return err
	}
	common := []string{fmt.Sprintf("WORKER_CONCURRENCY=%d", artWorkers)}
	local, err := startAll(ctx, bin, append(common, "DATA_DIR="+filepath.Join(dir, "local")))
	if err != nil {
		return err
	}
	defer local.close()
	bucket, err := startAll(ctx, bin, append(common, "DATA_DIR="+filepath.Join(dir, "bucket"),
		"DATA_BUCKET_ENDPOINT="+vgw.Endpoint, "DATA_BUCKET=platform", "DATA_BUCKET_REGION=us-east-1",
		"DATA_BUCKET_ACCESS_KEY_ID="+vgw.AccessKey, "DATA_BUCKET_SECRET_ACCESS_KEY="+vgw.SecretKey, "DATA_BUCKET_PATH_STYLE=true"))
	if err != nil {
		return err
	}
	defer bucket.close()

	fmt.Printf("artifacts: %d JPEG pictures (1280x960) harvested with %v by metaharvest all (WORKER_CONCURRENCY=%d), end to end from the harvest POST until search counts every picture: artifacts in DATA_DIR vs in a versitygw bucket on loopback\n",
		artPictures, artExtractors, artWorkers)
	var ratios []float64
	for round := 1; round <= artRounds; round++ {
		// Which goes first alternates: a shared machine's load drifts.
		var tl, tb time.Duration
		for i := range 2 {
			if (i+round)%2 == 0 {
				if tl, err = local.harvestFolder(ctx, root, artPictures); err != nil {
					return fmt.Errorf("local: %w", err)
				}
			} else if tb, err = bucket.harvestFolder(ctx, root, artPictures); err != nil {
				return fmt.Errorf("bucket: %w", err)
			}
		}
		ratios = append(ratios, tl.Seconds()/tb.Seconds())
		fmt.Printf("  round %d: DATA_DIR %6.0f pictures/s (%s); bucket %6.0f pictures/s (%s); ratio %.2fx\n", round,
			float64(artPictures)/tl.Seconds(), tl.Round(time.Millisecond), float64(artPictures)/tb.Seconds(), tb.Round(time.Millisecond),
			ratios[len(ratios)-1])
	}
	sort.Float64s(ratios)
	fmt.Printf("  median ratio bucket/DATA_DIR %.2fx  (target >= 0.8x)\n", ratios[len(ratios)/2])

	// Serving one thumbnail.
	var a models.Artifact
	if err := local.db.Where("kind = 'thumbnail'").Order("path").Take(&a).Error; err != nil {
		return err
	}
	var b models.Artifact
	if err := bucket.db.Where("kind = 'thumbnail'").Order("path").Take(&b).Error; err != nil {
		return err
	}
	file := filepath.Join(dir, "local", "artifacts", filepath.FromSlash(a.Path))
	fs := httptest.NewServer(http.FileServer(http.Dir(filepath.Dir(file))))
	defer fs.Close()
	fmt.Printf("serving a thumbnail (%s), %d GETs one after the other, latency p50 / p99:\n", sizeOf(file), artGets)
	for _, s := range []struct {
		name string
		get  func() error
	}{
		{"bare net/http FileServer of the file", func() error { return drain(http.DefaultClient.Get(fs.URL + "/" + filepath.Base(file))) }},
		{"api, artifacts in DATA_DIR", func() error { return local.getArtifact(a.Path) }},
		{"bare minio-go GET of the object", func() error {
			o, err := client.GetObject(ctx, "platform", "artifacts/"+b.Path, minio.GetObjectOptions{})
			if err != nil {
				return err
			}
			defer o.Close()
			_, err = io.Copy(io.Discard, o)
			return err
		}},
		{"api, artifacts in the bucket", func() error { return bucket.getArtifact(b.Path) }},
	} {
		p50, p99, err := latencies(artGets, s.get)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Printf("  %-40s %8s / %8s\n", s.name, p50.Round(time.Microsecond), p99.Round(time.Microsecond))
	}
	fmt.Println()
	return nil
}

// writePictures writes n distinct JPEG pictures (smooth gradients with a
// little noise, as photos compress).
func writePictures(dir string, n int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const w, h = 1280, 960
	for i := range n {
		img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
		r := rand.New(rand.NewPCG(uint64(i), 47))
		for y := range h {
			for x := range w {
				img.Y[y*img.YStride+x] = uint8((x*255/w+y*255/h+i*7)/2) + uint8(r.IntN(8))
			}
		}
		for y := range h / 2 {
			for x := range w / 2 {
				img.Cb[y*img.CStride+x] = uint8(x * 255 / (w / 2))
				img.Cr[y*img.CStride+x] = uint8(y*255/(h/2)) ^ uint8(i)
			}
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%04d.jpg", i)), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sizeOf(p string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return "?"
	}
	return fmt.Sprintf("%.1f KiB", float64(fi.Size())/1024)
}

func drain(res *http.Response, err error) error {
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != 200 {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	return nil
}

// latencies runs get n times (after a few unmeasured ones) and returns
// the median and the 99th percentile.
func latencies(n int, get func() error) (p50, p99 time.Duration, err error) {
	for range 20 {
		if err := get(); err != nil {
			return 0, 0, err
		}
	}
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		if err := get(); err != nil {
			return 0, 0, err
		}
		d[i] = time.Since(start)
	}
	p50, p99 = percentiles(d)
	return p50, p99, nil
}

// startAll runs `metaharvest all` with env on a scratch database and
// Redis namespace and logs in as its admin.
func startAll(ctx context.Context, bin string, env []string) (_ *allProc, err error) {
	a := &allProc{}
	defer func() {
		if err != nil {
			a.close()
		}
	}()
	cfg, err := config.Load(os.LookupEnv)
	if err != nil {
		return nil, err
	}
	dbURL, drop, err := scratchDB(ctx)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, drop)
	if a.db, err = models.Open(dbURL); err != nil {
		return nil, err
	}
	if a.engine, err = search.Open(search.Config{DB: a.db}); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	password := ids.New()
	ns := "bench" + ids.New()[:8]
	a.closers = append(a.closers, func() { dropNamespace(cfg.RedisURL, ns) })
	a.proc = exec.Command(bin, "all")
	a.proc.Env = append(append(os.Environ(), "DATABASE_URL="+dbURL, "REDIS_URL="+cfg.RedisURL, "REDIS_NAMESPACE="+ns,
		"HTTP_ADDR="+addr, "ADMIN_EMAIL=bench@example.com", "ADMIN_PASSWORD="+password, "HARVEST_REFRESH_TIME=86400",
		"LOG_LEVEL=error", "MEILI_URL="), env...)
	a.proc.Stdout, a.proc.Stderr = os.Stderr, os.Stderr
	if err := a.proc.Start(); err != nil {
		return nil, err
	}
	a.exited = make(chan struct{})
	go func() { a.proc.Wait(); close(a.exited) }()
	a.api = "http://" + addr
	deadline := time.Now().Add(time.Minute)
	for {
		if a.token, err = login(http.DefaultClient, a.api, "bench@example.com", password); err == nil {
			return a, nil
		}
		select {
		case <-a.exited:
			return nil, errors.New("metaharvest all exited before answering")
		default:
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("metaharvest all did not answer on %s: %w", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (a *allProc) close() {
	if a.proc != nil && a.proc.Process != nil {
		a.proc.Process.Signal(os.Interrupt)
		select {
		case <-a.exited:
		case <-time.After(30 * time.Second):
			a.proc.Process.Kill()
			<-a.exited
		}
	}
	if a.db != nil {
		if s, err := a.db.DB(); err == nil {
			s.Close()
		}
	}
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}

func (a *allProc) getArtifact(p string) error {
	req, _ := http.NewRequest("GET", a.api+"/api/data/artifacts/"+p, nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	return drain(http.DefaultClient.Do(req))
}

// harvestFolder makes a new filesystem location of root, POSTs a harvest
// of its container "media" and waits until a search counts want items.
func (a *allProc) harvestFolder(ctx context.Context, root string, want int64) (time.Duration, error) {
	locID := ids.New()
	if err := a.db.Create(&models.Location{ID: locID, Kind: "filesystem", Name: locID,
		Config: models.MustJSON(map[string]string{"path": root})}).Error; err != nil {
		return 0, err
	}
	ctrID := models.ContainerID(locID, "media")
	if err := a.db.Create(&models.Container{ID: ctrID, LocationID: locID, Name: "media"}).Error; err != nil {
		return 0, err
	}
	start := time.Now()
	var started struct {
		RequestID string `json:"request_id"`
	}
	if err := apiCall(http.DefaultClient, a.api, a.token, "POST", "/api/control/harvest", map[string]any{"location_id": locID, "container_id": ctrID,
		"extractors": artExtractors, "override_extractors": true, "force": true}, &started); err != nil {
		return 0, err
	}
	deadline := start.Add(15 * time.Minute)
	for time.Now().Before(deadline) {
		var job models.Job
		if err := a.db.Where("request_id = ?", started.RequestID).Take(&job).Error; err != nil {
			return 0, err
		}
		if job.ErrorCount > 0 {
			return 0, fmt.Errorf("harvest: %d errors", job.ErrorCount)
		}
		if job.WalkComplete && job.IndexedCount >= want {
			asked := time.Now()
			n, err := engineCount(ctx, a.engine, locID)
			if err != nil {
				return 0, err
			}
			if n >= want {
				return asked.Sub(start), nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, errors.New("harvest not searchable after 15 minutes")
}
