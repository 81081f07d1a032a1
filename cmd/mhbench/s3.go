package main

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/metaharvest/metaharvest/internal/queue"
	"github.com/metaharvest/metaharvest/internal/testbucket"
	"github.com/metaharvest/metaharvest/storage"
)

// The s3 suite (issue 24): buckets of versitygw (posix backend) on
// loopback, harvested with [mime_type, hashes] by a `metaharvest all`
// process with the defaults (a platform: see platform.go; locations made
// and harvests started through its API), timed from the harvest POST
// until a search through the API counts every object, against the bare
// client of our go.mod's
// minio-go (list the bucket, then 16 goroutines each GET an object and
// hash it with md5, sha1 and sha256 in one pass, nothing on disk), in
// interleaved rounds; then the same through a proxy adding 30 ms to each
// request; then a listing of 100,000 keys.
const (
	s3SmallN      = 3000
	s3SmallSize   = 4 << 10
	s3LargeN      = 8
	s3LargeMiB    = 25
	s3WalkKeys    = 100_000
	s3Latency     = 30 * time.Millisecond
	s3BareWorkers = 16
	s3Rounds      = 5
)

var s3Extractors = []string{"mime_type", "hashes"}

// s3Bench is the suite's platform: versitygw, a proxy to it, and a
// `metaharvest all` process on a scratch database.
type s3Bench struct {
	vgw   *testbucket.Restartable
	proxy *testbucket.Proxy
	dir   string
	all   *platform
}

