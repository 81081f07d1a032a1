package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/metaharvest/metaharvest/extractors/shared/vision"
)

// The vision suite (issue 48): pictures a second through the platform
// (a harvest of the pictures with objects, then with vendor_faces) against
// the bare vision sidecar on the same pictures (node server.js fed their
// PPMs, as many processes as the worker's pool, VISION_PROCESSES=0), and
// the cost each adds to a harvested photo (a harvest with store and
// mime_type only, then with both). vendor_faces' baseline is one face
// request per picture on the whole picture: the platform's figure also
// holds pigo and one request per face it found, so its ratio is a
// measure, not a target.

var visionSamples = []string{
	"extractors/faces/testdata/astronaut.png", "extractors/faces/testdata/samples-man-dinner.jpg",
	"extractors/faces/testdata/facedetect-five.jpg", "extractors/faces/testdata/facematch-man-1.jpg",
	"extractors/objects/testdata/coffee.jpg", "extractors/objects/testdata/chelsea.jpg", "extractors/objects/testdata/rocket.jpg",
	"extractors/objects/testdata/samples-three.jpg", "extractors/objects/testdata/facedetect-two.jpg",
	"extractors/nsfw/testdata/video-001.png",
}

func benchVision(ctx context.Context, e *env, repo string) error {
	const copies = 4
	dirOf := func(name string) string { return filepath.Join(e.dir, "vision-"+name, "media") }
	for _, d := range []string{"warm", "objects", "vendor_faces", "base", "both", "ppm"} {
		if err := os.MkdirAll(dirOf(d), 0o755); err != nil {
			return err
		}
	}
	if err := copyFile(filepath.Join(repo, visionSamples[0]), filepath.Join(dirOf("warm"), "warm.png")); err != nil {
		return err
	}
	var ppms []string
	n := 0
	for i := 0; i < copies; i++ {
		for _, s := range visionSamples {
			name := fmt.Sprintf("%04d-%s", i, filepath.Base(s))
			for _, d := range []string{"objects", "vendor_faces", "base", "both"} {
				if err := copyFile(filepath.Join(repo, s), filepath.Join(dirOf(d), name)); err != nil {
					return err
				}
			}
			n++
			if i == 0 {
				p := filepath.Join(dirOf("ppm"), strings.TrimSuffix(filepath.Base(s), filepath.Ext(s))+".ppm")
				out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-y", "-i", filepath.Join(repo, s), "-vf",
					"scale='min(640,iw)':'min(640,ih)':force_original_aspect_ratio=decrease", "-pix_fmt", "rgb24", p).CombinedOutput()
				if err != nil {
					return fmt.Errorf("vision: ppm of %s: %v: %s", s, err, out)
				}
				ppms = append(ppms, p)
			}
		}
	}
	var all []string
	for i := 0; i < copies; i++ {
		all = append(all, ppms...)
	}
	dir, err := vision.Installed(filepath.Join(repo, "deploy", "vision"))
	if err != nil {
		fmt.Printf("  %-18s not run: %v\n", "vision", err)
		return nil
	}
	procs := vision.AutoProcesses()
	for _, name := range []string{"objects", "vendor_faces"} {
		task := vision.TaskObjects
		if name == "vendor_faces" {
			task = vision.TaskFace
		}
		bare, err := bareSidecar(dir, task, procs, all)
		if err != nil {
			fmt.Printf("  %-18s bare sidecar did not run: %v\n", name, err)
			continue
		}
		restore, err := enable(e, name)
		if err != nil {
			return err
		}
		if _, err := e.harvest(ctx, filepath.Dir(dirOf("warm")), []string{name}, 1); err != nil {
			restore()
			return fmt.Errorf("%s: %w", name, err)
		}
		ours, err := e.harvest(ctx, filepath.Dir(dirOf(name)), []string{name}, int64(n))
		restore()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		note, err := runNote(e, name, n+1)
		if err != nil {
			return err
		}
		bps, ops := float64(n)/bare.Seconds(), float64(n)/ours.Seconds()
		fmt.Printf("  %-18s %4d pictures: bare sidecar %6.2f pictures/s (%d processes); metaharvest %6.2f pictures/s; ratio %.2fx%s\n",
			name, n, bps, procs, ops, ops/bps, note)
	}
	base, err := e.harvest(ctx, filepath.Dir(dirOf("base")), []string{"store", "mime_type"}, int64(n))
	if err != nil {
		return err
	}
	var restores []func()
	for _, name := range []string{"objects", "vendor_faces"} {
		r, err := enable(e, name)
		if err != nil {
			return err
		}
		restores = append(restores, r)
	}
	both, err := e.harvest(ctx, filepath.Dir(dirOf("both")), []string{"store", "mime_type", "objects", "vendor_faces"}, int64(n))
	for _, r := range restores {
		r()
	}
	if err != nil {
		return err
	}
	fmt.Printf("  %-18s %4d pictures: store+mime_type %.2f s, with objects and vendor_faces %.2f s: %.0f ms added a photo\n",
		"vision cost", n, base.Seconds(), both.Seconds(), float64((both-base).Milliseconds())/float64(n))
	return nil
}

// bareSidecar feeds the PPMs to procs node processes of the sidecar
// (task on each), once the model is loaded, and returns the time from the
// first request to the last answer.
func bareSidecar(dir, task string, procs int, ppms []string) (time.Duration, error) {
	type proc struct {
		cmd *exec.Cmd
		in  *os.File
		out *bufio.Reader
	}
	var ps []*proc
	defer func() {
		for _, p := range ps {
			p.in.Close()
			p.cmd.Wait()
		}
	}()
	ask := func(p *proc, id int, path string) error {
		if _, err := fmt.Fprintf(p.in, "{\"id\":\"%d\",\"task\":%q,\"path\":%q}\n", id, task, path); err != nil {
			return err
		}
		line, err := p.out.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.Contains(line, `"error"`) {
			return fmt.Errorf("sidecar: %s", strings.TrimSpace(line))
		}
		return nil
	}
	for range procs {
		cmd := exec.Command("node", filepath.Join(dir, "server.js"), "--preload", task)
		cmd.Dir = dir
		r, w, err := os.Pipe()
		if err != nil {
			return 0, err
		}
		cmd.Stdin = r
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return 0, err
		}
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		r.Close()
		p := &proc{cmd: cmd, in: w, out: bufio.NewReaderSize(stdout, 1<<20)}
		ps = append(ps, p)
		if _, err := p.out.ReadString('\n'); err != nil { // ready
			return 0, err
		}
		if err := ask(p, 0, ppms[0]); err != nil { // warm
			return 0, err
		}
	}
	start := time.Now()
	next := make(chan int)
	errs := make(chan error, len(ps))
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := ask(p, i+1, ppms[i]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range ppms {
		next <- i
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return time.Since(start), nil
}
