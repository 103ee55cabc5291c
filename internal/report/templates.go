package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"

	"github.com/overshoot-dev/overshoot/internal/escape"
)

// markdown renders report.md: figures are links to the PNGs beside it.
func (d *doc) markdown() ([]byte, error) {
	var b bytes.Buffer
	if err := mdTemplate.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("report: rendering report.md: %w", err)
	}
	return bytesTrim(&b), nil
}

// html renders report.html: self-contained, figures inline as data: URIs,
// no scripts, and a content security policy that forbids any network load.
func (d *doc) html() ([]byte, error) {
	var b bytes.Buffer
	if err := htmlTemplate.Execute(&b, d); err != nil {
		return nil, fmt.Errorf("report: rendering report.html: %w", err)
	}
	return b.Bytes(), nil
}

// mdCell escapes a table cell for Markdown.
func mdCell(s string) string { return escape.MarkdownCell(s) }

var mdTemplate = texttemplate.Must(texttemplate.New("md").Funcs(texttemplate.FuncMap{
	"cell": mdCell,
	"md":   escape.Markdown,
	"sep": func(n int) string {
		return strings.Repeat("|---", n) + "|"
	},
	"row": func(cells []string) string {
		out := make([]string, len(cells))
		for i, c := range cells {
			out[i] = mdCell(c)
		}
		return "| " + strings.Join(out, " | ") + " |"
	},
}).Parse(`# {{md .Title}}

**{{md .Headline}}**
{{range .Warnings}}
> **Warning:** {{md .}}
{{end}}
| Run | |
|---|---|
{{range .Facts}}| {{cell .Name}} | {{cell .Value}} |
{{end}}{{if .Generated}}| Generated | {{cell .Generated}} |
{{end}}{{if .Compare}}
## Prediction against measurement

{{md .Compare}}
{{range .CompareTables}}
### {{md .Title}}
{{template "mdtable" .}}{{end}}{{end}}{{range .Tables}}
## {{md .Title}}
{{template "mdtable" .}}{{end}}{{if .Figures}}
## Figures
{{range .Figures}}
### {{md .Title}}
{{if .Plot}}
![{{md .Title}}]({{.Name}}.png)

{{md .Caption}} (Also as [SVG]({{.Name}}.svg).)
{{else}}
{{md .Empty}}
{{end}}{{end}}{{end}}{{range .Details}}
## {{md .Title}}
{{template "mdtable" .}}{{end}}{{define "mdtable"}}
{{row .Header}}
{{sep (len .Header)}}
{{range .Rows}}{{row .}}
{{end}}{{if .Note}}
{{md .Note}}
{{end}}{{end}}`))

var htmlTemplate = htmltemplate.Must(htmltemplate.New("html").Funcs(htmltemplate.FuncMap{
	"pngURI": func(f Figure) htmltemplate.URL {
		return htmltemplate.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(f.png))
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.5rem; margin-bottom: 0.5rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05rem; margin-bottom: 0.3rem; }
.headline { font-size: 1.2rem; font-weight: bold; background: #f3f6fa; border-left: 4px solid #0072b2; padding: 0.8rem 1rem; }
.warning { background: #fff4e5; border-left: 4px solid #d55e00; padding: 0.5rem 1rem; }
.verdict { padding: 0.5rem 1rem; }
.verdict.holds { background: #f3faf6; border-left: 4px solid #009e73; }
.verdict.fails { background: #fff4e5; border-left: 4px solid #d55e00; }
.verdict.cannot-judge { background: #f4f4f4; border-left: 4px solid #888; }
table { border-collapse: collapse; margin: 0.5rem 0; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
figure { margin: 1rem 0 2rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #444; font-size: 0.92rem; }
.note { color: #555; font-size: 0.9rem; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="headline" id="headline">{{.Headline}}</p>
{{range .Warnings}}<p class="warning"><strong>Warning:</strong> {{.}}</p>
{{end}}<table class="facts">
{{range .Facts}}<tr><th>{{.Name}}</th><td>{{.Value}}</td></tr>
{{end}}{{if .Generated}}<tr><th>Generated</th><td>{{.Generated}}</td></tr>
{{end}}</table>
{{if .Compare}}<h2>Prediction against measurement</h2>
<p class="verdict {{.VerdictClass}}" id="verdict">{{.Compare}}</p>
{{range .CompareTables}}<h3>{{.Title}}</h3>
{{template "table" .}}{{end}}{{end}}{{range .Tables}}<h2>{{.Title}}</h2>
{{template "table" .}}{{end}}{{if .Figures}}<h2>Figures</h2>
{{range .Figures}}<figure id="{{.Name}}">
<h3>{{.Title}}</h3>
{{if .Plot}}<img src="{{pngURI .}}" alt="{{.Title}}" data-figure="{{.Name}}" width="{{.ShownWidth}}">
<figcaption>{{.Caption}} Files: <a href="{{.Name}}.png">{{.Name}}.png</a>, <a href="{{.Name}}.svg">{{.Name}}.svg</a>.</figcaption>{{else}}<p class="empty-figure">{{.Empty}}</p>{{end}}
</figure>
{{end}}{{end}}{{range .Details}}<h2>{{.Title}}</h2>
{{template "table" .}}{{end}}</body>
</html>
{{define "table"}}<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{if .Note}}<p class="note">{{.Note}}</p>
{{end}}{{end}}`))
