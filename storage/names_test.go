package storage_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/metaharvest/metaharvest/storage"
)

// TestFilesystemNamesNotUTF8: a folder and files whose names are not UTF-8
// are listed under escaped names (valid UTF-8), and those names stat, open
// and give the local path of the files they stand for; other spellings
// name nothing.
func TestFilesystemNamesNotUTF8(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for p, body := range map[string]string{
		"arch\xefv/d\xe9j\xe0/ann\xe9e.csv": "year\n",
		"arch\xefv/caf\xe9.txt":             "bonjour\n",
		"arch\xefv/plain.txt":               "plain\n",
	} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loc := openFS(t, dir)
	ctx := testCtx(t)
	ctrs, _, err := loc.ListContainers(ctx, "", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	const ctr = "arch\U0010FFEFv"
	if !slices.Equal(ctrs, []string{ctr}) {
		t.Fatalf("containers %q", ctrs)
	}
	// One file per page: every cursor is an escaped path too.
	var paths []string
	for cursor := ""; ; {
		page, next, err := loc.ListItems(ctx, ctr, cursor, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			paths = append(paths, e.Path)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	want := []string{"caf\U0010FFE9.txt", "d\U0010FFE9j\U0010FFE0/ann\U0010FFE9e.csv", "plain.txt"}
	if !slices.Equal(paths, want) {
		t.Fatalf("listed %q, want %q", paths, want)
	}
	files := openFiles(t, loc, ctr)
	for p, body := range map[string]string{want[0]: "bonjour\n", want[1]: "year\n"} {
		e, err := loc.Stat(ctx, ctr, p)
		if err != nil || e.Path != p || e.Size != int64(len(body)) {
			t.Fatalf("Stat(%q): %+v, %v", p, e, err)
		}
		rc := mustOpen(t, loc, ctr, p)
		got, _ := io.ReadAll(rc)
		rc.Close()
		if string(got) != body {
			t.Fatalf("Open(%q): %q", p, got)
		}
		f, fe, err := files.Open(p)
		if err != nil || fe.Path != p {
			t.Fatalf("Files.Open(%q): %+v, %v", p, fe, err)
		}
		f.Close()
		local, ok := loc.(interface {
			LocalPath(container, p string) (string, bool)
		}).LocalPath(ctr, p)
		if b, err := os.ReadFile(local); !ok || err != nil || string(b) != body {
			t.Fatalf("LocalPath(%q) = %q: %q, %v", p, local, b, err)
		}
	}
	// "é" spelled as two escaped bytes is not how any name is listed.
	if _, err := loc.Stat(ctx, ctr, "\U0010FFC3\U0010FFA9"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("a second spelling: %v", err)
	}
	if _, err := loc.Stat(ctx, ctr, "caf\xe9.txt"); err == nil {
		t.Fatal("the raw name, not UTF-8, stat'ed")
	}
}
