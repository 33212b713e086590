package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The report is checked in Debian's Chromium (the chromium package; .ci/run
// installs it), driven through the DevTools protocol by chromedp, which
// starts the browser it is given and downloads nothing.

// chromiumPath is the browser the report tests open pages in.
const chromiumPath = "/usr/bin/chromium"

// needChromium returns the browser, skipping the test when it is missing,
// except under CI=true, where a missing browser fails.
func needChromium(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing under CI=true (apt-get install chromium): %v", chromiumPath, err)
		}
		t.Skipf("%s is missing (apt-get install chromium; under CI=true this fails): %v", chromiumPath, err)
	}
	return chromiumPath
}

// hookScript runs in the page before its own content (injected by the
// DevTools protocol, which the page's CSP does not govern): it records any
// dialog, window.open, print, error and CSP violation, so the test can
// tell whether anything in the page tried to run.
const hookScript = `(() => {
  window.__gavelHits = [];
  const hit = (what) => window.__gavelHits.push(String(what));
  for (const name of ['alert', 'confirm', 'prompt', 'print', 'open']) {
    window[name] = function () { hit(name + ':' + Array.from(arguments).join(',')); };
  }
  window.onerror = (msg) => { hit('onerror:' + msg); };
  window.addEventListener('error', (e) => hit('error:' + (e.message || e.target && e.target.tagName)), true);
  document.addEventListener('securitypolicyviolation', (e) => hit('csp:' + e.violatedDirective + ' ' + e.blockedURI));
})();`

// pageProbe reads what the test needs from the page, in the page.
const pageProbe = `(() => {
  const charts = Array.from(document.querySelectorAll('figure.chart')).map((f) => {
    const svg = f.querySelector('svg');
    if (!svg) return {kind: f.dataset.chart || '', width: 0, height: 0, shapes: 0, texts: 0};
    const r = svg.getBoundingClientRect();
    return {kind: f.dataset.chart || '', width: r.width, height: r.height,
      shapes: svg.querySelectorAll('path, rect, line, polygon, polyline, circle').length,
      texts: Array.from(svg.querySelectorAll('text')).filter((t) => t.textContent.trim() !== '').length};
  });
  const handlers = [];
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      const v = a.value.trim().toLowerCase();
      if (a.name.startsWith('on') || ((a.name === 'href' || a.name.endsWith(':href') || a.name === 'src') && !v.startsWith('#'))) {
        handlers.push(el.tagName + ' ' + a.name + '=' + a.value);
      }
    }
  }
  const figures = Array.from(document.querySelectorAll('span.fig')).map((f) => ({
    path: f.dataset.fig, unit: f.dataset.unit, text: f.textContent, undefined: f.classList.contains('undef')}));
  return {
    figures: figures,
    hooked: Array.isArray(window.__gavelHits),
    hits: window.__gavelHits || [],
    charts: charts,
    scripts: document.scripts.length,
    handlers: handlers,
    embeds: document.querySelectorAll('iframe, object, embed, img, image, form, input, textarea, link, base, meta[http-equiv=refresh], foreignObject').length,
    width: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
  };
})()`

