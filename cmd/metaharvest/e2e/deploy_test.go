package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// No cluster runs here, so the deployment files are checked for what a
// cluster would refuse or get wrong: every document parses, every name one
// object uses resolves to another object of the manifests, the autoscaler
// asks Prometheus for series the api really serves, and Redis is durable.

// manifest is one Kubernetes object, as loosely typed as YAML is.
type manifest map[string]any

func (m manifest) kind() string { return str(m, "kind") }
func (m manifest) name() string { return str(m, "metadata", "name") }

// at walks nested maps and lists ("0" indexes a list).
func at(v any, path ...string) any {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case manifest:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func str(v any, path ...string) string {
	s, _ := at(v, path...).(string)
	return s
}

func loadManifests(t *testing.T) []manifest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "deploy", "kubernetes", "*.yaml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("manifests: %v %v", files, err)
	}
	var all []manifest
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		for {
			var raw map[string]any // not a manifest: nested maps would decode as manifests too
			if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if raw == nil {
				continue
			}
			m := manifest(raw)
			if str(m, "apiVersion") == "" || m.kind() == "" || m.name() == "" {
				t.Fatalf("%s: a document without apiVersion, kind or metadata.name: %v", f, m)
			}
			all = append(all, m)
		}
	}
	return all
}

func find(all []manifest, kind, name string) manifest {
	for _, m := range all {
		if m.kind() == kind && m.name() == name {
			return m
		}
	}
	return nil
}

// podSpecs yields the pod template of each workload.
func podSpecs(all []manifest) map[string]any {
	out := map[string]any{}
	for _, m := range all {
		switch m.kind() {
		case "Deployment", "StatefulSet", "Job":
			out[m.kind()+"/"+m.name()] = at(m, "spec", "template", "spec")
		}
	}
	return out
}

func TestKubernetesManifestsResolve(t *testing.T) {
	t.Parallel()
	all := loadManifests(t)
	config := find(all, "ConfigMap", "metaharvest")
	secret := find(all, "Secret", "metaharvest")
	if config == nil || secret == nil {
		t.Fatal("no metaharvest ConfigMap or Secret")
	}
	shutdown, err := strconv.Atoi(str(config, "data", "SHUTDOWN_TIMEOUT"))
	if err != nil || shutdown <= 0 {
		t.Fatalf("ConfigMap SHUTDOWN_TIMEOUT %q", str(config, "data", "SHUTDOWN_TIMEOUT"))
	}
	if str(secret, "stringData", "METRICS_TOKEN") == "" {
		t.Error("the Secret gives no METRICS_TOKEN for the scraper")
	}

	// Every reference of a pod resolves, and metaharvest's pods stop within
	// their grace period.
	for name, spec := range podSpecs(all) {
		containers, _ := at(spec, "containers").([]any)
		for _, c := range containers {
			for _, ref := range asList(at(c, "envFrom")) {
				if n := str(ref, "secretRef", "name"); n != "" && find(all, "Secret", n) == nil {
					t.Errorf("%s: envFrom Secret %q is not in the manifests", name, n)
				}
				if n := str(ref, "configMapRef", "name"); n != "" && find(all, "ConfigMap", n) == nil {
					t.Errorf("%s: envFrom ConfigMap %q is not in the manifests", name, n)
				}
			}
			if str(c, "image") == "metaharvest:latest" && !strings.HasPrefix(name, "Job/") {
				grace, _ := at(spec, "terminationGracePeriodSeconds").(int)
				if grace <= shutdown {
					t.Errorf("%s: terminationGracePeriodSeconds %d is not above SHUTDOWN_TIMEOUT %d", name, grace, shutdown)
				}
			}
		}
		for _, v := range asList(at(spec, "volumes")) {
			if n := str(v, "persistentVolumeClaim", "claimName"); n != "" && find(all, "PersistentVolumeClaim", n) == nil {
				t.Errorf("%s: volume claim %q is not in the manifests", name, n)
			}
			if n := str(v, "configMap", "name"); n != "" && find(all, "ConfigMap", n) == nil {
				t.Errorf("%s: ConfigMap volume %q is not in the manifests", name, n)
			}
		}
	}
	// Every Service selects pods of a workload, and the Secret's REDIS_URL
	// names the Redis Service.
	for _, svc := range all {
		if svc.kind() != "Service" {
			continue
		}
		sel, _ := at(svc, "spec", "selector").(map[string]any)
		matched := false
		for _, m := range all {
			labels, _ := at(m, "spec", "template", "metadata", "labels").(map[string]any)
			if len(sel) > 0 && labels != nil && subset(sel, labels) {
				matched = true
			}
		}
		if !matched {
			t.Errorf("Service %s selects no pods of the manifests (%v)", svc.name(), sel)
		}
	}
	if !strings.HasPrefix(str(secret, "stringData", "REDIS_URL"), "redis://redis:6379") || find(all, "Service", "redis") == nil {
		t.Errorf("REDIS_URL %q does not name the redis Service", str(secret, "stringData", "REDIS_URL"))
	}
	redisConf := str(find(all, "ConfigMap", "metaharvest-redis"), "data", "redis.conf")
	for _, line := range []string{"appendonly yes", "maxmemory-policy noeviction"} {
		if !regexp.MustCompile(`(?m)^` + line + `$`).MatchString(redisConf) {
			t.Errorf("redis.conf lacks %q", line)
		}
	}

	// The autoscaler scales the worker Deployment, one worker per
	// WORKER_CONCURRENCY tasks.
	so := find(all, "ScaledObject", "metaharvest-worker")
	if so == nil {
		t.Fatal("no ScaledObject")
	}
	target := find(all, "Deployment", str(so, "spec", "scaleTargetRef", "name"))
	if target == nil || !slices.Equal(asStrings(at(target, "spec", "template", "spec", "containers", "0", "args")), []string{"worker"}) {
		t.Fatalf("the ScaledObject scales %q, which is not the worker Deployment", str(so, "spec", "scaleTargetRef", "name"))
	}
	triggers := asList(at(so, "spec", "triggers"))
	if len(triggers) == 0 {
		t.Fatal("the ScaledObject has no trigger")
	}
	for _, tr := range triggers {
		if str(tr, "type") != "prometheus" {
			continue
		}
		if got, want := str(tr, "metadata", "threshold"), str(config, "data", "WORKER_CONCURRENCY"); got != want {
			t.Errorf("trigger threshold %q, WORKER_CONCURRENCY %q", got, want)
		}
	}
}

