package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The HTML report is opened in headless Chromium (Debian package
// "chromium"): the page must load with no console messages at all (the
// report has no scripts, so any message is the browser complaining, e.g. a
// blocked load), every figure must decode with a non-zero size, and a
// screenshot is taken. Without a chromium binary the test is skipped,
// unless OVERSHOOT_REQUIRE_CHROMIUM=1 (CI), when it fails.

// chromiumPath finds the browser: $OVERSHOOT_CHROMIUM, else a usual name.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("OVERSHOOT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium binary found (install the Debian package: apt-get install -y chromium; or set OVERSHOOT_CHROMIUM)"
	if os.Getenv("OVERSHOOT_REQUIRE_CHROMIUM") == "1" {
		t.Fatal(msg + "; OVERSHOOT_REQUIRE_CHROMIUM=1 requires it")
	}
	t.Skip(msg)
	return ""
}

// chromiumFlags are the flags every run uses: headless, no sandbox (CI runs
// as root), no GPU, and nothing that talks to the network on its own.
func chromiumFlags(userDir string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + userDir, "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"}
}

// runChromium runs the browser on a file and returns stdout and stderr.
func runChromium(t *testing.T, bin, page string, extra ...string) (stdout, stderr []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append(chromiumFlags(t.TempDir()), extra...)
	args = append(args, "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", bin, strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes(), errb.Bytes()
}

// consoleLines are the page's console messages in Chromium's log.
func consoleLines(stderr []byte) []string {
	var out []string
	for _, l := range strings.Split(string(stderr), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			out = append(out, l)
		}
	}
	return out
}

// probeScript, put first in <head> of a copy of the page, records errors
// (script errors, failed loads, blocked loads, console.error) and, once
// loaded, each figure's decoded size into attributes of <body> for
// --dump-dom to show.
const probeScript = `<script>
(function(){
  var errs = [];
  window.addEventListener('error', function(e){ errs.push('error:' + (e.message || (e.target && e.target.tagName) || '?')); }, true);
  document.addEventListener('securitypolicyviolation', function(e){ errs.push('csp:' + e.blockedURI); });
  var ce = console.error; console.error = function(){ errs.push('console:' + Array.prototype.join.call(arguments, ' ')); ce.apply(console, arguments); };
  window.addEventListener('load', function(){
    var r = [];
    document.querySelectorAll('img').forEach(function(i){ r.push((i.getAttribute('data-figure') || '?') + ':' + i.naturalWidth + 'x' + i.naturalHeight); });
    document.body.setAttribute('data-probe-figures', r.join(' '));
    document.body.setAttribute('data-probe-errors', errs.join(' | '));
    document.body.setAttribute('data-probe-done', 'yes');
  });
})();
</script>`

// probe runs page through Chromium with probeScript and returns each
// figure's size by name and the errors seen.
func probe(t *testing.T, bin, page string) (sizes map[string][2]int, errs string) {
	t.Helper()
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(html)
	// The report forbids scripts; the probe's copy allows inline ones only.
	s = strings.Replace(s, "default-src 'none';", "default-src 'none'; script-src 'unsafe-inline';", 1)
	s = strings.Replace(s, "<head>", "<head>\n"+probeScript, 1)
	probePage := filepath.Join(filepath.Dir(page), "probe.html")
	if err := os.WriteFile(probePage, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := runChromium(t, bin, probePage, "--dump-dom")
	if !bytes.Contains(dom, []byte(`data-probe-done="yes"`)) {
		t.Fatalf("the probe did not run (page never loaded?); DOM:\n%.2000s", dom)
	}
	figs := regexp.MustCompile(`data-probe-figures="([^"]*)"`).FindSubmatch(dom)
	errm := regexp.MustCompile(`data-probe-errors="([^"]*)"`).FindSubmatch(dom)
	sizes = map[string][2]int{}
	for _, f := range strings.Fields(string(figs[1])) {
		name, wh, _ := strings.Cut(f, ":")
		ws, hs, _ := strings.Cut(wh, "x")
		w, _ := strconv.Atoi(ws)
		h, _ := strconv.Atoi(hs)
		sizes[name] = [2]int{w, h}
	}
	return sizes, string(errm[1])
}

func TestHTMLInChromium(t *testing.T) {
	bin := chromiumPath(t)
	t.Parallel()
	s := sampleAttack()
	opts := Options{Compare: sampleSimulate(), Extra: &Extra{LiveSeries: sampleSeries()}}
	dir := writeReport(t, s, opts)
	page := filepath.Join(dir, HTMLFile)
	figs := Figures(s, opts)

	t.Run("loads without console messages; screenshot", func(t *testing.T) {
		shot := filepath.Join(t.TempDir(), "screenshot.png")
		_, stderr := runChromium(t, bin, page, "--window-size=1280,2400", "--screenshot="+shot)
		if lines := consoleLines(stderr); len(lines) > 0 {
			t.Errorf("console messages while loading report.html:\n%s", strings.Join(lines, "\n"))
		}
		b, err := os.ReadFile(shot)
		if err != nil {
			t.Fatalf("no screenshot: %v", err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil || img.Bounds().Dx() == 0 || img.Bounds().Dy() == 0 {
			t.Fatalf("screenshot is not a non-empty PNG: %v", err)
		}
		// Keep a copy where people look (gitignored).
		if err := os.MkdirAll(filepath.Join("testdata", "out"), 0o755); err == nil {
			os.WriteFile(filepath.Join("testdata", "out", "report-screenshot.png"), b, 0o644)
		}
	})

	t.Run("every figure decodes", func(t *testing.T) {
		sizes, errs := probe(t, bin, page)
		if errs != "" {
			t.Errorf("errors on the page: %s", errs)
		}
		if len(sizes) != len(figs) {
			t.Errorf("page has %d images, want %d figures", len(sizes), len(figs))
		}
		for _, f := range figs {
			if wh := sizes[f.Name]; wh[0] <= 0 || wh[1] <= 0 {
				t.Errorf("figure %s decoded as %dx%d", f.Name, wh[0], wh[1])
			}
		}
	})

	// The control: a page with a broken image and a blocked remote load
	// must be caught, or the checks above prove nothing.
	t.Run("control: broken page is caught", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.html")
		html := `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'"><title>bad</title></head><body>` +
			`<img data-figure="broken" src="data:image/png;base64,AAAA"><img data-figure="remote" src="http://192.0.2.1/x.png"></body></html>`
		if err := os.WriteFile(bad, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr := runChromium(t, bin, bad)
		if len(consoleLines(stderr)) == 0 {
			t.Error("a blocked remote image produced no console message: the console check cannot fail")
		}
		sizes, errs := probe(t, bin, bad)
		t.Logf("control caught: sizes %v; errors %q", sizes, errs)
		if sizes["broken"][0] != 0 || errs == "" {
			t.Errorf("broken image not caught: sizes %v, errors %q", sizes, errs)
		}
	})
}
