package safemd

import (
	"strings"
	"testing"
	"time"
)

func TestSanitizeLargeInputsAreFast(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		strings.Repeat("<textarea>", 5000),
		strings.Repeat("[a](javascript:x) ", 20000),
		strings.Repeat("<<a>", 20000),
		strings.Repeat("](", 50000),
		strings.Repeat("<b onclick=x>", 10000),
		strings.Repeat("(", 100000),
		strings.Repeat("]:", 50000),
		strings.Repeat("](\n> ", 30000),
		strings.Repeat("](< ", 40000),
		"](" + strings.Repeat(" \n>", 100000) + "javascript:x)",
	} {
		start := time.Now()
		out := Sanitize(in)
		safe(t, in[:20], out)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%.20q...: %v", in, d)
		}
	}
}