func benchS3(ctx context.Context, profileDir string) error {
	if _, err := testbucket.Binary(); err != nil {
		fmt.Printf("s3: skipped: %v\n\n", err)
		return nil
	}
	b, err := newS3Bench(ctx, profileDir)
	if err != nil {
		return err
	}
	defer b.close()
	fmt.Printf("s3 buckets (user path): versitygw (posix) on loopback; metaharvest all with the defaults (%s), end to end from the harvest POST until a search through the API counts every object, vs minio-go list + %d goroutines GET+md5+sha1+sha256\n",
		strings.Join(s3Extractors, ", "), s3BareWorkers)

	client, err := minio.New(b.vgw.HostPort(), &minio.Options{Creds: credentials.NewStaticV4(b.vgw.AccessKey, b.vgw.SecretKey, ""),
		Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return err
	}
	if err := seedBucket(ctx, client, "small", s3SmallN, s3SmallSize); err != nil {
		return err
	}
	if err := seedBucket(ctx, client, "large", s3LargeN, s3LargeMiB<<20); err != nil {
		return err
	}
	for _, set := range []struct {
		name, bucket string
		n, size      int64
		latency      bool
		target       float64
		rounds       int
	}{
		{"small objects", "small", s3SmallN, s3SmallSize, false, 0.5, s3Rounds},
		// Rounds of 1 to 3 s on a shared machine vary by a third: more of them.
		{"large objects", "large", s3LargeN, s3LargeMiB << 20, false, 0.8, 2*s3Rounds - 1},
		{"small objects, +30 ms a request", "small", s3SmallN, s3SmallSize, true, 0.5, s3Rounds},
	} {
		endpoint := b.vgw.Endpoint
		if set.latency {
			endpoint = b.proxy.Endpoint
			b.proxy.SetDelay(s3Latency)
		}
		fmt.Printf("%s: %d x %s\n", set.name, set.n, sizeText(set.size))
		var ratios []float64
		for round := 1; round <= set.rounds; round++ {
			base, err := bareS3(ctx, endpoint, b.vgw.AccessKey, b.vgw.SecretKey, set.bucket, set.n)
			if err != nil {
				return err
			}
			run, err := b.harvest(ctx, endpoint, set.bucket, set.n, s3Extractors)
			if err != nil {
				return err
			}
			took := run.searchable
			ratios = append(ratios, base.Seconds()/took.Seconds())
			fmt.Printf("  round %d: bare minio-go %s; metaharvest searchable %s (%s), ratio %.2fx; CPU metaharvest %.1f s, postgres %.1f s\n", round,
				rate(set.n, set.size, base), rate(set.n, set.size, took), took.Round(time.Millisecond), ratios[len(ratios)-1], run.platform, run.postgres)
		}
		if cli, err := b.cliS3(ctx, endpoint, set.bucket); err != nil {
			fmt.Printf("  aws s3 cp --recursive + sha256sum: not measured: %v\n", err)
		} else {
			fmt.Printf("  aws s3 cp --recursive + sha256sum (once): %s (%s)\n", rate(set.n, set.size, cli), cli.Round(time.Millisecond))
		}
		b.proxy.SetDelay(0)
		sort.Float64s(ratios)
		fmt.Printf("  median ratio %.2fx  (target >= %.1fx)\n", ratios[len(ratios)/2], set.target)
	}
	if err := b.video(ctx, client); err != nil {
		return err
	}
	return b.walk(ctx, client)
}

// video harvests a 2 GiB QuickTime video (raw 4:2:2 1080p frames, its index at
// the end) with the technical extractors that read ranges (mediainfo,
// besides store and mime_type) and reports how many of its bytes were
// read. The file is written by ffmpeg straight into versitygw's posix
// backend.
func (b *s3Bench) video(ctx context.Context, c *minio.Client) error {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		fmt.Printf("video: skipped: ffmpeg not installed\n\n")
		return nil
	}
	if err := c.MakeBucket(ctx, "video", minio.MakeBucketOptions{}); err != nil {
		return err
	}
	path := filepath.Join(b.vgw.Dir, "video", "clip.mov")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25", "-frames:v", "518",
		"-c:v", "rawvideo", "-pix_fmt", "uyvy422", path).CombinedOutput(); err != nil {
		return fmt.Errorf("ffmpeg: %v: %s", err, out)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	b.proxy.Reset()
	run, err := b.harvest(ctx, b.proxy.Endpoint, "video", 1, []string{"mediainfo"})
	if err != nil {
		return err
	}
	took := run.searchable
	sent := b.proxy.Sent("video", "clip.mov")
	fmt.Printf("video: %.2f GiB QuickTime (raw 4:2:2 1080p, index at the end) harvested with mediainfo (+ store, mime_type): %d bytes read (%.3f%%) in %d GETs, searchable after %s\n\n",
		float64(fi.Size())/(1<<30), sent, 100*float64(sent)/float64(fi.Size()), b.proxy.Requests("GET"), took.Round(time.Millisecond))
	return nil
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// rate is objects/s for small objects, MiB/s for large ones.
func rate(n, size int64, d time.Duration) string {
	if size >= 1<<20 {
		return fmt.Sprintf("%6.0f MiB/s", float64(n*size)/(1<<20)/d.Seconds())
	}
	return fmt.Sprintf("%6.0f objects/s", float64(n)/d.Seconds())
}

func newS3Bench(ctx context.Context, profileDir string) (_ *s3Bench, err error) {
	b := &s3Bench{}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	if b.dir, err = os.MkdirTemp("", "mhbench-s3-"); err != nil {
		return nil, err
	}
	if b.vgw, err = testbucket.Run(filepath.Join(b.dir, "vgw")); err != nil {
		return nil, err
	}
	if b.proxy, err = testbucket.NewProxy(b.vgw.Endpoint); err != nil {
		return nil, err
	}
	bin, err := metaharvestBinary(b.dir)
	if err != nil {
		return nil, err
	}
	if b.all, err = startPlatform(ctx, bin, "s3 all", platformOptions{roles: []string{"all"}, profileDir: profileDir}); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *s3Bench) close() {
	if b.all != nil {
		b.all.close()
	}
	if b.proxy != nil {
		b.proxy.Close()
	}
	if b.vgw != nil {
		b.vgw.Kill()
	}
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// metaharvestBinary builds this tree's metaharvest (bin/metaharvest may be
// older than the tree when the suite is run without make), or, when the
// working tree does not build (edits in progress), its last commit.
func metaharvestBinary(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join("cmd", "metaharvest")); err != nil {
		wd, _ := os.Getwd()
		return "", fmt.Errorf("build metaharvest: %s is not the repository's root: mhbench builds the binary it measures from ./cmd/metaharvest (run it from the root, as make bench does)", wd)
	}
	out := filepath.Join(dir, "metaharvest")
	b, err := exec.Command("go", "build", "-o", out, "./cmd/metaharvest").CombinedOutput()
	if err == nil {
		return out, nil
	}
	src := filepath.Join(dir, "head")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	export := exec.Command("sh", "-c", "git archive HEAD | tar -x -C '"+src+"'")
	if b2, err2 := export.CombinedOutput(); err2 != nil {
		return "", fmt.Errorf("build metaharvest: %v: %s (export of HEAD: %v: %s)", err, b, err2, b2)
	}
	build := exec.Command("go", "build", "-o", out, "./cmd/metaharvest")
	build.Dir = src
	if b2, err2 := build.CombinedOutput(); err2 != nil {
		return "", fmt.Errorf("build metaharvest: %v: %s (HEAD: %v: %s)", err, b, err2, b2)
	}
	fmt.Println("(the working tree does not build: metaharvest built from HEAD)")
	return out, nil
}

// harvest makes an s3 location of bucket on endpoint through the API,
// POSTs a harvest of it and waits until a search through the API counts
// want objects.
func (b *s3Bench) harvest(ctx context.Context, endpoint, bucket string, want int64, extractorNames []string) (userRun, error) {
	return b.all.harvest(ctx, storage.KindS3, map[string]string{"endpoint": endpoint, "bucket": bucket,
		"access_key_id": b.vgw.AccessKey, "secret_access_key": b.vgw.SecretKey, "path_style": "true", "region": "us-east-1"},
		bucket, extractorNames, want)
}

// seedBucket creates bucket with n random objects of size bytes.
func seedBucket(ctx context.Context, c *minio.Client, bucket string, n, size int) error {
	if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		return err
	}
	var next atomic.Int64
	errs := make(chan error, s3BareWorkers)
	var wg sync.WaitGroup
	for range s3BareWorkers {
		wg.Go(func() {
			buf := make([]byte, size)
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				rand.Read(buf)
				key := fmt.Sprintf("d%02d/o%05d.bin", i%50, i)
				if _, err := c.PutObject(ctx, bucket, key, bytes.NewReader(buf), int64(size), minio.PutObjectOptions{}); err != nil {
					errs <- fmt.Errorf("seed %s/%s: %w", bucket, key, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// bareS3 is the baseline: list the bucket, then s3BareWorkers goroutines
// each GET an object and hash it with md5, sha1 and sha256 in one pass.
func bareS3(ctx context.Context, endpoint, ak, sk, bucket string, want int64) (time.Duration, error) {
	start := time.Now()
	c, err := minio.New(strings.TrimPrefix(endpoint, "http://"), &minio.Options{Creds: credentials.NewStaticV4(ak, sk, ""),
		Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return 0, err
	}
	var keys []string
	for obj := range c.ListObjectsIter(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			return 0, obj.Err
		}
		keys = append(keys, obj.Key)
	}
	if int64(len(keys)) != want {
		return 0, fmt.Errorf("bare client listed %d objects of %s, want %d", len(keys), bucket, want)
	}
	var next atomic.Int64
	errs := make(chan error, s3BareWorkers)
	var wg sync.WaitGroup
	for range s3BareWorkers {
		wg.Go(func() {
			m, s1, s256 := md5.New(), sha1.New(), sha256.New()
			w := io.MultiWriter(m, s1, s256)
			for i := next.Add(1) - 1; i < int64(len(keys)); i = next.Add(1) - 1 {
				obj, err := c.GetObject(ctx, bucket, keys[i], minio.GetObjectOptions{})
				if err != nil {
					errs <- err
					return
				}
				m.Reset()
				s1.Reset()
				s256.Reset()
				_, err = io.Copy(w, obj)
				obj.Close()
				if err != nil {
					errs <- err
					return
				}
				_, _, _ = m.Sum(nil), s1.Sum(nil), s256.Sum(nil)
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// walk lists a bucket of s3WalkKeys keys as the walk does (storage's
// ListItems, pages of 1,000) and as the bare client does, directly and
// through the proxy adding 30 ms a request. The keys are written as files
// into versitygw's posix backend, where each object is a file (without
// the ETag attribute PutObject would set: a listing shows it empty).
func (b *s3Bench) walk(ctx context.Context, c *minio.Client) error {
	root := filepath.Join(b.vgw.Dir, "walk")
	for i := range s3WalkKeys {
		p := filepath.Join(root, fmt.Sprintf("d%03d", i%200), fmt.Sprintf("k%06d", i))
		if i < 200 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
		}
		if err := os.WriteFile(p, []byte{byte(i)}, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("walk: listing %d keys\n", s3WalkKeys)
	// One listing untimed first: the server's first reading of the fresh
	// directories would count against whichever side went first.
	for obj := range c.ListObjectsIter(ctx, "walk", minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			return obj.Err
		}
	}
	for _, latency := range []bool{false, true} {
		endpoint := b.vgw.Endpoint
		label := "loopback"
		if latency {
			endpoint, label = b.proxy.Endpoint, "+30 ms a request"
			b.proxy.SetDelay(s3Latency)
		}
		loc, err := storage.Open(storage.KindS3, map[string]string{"endpoint": endpoint, "bucket": "walk",
			"access_key_id": b.vgw.AccessKey, "secret_access_key": b.vgw.SecretKey, "path_style": "true", "region": "us-east-1"}, storage.Env{})
		if err != nil {
			return err
		}
		b.proxy.Reset()
		start := time.Now()
		n, cursor := 0, ""
		for {
			page, next, err := loc.ListItems(ctx, "walk", cursor, storage.MaxPageSize)
			if err != nil {
				return err
			}
			n += len(page)
			if next == "" {
				break
			}
			cursor = next
		}
		ours := time.Since(start)
		requests := b.proxy.Requests("GET")
		bc, err := minio.New(strings.TrimPrefix(endpoint, "http://"), &minio.Options{Creds: credentials.NewStaticV4(b.vgw.AccessKey, b.vgw.SecretKey, ""),
			Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
		if err != nil {
			return err
		}
		start = time.Now()
		bare := 0
		for obj := range bc.ListObjectsIter(ctx, "walk", minio.ListObjectsOptions{Recursive: true}) {
			if obj.Err != nil {
				return obj.Err
			}
			bare++
		}
		bareTook := time.Since(start)
		b.proxy.SetDelay(0)
		if n != s3WalkKeys || bare != s3WalkKeys {
			return fmt.Errorf("walk listed %d keys, bare client %d, want %d", n, bare, s3WalkKeys)
		}
		reqText := ""
		if latency {
			reqText = fmt.Sprintf(", %d list requests", requests)
		}
		fmt.Printf("  %s: storage.ListItems %s (%.0f keys/s%s); bare minio-go ListObjects %s; ratio %.2fx\n", label,
			ours.Round(time.Millisecond), float64(n)/ours.Seconds(), reqText, bareTook.Round(time.Millisecond), bareTook.Seconds()/ours.Seconds())
	}
	fmt.Println()
	return nil
}

// dropNamespace deletes the Redis keys of the all process's namespace
// (queues, asynq's counters, metrics).
func dropNamespace(redisURL, ns string) {
	rdb, err := queue.RedisClient(redisURL)
	if err != nil {
		return
	}
	defer rdb.Close()
	ctx := context.Background()
	iter := rdb.Scan(ctx, 0, "*"+ns+"*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	for start := 0; start < len(keys); start += 500 {
		rdb.Del(ctx, keys[start:min(start+500, len(keys))]...)
	}
}

// cliS3 is what a user would reach for: the AWS CLI copies the bucket to
// disk, then sha256sum reads the copies.
func (b *s3Bench) cliS3(ctx context.Context, endpoint, bucket string) (time.Duration, error) {
	if _, err := exec.LookPath("aws"); err != nil {
		return 0, errors.New("aws CLI not installed")
	}
	dir, err := os.MkdirTemp(b.dir, "cli-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	// The user's own configuration and credentials stay out of it.
	conf := filepath.Join(b.dir, "aws-config")
	if err := os.WriteFile(conf, nil, 0o600); err != nil {
		return 0, err
	}
	start := time.Now()
	cp := exec.CommandContext(ctx, "aws", "s3", "cp", "--recursive", "--only-show-errors", "--endpoint-url", endpoint, "s3://"+bucket, dir)
	cp.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+b.vgw.AccessKey, "AWS_SECRET_ACCESS_KEY="+b.vgw.SecretKey,
		"AWS_DEFAULT_REGION=us-east-1", "AWS_CONFIG_FILE="+conf, "AWS_SHARED_CREDENTIALS_FILE="+conf)
	if out, err := cp.CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		return 0, fmt.Errorf("aws s3 cp: %v: %s", err, lines[len(lines)-1])
	}
	if out, err := exec.CommandContext(ctx, "sh", "-c", "find '"+dir+"' -type f -print0 | xargs -0 sha256sum > /dev/null").CombinedOutput(); err != nil {
		return 0, fmt.Errorf("sha256sum: %v: %s", err, out)
	}
	return time.Since(start), nil
}
