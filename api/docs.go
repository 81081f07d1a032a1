package api

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"
)

//go:embed openapi.yaml
var openapiYAML []byte

var (
	specOnce sync.Once
	spec     *openapi3.T
	specJSON []byte
	specErr  error
)

// Spec loads and validates the embedded OpenAPI document once.
func Spec() (*openapi3.T, []byte, error) {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		spec, specErr = loader.LoadFromData(openapiYAML)
		if specErr != nil {
			return
		}
		if specErr = spec.Validate(context.Background()); specErr != nil {
			return
		}
		specJSON, specErr = json.Marshal(spec)
	})
	return spec, specJSON, specErr
}

func (s *Server) docsJSON(c *gin.Context) error {
	_, b, err := Spec()
	if err != nil {
		return fmt.Errorf("openapi document: %w", err)
	}
	c.Data(http.StatusOK, "application/json", b)
	return nil
}

// docsPage renders a plain, dependency-free HTML index of the document:
// every operation with its scope, summary and request/response schemas'
// names. The full detail is in /api/docs/openapi.json.
func (s *Server) docsPage(c *gin.Context) error {
	doc, _, err := Spec()
	if err != nil {
		return fmt.Errorf("openapi document: %w", err)
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>metaharvest API</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}td,th{padding:.3em .6em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
code{background:#f4f4f4;padding:0 .2em}.m{font-weight:bold;font-family:monospace}</style></head><body>`)
	fmt.Fprintf(&b, "<h1>%s %s</h1><p>%s</p><p>Machine-readable document: <a href=\"/api/docs/openapi.json\">openapi.json</a>.</p>",
		html.EscapeString(doc.Info.Title), html.EscapeString(doc.Info.Version), html.EscapeString(doc.Info.Description))
	b.WriteString("<table><tr><th>Method</th><th>Path</th><th>Scope</th><th>Summary</th></tr>")
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, p := range paths {
		item := doc.Paths.Value(p)
		ops := item.Operations()
		methods := make([]string, 0, len(ops))
		for m := range ops {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		for _, m := range methods {
			op := ops[m]
			scope, _ := op.Extensions["x-scope"].(string)
			fmt.Fprintf(&b, "<tr><td class=m>%s</td><td><code>%s</code></td><td><code>%s</code></td><td>%s</td></tr>",
				m, html.EscapeString(p), html.EscapeString(scope), html.EscapeString(op.Summary))
		}
	}
	b.WriteString("</table></body></html>")
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(b.String()))
	return nil
}