// The series the autoscaler's queries name are served by a running api's
// /metrics, with the label values they select.
func TestAutoscalerQueriesNameServedSeries(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	c, _ := p.startAPI("METRICS_TOKEN=" + testMetricsToken)
	fams := scrape(t, c.base, testMetricsToken)
	so := find(loadManifests(t), "ScaledObject", "metaharvest-worker")
	series := regexp.MustCompile(`(metaharvest_[a-z_]+)(\{[^}]*\})?`)
	selector := regexp.MustCompile(`([a-z_]+)=~?"([^"]*)"`)
	checked := 0
	for _, tr := range asList(at(so, "spec", "triggers")) {
		query := str(tr, "metadata", "query")
		for _, m := range series.FindAllStringSubmatch(query, -1) {
			fam := fams[m[1]]
			if fam == nil {
				t.Errorf("query %q names %s, which /metrics does not serve", query, m[1])
				continue
			}
			checked++
			for _, sel := range selector.FindAllStringSubmatch(m[2], -1) {
				for _, want := range strings.Split(sel[2], "|") {
					found := false
					for _, s := range fam.Metric {
						for _, l := range s.Label {
							if l.GetName() == sel[1] && l.GetValue() == want {
								found = true
							}
						}
					}
					if !found {
						t.Errorf("query %q selects %s=%q, which no series of %s has", query, sel[1], want, m[1])
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("the autoscaler names no metaharvest series")
	}
}

// docker compose runs Redis durably and gives the roles time to stop.
func TestComposeRedisIsDurable(t *testing.T) {
	t.Parallel()
	compose := loadCompose(t)
	cmd := strings.Join(asStrings(at(compose, "services", "redis", "command")), " ")
	for _, want := range []string{"--appendonly yes", "--maxmemory-policy noeviction"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("compose redis command %q lacks %s", cmd, want)
		}
	}
	for _, role := range []string{"api", "worker", "scheduler"} {
		svc, _ := at(compose, "services", role).(map[string]any)
		if svc == nil {
			t.Fatalf("no %s service", role)
		}
		if at(compose, "services", role, "stop_grace_period") == nil {
			t.Errorf("%s has no stop_grace_period", role)
		}
	}
}

// loadCompose reads docker-compose.yml.
func loadCompose(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var compose map[string]any
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatal(err)
	}
	return compose
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asStrings(v any) []string {
	var out []string
	for _, x := range asList(v) {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func subset(sel, labels map[string]any) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}
