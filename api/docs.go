package api

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"
	"gopkg.in/yaml.v3"
)

//go:embed openapi.yaml
var openapiYAML []byte

// openapiParts are per-area fragments (paths and components) merged into
// openapi.yaml at load time, so areas can be documented side by side.
//
//go:embed openapi
var openapiParts embed.FS

var (
	specOnce sync.Once
	spec     *openapi3.T
	specJSON []byte
	specErr  error
)

// Spec loads and validates the embedded OpenAPI document once.
func Spec() (*openapi3.T, []byte, error) {
	specOnce.Do(func() {
		merged, err := mergedDocument()
		if err != nil {
			specErr = err
			return
		}
		loader := openapi3.NewLoader()
		spec, specErr = loader.LoadFromData(merged)
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

// mergedDocument is openapi.yaml with every fragment's paths and components
// added; a path or component defined twice is an error.
func mergedDocument() ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(openapiYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	entries, err := openapiParts.ReadDir("openapi")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		b, err := openapiParts.ReadFile("openapi/" + e.Name())
		if err != nil {
			return nil, err
		}
		var part map[string]any
		if err := yaml.Unmarshal(b, &part); err != nil {
			return nil, fmt.Errorf("openapi/%s: %w", e.Name(), err)
		}
		if err := mergeInto(doc, "paths", part["paths"], e.Name()); err != nil {
			return nil, err
		}
		comps, _ := part["components"].(map[string]any)
		docComps, _ := doc["components"].(map[string]any)
		for kind, v := range comps {
			if err := mergeInto(docComps, kind, v, e.Name()); err != nil {
				return nil, err
			}
		}
	}
	return json.Marshal(doc)
}

func mergeInto(dst map[string]any, key string, src any, file string) error {
	m, _ := src.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	target, _ := dst[key].(map[string]any)
	if target == nil {
		target = map[string]any{}
		dst[key] = target
	}
	for k, v := range m {
		if _, dup := target[k]; dup {
			return fmt.Errorf("openapi/%s: %s %q defined twice", file, key, k)
		}
		target[k] = v
	}
	return nil
}
