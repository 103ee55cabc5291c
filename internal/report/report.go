// Package report turns a measure.Summary into what users take into a
// capacity review: a folder reports/<scenario>/<time>/ holding summary.json,
// a self-contained report.html (figures inline, no network needed), a
// report.md to paste into a review, and every figure as PNG and SVG.
//
// The report opens with a headline computed from the summary ("With ..., a
// limit of 5 per day let through up to 38 (7.6x) ..."), then the run's
// identity, tables and the figures that apply to the run. With
// Options.Compare it puts a prediction and a measurement side by side.
//
// Figures are built by functions that return *plot.Plot (see Figures) so
// that tests inspect their structure; rendering is separate.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/overshoot-dev/overshoot/internal/atomicfile"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/overshoot-dev/overshoot/internal/measure"
)

// Options are the optional inputs of Write. The zero value writes the
// report of the summary alone.
type Options struct {
	// Compare is a second summary to put beside the first: typically a
	// measured attack summary beside the simulate prediction for the same
	// scenario (either order works; modes decide which is which).
	Compare *measure.Summary
	// Traffic describes the traffic in words for the headline, e.g. "32
	// concurrent requests from one location". The summary does not carry
	// the populations' shape, so the driver that read the scenario should
	// say it; when empty, the headline names the populations and counts.
	Traffic string
	// Extra holds time series that summary.json does not carry (yet).
	Extra *Extra
	// Generated is when the report was made; shown when not zero.
	Generated time.Time
	// NoFigures writes the report's text and tables without its figures,
	// which take most of its time (the commands' tests use it).
	NoFigures bool
}

// Extra is data beyond measure.Summary that a driver may pass to the report:
// for now the live run's series over time, which the attack runner records
// but the summary does not hold.
type Extra struct {
	// LiveSeries is the live run in consecutive intervals, in time order.
	LiveSeries []LivePoint
	// LatencySamples are some of the live run's responses with their
	// latency and decision (attack.Options.Samples), for latency over
	// time coloured by decision.
	LatencySamples []measure.LatencySample
}

// LivePoint is one interval of a live run over time (measure.LivePoint),
// named here too because the report draws it.
type LivePoint = measure.LivePoint

// File names inside a report folder.
const (
	SummaryFile        = "summary.json"
	CompareSummaryFile = "compare-summary.json"
	HTMLFile           = "report.html"
	MarkdownFile       = "report.md"
	// PartialFile marks a report folder whose writing has not finished:
	// Write creates it first and removes it last, so a process killed
	// while writing leaves it beside whatever files it had written.
	PartialFile = "report.partial"
)

// partialNote is what PartialFile says to whoever finds it.
const partialNote = "This report was being written when the process writing it stopped (it was killed, or the machine went down).\n" +
	"The files here are whole, but some may be missing: summary.json is written last, so without it the report is incomplete.\n" +
	"Run again for a whole report.\n"

// testHookPut, when set (by tests), is called after each file Write puts
// into place.
var testHookPut func(name string)

// NewDir creates and returns a new, empty report folder
// root/<scenario>/<time>, with time as now in UTC (20060102T150405Z). It
// never reuses an existing folder: when the name is taken it tries
// <time>-2, <time>-3, and so on. The scenario name is made safe for a path
// (anything but letters, digits, '.', '_' and '-' becomes '-').
func NewDir(root, scenario string, now time.Time) (string, error) {
	parent := filepath.Join(root, safeName(scenario))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("report: creating the report folder's parent %s: %w", parent, err)
	}
	base := now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 1000; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		dir := filepath.Join(parent, name)
		err := os.Mkdir(dir, 0o755) // fails if it exists: never reuse a folder
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("report: creating report folder %s: %w", dir, err)
		}
	}
	return "", fmt.Errorf("report: %s already holds 1000 reports named %s-N; remove some or use another -out folder", parent, base)
}

// CheckRoot checks, before anything runs, that NewDir can make a report
// folder under root: the nearest existing folder on its path must be a
// folder one can write in, and no element of the path may be a symbolic
// link to nothing. It leaves nothing behind; its error names -out.
func CheckRoot(root string) error {
	for d := root; ; {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("-out %s: %s is not a folder: give a folder to write reports under", root, d)
		case err == nil:
			f, err := os.CreateTemp(d, ".overshoot-out-check-*")
			if err != nil {
				return fmt.Errorf("-out %s: cannot write in %s (%v): give a folder you can write in", root, d, errors.Unwrap(err))
			}
			f.Close()
			return os.Remove(f.Name())
		case errors.Is(err, fs.ErrNotExist):
			if li, lerr := os.Lstat(d); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
				to, _ := os.Readlink(d)
				return fmt.Errorf("-out %s: %s is a symbolic link to %s, which does not exist: create it or give another folder", root, d, to)
			}
		case !errors.Is(err, syscall.ENOTDIR):
			return fmt.Errorf("-out %s: %v", root, err)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
}

// safeName turns a scenario name into one path element.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), ".")
	if name == "" {
		return "unnamed"
	}
	if len(name) > 80 {
		name = name[:80]
	}
	return name
}