type chartProbe struct {
	Kind   string  `json:"kind"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Shapes int     `json:"shapes"`
	Texts  int     `json:"texts"`
}

// figProbe is a figure as the browser's document holds it.
type figProbe struct {
	Path      string `json:"path"`
	Unit      string `json:"unit"`
	Text      string `json:"text"`
	Undefined bool   `json:"undefined"`
}

type probe struct {
	Figures  []figProbe   `json:"figures"`
	Hooked   bool         `json:"hooked"`
	Hits     []string     `json:"hits"`
	Charts   []chartProbe `json:"charts"`
	Scripts  int          `json:"scripts"`
	Handlers []string     `json:"handlers"`
	Embeds   int          `json:"embeds"`
	Width    int          `json:"width"`
	Viewport int          `json:"viewport"`
}

// browsed is what a page did in the browser.
type browsed struct {
	probe
	// Console holds console errors and warnings, uncaught exceptions and
	// the browser's log entries of level error or warning (CSP refusals
	// among them).
	Console []string
	// Requests lists every URL the page asked for besides itself.
	Requests []string
	// Shots are the screenshots taken, one per width.
	Shots []string
}

// browse opens file in a fresh headless Chromium at each width (CSS
// pixels; the height is the viewport's), saving a screenshot of each
// under dir. bypassCSP turns the page's Content-Security-Policy off, to
// test that the page's escaping alone keeps a hostile text inert.
func browse(t *testing.T, file, dir string, widths []int, bypassCSP bool) browsed {
	t.Helper()
	exe := needChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox, // tests run as root in CI containers
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// Chromium's own socket directory (/tmp/org.chromium.Chromium.*)
		// goes where the test cleans up.
		chromedp.Env("TMPDIR=" + t.TempDir()),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	// Closed, not killed: a killed Chromium leaves its directories behind.
	defer func() { _ = chromedp.Cancel(ctx) }()
	// Start the browser before any timeout (see chromedp.Run).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("cannot start %s: %v", exe, err)
	}
	var (
		mu  sync.Mutex
		out browsed
	)
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	self := "file://" + filepath.ToSlash(abs)
	err = chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				out.Console = append(out.Console, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(parts, " ")))
			}
		case *runtime.EventExceptionThrown:
			out.Console = append(out.Console, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				out.Console = append(out.Console, fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !sameDocument(u, self) {
				out.Requests = append(out.Requests, u)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	run, stop := context.WithTimeout(ctx, 2*time.Minute)
	defer stop()
	setup := chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		if _, err := cdp.Call(ctx, tg, runtime.Enable, cdp.Empty{}); err != nil {
			return chromedp.Void{}, err
		}
		if _, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{}); err != nil {
			return chromedp.Void{}, err
		}
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return chromedp.Void{}, err
		}
		if _, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: hookScript}); err != nil {
			return chromedp.Void{}, err
		}
		_, err := cdp.Call(ctx, tg, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: bypassCSP})
		return chromedp.Void{}, err
	})
	if err := chromedp.Do(run, setup); err != nil {
		t.Fatalf("setting up the browser: %v", err)
	}
	for _, w := range widths {
		h := 900
		mobile := w < 600
		if mobile {
			h = 844
		}
		metrics := chromedp.Action[chromedp.Void](func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(w), Height: int64(h), DeviceScaleFactor: 1, Mobile: mobile,
			})
			return chromedp.Void{}, err
		})
		if err := chromedp.Do(run, metrics, chromedp.Navigate(self)); err != nil {
			t.Fatalf("opening %s at width %d: %v", file, w, err)
		}
		p, err := chromedp.Run(run, chromedp.Evaluate[probe](pageProbe))
		if err != nil {
			t.Fatalf("reading the page at width %d: %v", w, err)
		}
		shot, err := chromedp.Run(run, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot at width %d: %v", w, err)
		}
		name := filepath.Join(dir, fmt.Sprintf("%s-%dpx.png", strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), w))
		if err := os.WriteFile(name, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		hits := append(out.Hits, p.Hits...)
		out.probe = p
		out.Hits = hits
		out.Shots = append(out.Shots, name)
		mu.Unlock()
		if p.Width > p.Viewport+1 {
			t.Errorf("%s at %dpx: the page is %dpx wide: it scrolls sideways", filepath.Base(file), w, p.Width)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return out
}

// sameDocument reports whether a request is for the page itself (its
// fragment links included).
func sameDocument(u, self string) bool {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	return u == self || strings.TrimPrefix(u, "file://") == strings.TrimPrefix(self, "file://")
}

// checkBrowsed fails the test for anything a report must never do in the
// browser.
func checkBrowsed(t *testing.T, name string, b browsed) {
	t.Helper()
	if !b.Hooked {
		t.Fatalf("%s: the test's hook did not run in the page: nothing would be seen", name)
	}
	if len(b.Console) > 0 {
		t.Errorf("%s: console errors:\n%s", name, strings.Join(b.Console, "\n"))
	}
	if len(b.Requests) > 0 {
		t.Errorf("%s: the page made requests: %s", name, strings.Join(b.Requests, ", "))
	}
	if len(b.Hits) > 0 {
		t.Errorf("%s: something ran or was refused in the page: %s", name, strings.Join(b.Hits, "; "))
	}
	if b.Scripts > 0 || len(b.Handlers) > 0 || b.Embeds > 0 {
		t.Errorf("%s: %d scripts, handlers or outside links %q, %d embedded or form elements", name, b.Scripts, b.Handlers, b.Embeds)
	}
	for _, c := range b.Charts {
		if c.Width < 50 || c.Height < 50 || c.Shapes < 5 || c.Texts < 2 {
			t.Errorf("%s: the %s chart is empty or invisible: %+v", name, c.Kind, c)
		}
	}
}
