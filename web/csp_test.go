package web

import (
	"strings"
	"testing"
)

// Where the api redirects artifacts to presigned URLs of a bucket, pages
// allow images and media from the bucket's origins, and nothing else
// changes.
func TestPageCSPAllowsArtifactOrigins(t *testing.T) {
	t.Parallel()
	if pageCSP(nil) != csp {
		t.Fatal("without artifact origins the policy changed")
	}
	got := pageCSP([]string{"https://s3.example", "https://files.s3.example"})
	for _, want := range []string{"img-src 'self' data: https://s3.example https://files.s3.example;",
		"media-src 'self' https://s3.example https://files.s3.example;", "script-src 'self';", "default-src 'self';"} {
		if !strings.Contains(got, want) {
			t.Errorf("policy %q lacks %q", got, want)
		}
	}
	if strings.Count(got, "s3.example") != 4 {
		t.Errorf("policy %q allows the origins elsewhere", got)
	}
}
