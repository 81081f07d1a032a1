package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/metaharvest/metaharvest/internal/config"
)

// With the platform's files in a bucket, the deployment files share no
// volume between api and workers: no ReadWriteMany claim, DATA_DIR each
// pod's own, the bucket's settings valid and its secret in the Secret.
func TestKubernetesManifestsShareNoVolume(t *testing.T) {
	t.Parallel()
	all := loadManifests(t)
	cm := find(all, "ConfigMap", "metaharvest")
	secret := find(all, "Secret", "metaharvest")
	env := map[string]string{}
	for _, src := range []any{at(cm, "data"), at(secret, "stringData")} {
		m, _ := src.(map[string]any)
		for k, v := range m {
			env[k], _ = v.(string)
		}
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("the manifests' settings: %v", err)
	}
	if !cfg.DataBucket.Enabled() {
		t.Fatal("the manifests configure no DATA_BUCKET")
	}
	if str(cm, "data", "DATA_BUCKET_SECRET_ACCESS_KEY") != "" || str(secret, "stringData", "DATA_BUCKET_SECRET_ACCESS_KEY") == "" {
		t.Error("the bucket's secret key belongs in the Secret, not the ConfigMap")
	}
	for _, m := range all {
		if m.kind() == "PersistentVolumeClaim" && slices.Contains(asStrings(at(m, "spec", "accessModes")), "ReadWriteMany") {
			t.Errorf("claim %s is ReadWriteMany", m.name())
		}
	}
	for name, spec := range podSpecs(all) {
		if !strings.Contains(name, "metaharvest-") {
			continue
		}
		for _, v := range asList(at(spec, "volumes")) {
			if claim := str(v, "persistentVolumeClaim", "claimName"); claim != "" {
				t.Errorf("%s mounts the claim %s: pods of metaharvest share no volume", name, claim)
			}
		}
	}
	worker := find(all, "Deployment", "metaharvest-worker")
	if str(worker, "spec", "template", "spec", "volumes", "0", "emptyDir", "sizeLimit") == "" {
		t.Error("the worker's DATA_DIR has no emptyDir size limit")
	}
}

// docker compose runs the demo with its bucket: api, worker and scheduler
// mount no shared volume at DATA_DIR and reach the bucket service.
func TestComposeSharesNoVolume(t *testing.T) {
	t.Parallel()
	compose := loadCompose(t)
	if at(compose, "services", "bucket", "image") == nil {
		t.Fatal("no bucket service")
	}
	for _, role := range []string{"api", "worker", "scheduler"} {
		env, _ := at(compose, "services", role, "environment").(map[string]any)
		dataDir, _ := env["DATA_DIR"].(string)
		if env["DATA_BUCKET"] == nil || !strings.HasPrefix(env["DATA_BUCKET_ENDPOINT"].(string), "http://bucket:") || dataDir == "" {
			t.Errorf("%s: DATA_BUCKET settings %v", role, env)
		}
		for _, v := range asStrings(at(compose, "services", role, "volumes")) {
			if parts := strings.Split(v, ":"); len(parts) >= 2 && parts[1] == dataDir {
				t.Errorf("%s mounts %s at DATA_DIR: a shared volume", role, parts[0])
			}
		}
	}
}
