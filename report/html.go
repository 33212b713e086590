package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
)

// CSP is the page's Content-Security-Policy: nothing is fetched, no
// script runs, no form posts, no frame; only the inline style sheet and
// the charts' style attributes apply.
const CSP = "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src 'none'; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"

//go:embed report.css
var css string

//go:embed report.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"line": line,
	"vias": vias,
}).Parse(pageTemplate))

// WriteHTML writes the report as one self-contained HTML page.
func WriteHTML(w io.Writer, d *Data) error {
	p, err := d.view()
	if err != nil {
		return err
	}
	p.CSS = template.CSS(css) //nolint:gosec // our own style sheet
	p.CSP = CSP
	if err := tmpl.Execute(w, p); err != nil {
		return fmt.Errorf("cannot write the report: %w", err)
	}
	return nil
}

// vias says how an annotator reached the items they labelled:
// "random 120, order 30".
func vias(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %s", line(k), thousands(m[k])))
	}
	return strings.Join(parts, ", ")
}