// WriteNew makes a new folder under root with NewDir (scenario name from
// the summary, time now) and writes the report there. It returns the folder.
func WriteNew(root string, s *measure.Summary, now time.Time, opts Options) (string, error) {
	if s == nil {
		return "", errors.New("report: no summary to write (nil)")
	}
	dir, err := NewDir(root, s.Scenario.Name, now)
	if err != nil {
		return "", err
	}
	if opts.Generated.IsZero() {
		opts.Generated = now
	}
	if err := Write(dir, s, opts); err != nil {
		os.Remove(dir) // empty after Write's cleanup; leave it if not
		return "", err
	}
	return dir, nil
}

// Write writes the report of s into dir, which must exist (see NewDir):
// summary.json, report.html, report.md and each figure as PNG and SVG. Every
// file is written to a temporary name and then linked into place, so no
// half-written file is left and no existing file is replaced: if dir
// already holds a report, Write fails. PartialFile marks the folder while
// the files go in, and summary.json goes in last, so a process killed
// meanwhile leaves a folder marked partial, never a complete-looking
// summary.json beside a missing report. On error, the files this call
// created are removed.
func Write(dir string, s *measure.Summary, opts Options) (err error) {
	if s == nil {
		return errors.New("report: no summary to write (nil)")
	}
	if err := checkReportDir(dir); err != nil {
		return err
	}
	d := build(s, opts)
	w := &reportFiles{dir: dir}
	defer func() {
		if err != nil {
			w.removeAll()
		}
	}()
	if err := w.put(PartialFile, []byte(partialNote)); err != nil {
		return err
	}
	if err := w.putFigures(d.Figures); err != nil {
		return err
	}
	if err := w.putDocs(d, s, opts.Compare); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, PartialFile)); err != nil {
		return fmt.Errorf("report: the report is written, but its mark as partial is not removed: %w", err)
	}
	return nil
}

// checkReportDir checks that dir is an existing folder that holds no
// report yet.
func checkReportDir(dir string) error {
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("report: report folder %s: %w (create it with report.NewDir)", dir, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("report: %s is not a folder", dir)
	}
	for _, name := range []string{SummaryFile, HTMLFile, MarkdownFile, PartialFile} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			return fmt.Errorf("report: %s already holds a report (%s exists); reports are never overwritten, use report.NewDir for a new folder", dir, name)
		}
	}
	return nil
}

// reportFiles writes a report's files into dir and remembers them, so
// that a failed Write can remove what it created.
type reportFiles struct {
	dir     string
	written []string
}

// put writes data to dir/name atomically and remembers the file.
func (w *reportFiles) put(name string, data []byte) error {
	p := filepath.Join(w.dir, name)
	if err := writeAtomic(p, data); err != nil {
		return err
	}
	w.written = append(w.written, p)
	if testHookPut != nil {
		testHookPut(name)
	}
	return nil
}

// removeAll removes every file put wrote.
func (w *reportFiles) removeAll() {
	for _, p := range w.written {
		os.Remove(p)
	}
}

// putFigures draws each figure that has a plot and writes it as PNG and
// SVG, keeping the PNG in the figure for the HTML report.
func (w *reportFiles) putFigures(figs []Figure) error {
	for i := range figs {
		f := &figs[i]
		if f.Plot == nil {
			continue // said in words
		}
		png, svg, err := render(f)
		if err != nil {
			return fmt.Errorf("report: drawing figure %q: %w", f.Name, err)
		}
		f.png = png
		if err := w.put(f.Name+".png", png); err != nil {
			return err
		}
		if err := w.put(f.Name+".svg", svg); err != nil {
			return err
		}
	}
	return nil
}

// putDocs writes the compared summary (when there is one), report.md,
// report.html and, last, summary.json.
func (w *reportFiles) putDocs(d *doc, s, compare *measure.Summary) error {
	js, err := indentJSON(s)
	if err != nil {
		return err
	}
	if compare != nil {
		js, err := indentJSON(compare)
		if err != nil {
			return err
		}
		if err := w.put(CompareSummaryFile, js); err != nil {
			return err
		}
	}
	md, err := d.markdown()
	if err != nil {
		return err
	}
	if err := w.put(MarkdownFile, md); err != nil {
		return err
	}
	html, err := d.html()
	if err != nil {
		return err
	}
	if err := w.put(HTMLFile, html); err != nil {
		return err
	}
	return w.put(SummaryFile, js)
}

// indentJSON encodes a summary as indented JSON. NaN and Inf are not JSON:
// they are written as null through a sanitized copy, so that a summary
// with such values still yields a report.
// WriteSummary writes summary.json alone into dir, atomically and never
// over an existing one: what a driver keeps when the full report cannot be
// written.
func WriteSummary(dir string, s *measure.Summary) error {
	js, err := indentJSON(s)
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, SummaryFile), js)
}

func indentJSON(s *measure.Summary) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		b, err = json.MarshalIndent(sanitized(s), "", "  ")
	}
	if err != nil {
		return nil, fmt.Errorf("report: encoding summary.json: %w", err)
	}
	return append(b, '\n'), nil
}

// writeAtomic writes data to path whole and never over a file that is
// there (atomicfile.Create): reports are never overwritten.
func writeAtomic(path string, data []byte) error {
	err := atomicfile.Create(path, data)
	switch {
	case errors.Is(err, atomicfile.ErrExists):
		return fmt.Errorf("report: %s already exists; reports are never overwritten", path)
	case err != nil:
		return fmt.Errorf("report: writing %s: %w", path, err)
	}
	return nil
}

// bytesTrim is a small helper for templates' outputs.
func bytesTrim(b *bytes.Buffer) []byte {
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}
