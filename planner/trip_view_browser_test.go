package planner_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/osmfixture"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/tools"
)

// TestATripViewInAnAppHost: a host page on another origin runs the
// extension's own host bridge (@modelcontextprotocol/ext-apps AppBridge)
// with the TypeScript SDK client in headless Chromium. It connects to /mcp
// declaring the extension, calls get_trip for a 30-day trip, reads the view
// the tool links to and shows it in a sandboxed frame: the frame draws one
// line and one row per day, in light and in dark, wide and narrow, and
// asks nothing of any origin. A rest day asked in the view goes through
// edit_stages with the version the view shows: stale, it is refused and
// nothing changes; read afresh, the trip gets its rest day.
func TestATripViewInAnAppHost(t *testing.T) {
	t.Parallel()
	// The view's frame runs in the page's process, where the test reaches it.
	ctx := chromium(t, chromedp.Flag("disable-features", "IsolateSandboxedIframes,site-per-process"))
	npm := apptest.Node(t)
	if _, err := os.Stat(filepath.Join(npm.Dir, "node_modules", "@modelcontextprotocol", "ext-apps")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("@modelcontextprotocol/ext-apps is not installed (testdata/npm): run `make npm`")
		}
		t.Skip("SKIPPED LOUDLY: @modelcontextprotocol/ext-apps is not installed (testdata/npm); `make npm` installs it")
	}
	bundle := npm.Bundle(t, "browser/apphost.mjs")
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/host.js" {
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write(bundle)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<!doctype html><title>An app host</title><body style="margin:0"><script type="module" src="/host.js"></script>`))
	}))
	t.Cleanup(page.Close)
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) { c.AllowedOrigins = page.URL })
	e := newEnv(t, a)

	first := time.Now().UTC().AddDate(0, 0, 10).Truncate(24 * time.Hour)
	route := routefixture.Route(7, 24_000, 100)
	// Map data along the route: places to sleep, alerts to tell.
	var x bytes.Buffer
	pbf, err := osmfixture.NewPBF(&x)
	require.NoError(t, err)
	require.NoError(t, osmfixture.Generate(pbf, route, osmfixture.Spec{Points: 3_000, Segments: 8_000, Width: 3000, Seed: 1}))
	importExtract(t, a, x.Bytes())
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Thirty days", Points: route}))
	op, _ := a.Server.Registry.Lookup("trips.upload")
	up := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(),
		Args: map[string]any{"startDate": first.Format("2006-01-02"), "endDate": first.AddDate(0, 0, 29).Format("2006-01-02"),
			"maxDistancePerDay": 100, "fatigueFactor": 1.0},
		Files: map[string]apptest.File{"gpxFile": {Name: "long.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, http.StatusAccepted, up.Status, string(up.Raw))
	id := up.Body["id"].(string)
	a.WaitSettled(t, e.token, id)
	before := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
	require.Len(t, before.Structured["days"].([]any), 30)

	// Every request the view's frame sends, by frame.
	var mu sync.Mutex
	requests := map[cdp.FrameID][]string{}
	require.NoError(t, chromedp.Do(ctx)) // the tab, so that no request of the pages is missed
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests[r.FrameID] = append(requests[r.FrameID], r.Request.URL)
			mu.Unlock()
		}
	}))

	var viewFrames []cdp.FrameID
	loads := 0
	// show opens the host page, which calls the tool (get_trip, unless
	// call names another) and shows its view; it answers the view's frame.
	show := func(theme, width string, call url.Values) *chromedp.Node {
		t.Helper()
		frag := url.Values{"url": {a.URL + "/mcp"}, "token": {e.token}, "trip": {id}, "theme": {theme}, "width": {width}}
		for k, v := range call {
			frag[k] = v
		}
		loads++
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(fmt.Sprintf("%s/?load=%d#%s", page.URL, loads, frag.Encode())),
			chromedp.WaitVisible(chromedp.CSS("#host, #error"))))
		failure, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#error')?.textContent ?? ''`))
		require.NoError(t, err)
		require.Empty(t, failure, "the host page failed")
		frames, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSS("iframe#view")))
		require.NoError(t, err)
		require.Len(t, frames, 1)
		tree, err := chromedp.Call(ctx, cdppage.GetFrameTree, cdp.Empty{})
		require.NoError(t, err)
		require.Len(t, tree.FrameTree.ChildFrames, 1)
		require.Equal(t, cdp.FrameID(frames[0].FrameID), tree.FrameTree.ChildFrames[0].Frame.ID, "the requests counted are the view's frame's")
		viewFrames = append(viewFrames, tree.FrameTree.ChildFrames[0].Frame.ID)
		mu.Lock()
		require.NotEmpty(t, requests[tree.FrameTree.Frame.ID], "the host page's own requests are seen")
		mu.Unlock()
		return frames[0]
	}
	open := func(theme, width string) *chromedp.Node {
		t.Helper()
		frames := []*chromedp.Node{show(theme, width, nil)}
		rows, err := chromedp.Run(ctx, chromedp.Poll[int](`document.querySelectorAll('#days > li.day').length === 30 && 30`,
			chromedp.WithPollingInFrame(frames[0]), chromedp.WithPollingTimeout(15*time.Second)))
		require.NoError(t, err, "the view draws the days")
		require.Equal(t, 30, rows, "one row per day")
		lines, err := chromedp.Run(ctx, chromedp.Poll[int](`document.querySelectorAll('#map polyline').length`, chromedp.WithPollingInFrame(frames[0])))
		require.NoError(t, err)
		require.Equal(t, 1, lines, "one drawn line")
		return frames[0]
	}
	report := func() string {
		t.Helper()
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#host")))
		require.NoError(t, err)
		return text
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), name), png, 0o644))
	}

	frame := open("light", "640px")
	rep := report()
	require.Contains(t, rep, `"resourceUri":"ui://trips/trip"`)
	require.Contains(t, rep, `"mimeType":"`+tools.ViewMIMEType+`"`)
	require.Contains(t, rep, `"protocolVersion":"`+tools.Revision20260728+`"`)
	t.Logf("the host's report: %s", rep)
	shot("trip-view-light.png")
	sleep, err := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('#days .sleep')?.textContent`, chromedp.WithPollingInFrame(frame)))
	require.NoError(t, err)
	require.Contains(t, sleep, "Sleeping at", "the words are the trip's (English)")

	// Stale: the trip changes behind the view, whose version is then refused.
	stages := before.Structured["days"].([]any)
	upd, _ := a.Server.Registry.Lookup("stages.update")
	version := int64(before.Structured["version"].(float64))
	changed := a.ViaHTTP(t, apptest.Request{Op: upd, Token: e.token, Vars: map[string]string{"id": id, "stageId": stages[3].(map[string]any)["id"].(string)},
		Args: map[string]any{"label": "Into the hills"}, Version: &version})
	require.Less(t, changed.Status, 300, string(changed.Raw))
	a.WaitSettled(t, e.token, id)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(document.querySelector('#days li.day button.rest').click(), true)`, chromedp.WithPollingInFrame(frame)))
	require.NoError(t, err)
	said, err := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('#said').textContent`, chromedp.WithPollingInFrame(frame)))
	require.NoError(t, err)
	require.Contains(t, report(), `"name":"edit_stages"`, "the view asked the host")
	require.Contains(t, report(), `"isError":true`, "the stale version is refused")
	t.Logf("the view says: %s", said)
	after := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
	require.Len(t, after.Structured["days"].([]any), 30, "a stale choice changes nothing")

	// Afresh, in dark and narrow: the rest day is made.
	frame = open("dark", "360px")
	shot("trip-view-dark-narrow.png")
	current := int64(after.Structured["version"].(float64))
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(document.querySelector('#days li.day button.rest').click(), true)`, chromedp.WithPollingInFrame(frame)))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('#days > li.day').length === 31`,
		chromedp.WithPollingInFrame(frame), chromedp.WithPollingTimeout(15*time.Second)))
	if err != nil {
		said, _ := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('#said').textContent + ' | ' + document.querySelectorAll('#days > li.day').length`, chromedp.WithPollingInFrame(frame)))
		t.Fatalf("the view did not draw the rest day: %v; it says %q; the host: %s", err, said, report())
	}
	rep = report()
	require.Contains(t, rep, `"arguments":{"action":"rest_day","id":"`+id+`"`)
	require.NotContains(t, rep, `"isError":true`, rep)
	rested := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
	days := rested.Structured["days"].([]any)
	require.Len(t, days, 31, "the trip has its rest day")
	require.Equal(t, true, days[1].(map[string]any)["isRestDay"], "after the first day")
	require.Greater(t, int64(rested.Structured["version"].(float64)), current)

	// In French, once the trip speaks it.
	settings, _ := a.Server.Registry.Lookup("trips.update_settings")
	v := int64(rested.Structured["version"].(float64))
	fr := a.ViaHTTP(t, apptest.Request{Op: settings, Token: e.token, Vars: map[string]string{"id": id}, Args: map[string]any{"locale": "fr"}, Version: &v})
	require.Less(t, fr.Status, 300, string(fr.Raw))
	a.WaitSettled(t, e.token, id)
	frame = show("light", "640px", nil)
	sleep, err = chromedp.Run(ctx, chromedp.Poll[string](`document.querySelectorAll('#days > li.day').length === 31 && document.querySelector('#days .sleep').textContent`,
		chromedp.WithPollingInFrame(frame), chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err)
	require.Contains(t, sleep, "Nuit à", "the words follow the trip's language")

	// get_stage: the day in full, and a night's place chosen in it.
	day := rested.Structured["days"].([]any)[0].(map[string]any)["id"].(string)
	stage := apptest.Call(t, e.mcp, "get_stage", map[string]any{"id": id, "stageId": day})
	places, _ := stage.Structured["accommodations"].([]any)
	require.NotEmpty(t, places, "the first day has places to sleep: %s", stage.Text)
	args, err := json.Marshal(map[string]any{"id": id, "stageId": day})
	require.NoError(t, err)
	frame = show("dark", "360px", url.Values{"tool": {"get_stage"}, "args": {string(args)}})
	n, err := chromedp.Run(ctx, chromedp.Poll[int](`document.querySelectorAll('#stage li.place').length`,
		chromedp.WithPollingInFrame(frame), chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err)
	require.Equal(t, len(places), n, "each place to sleep the day lists")
	heading, err := chromedp.Run(ctx, chromedp.Poll[string](`document.querySelector('#title').textContent`, chromedp.WithPollingInFrame(frame)))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(heading, "Jour 1"), "the day speaks the trip's language: %q", heading)
	shot("stage-view-dark-narrow.png")
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`(document.querySelector('#stage button.choose').click(), true)`, chromedp.WithPollingInFrame(frame)))
	require.NoError(t, err)
	want := places[0].(map[string]any)["id"].(string)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('#host').textContent.includes('"name":"choose_accommodation"')`, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err)
	require.Contains(t, report(), `"accommodationId":"`+want+`","version":`)
	require.NotContains(t, report(), `"isError":true`)
	chosen := apptest.Call(t, e.mcp, "get_stage", map[string]any{"id": id, "stageId": day})
	require.Equal(t, want, chosen.Structured["selectedAccommodation"].(map[string]any)["id"], "the night's place is chosen")

	// share_trip answers the address, not the days: the view reads the
	// trip it shared through the host and draws it under the address.
	args, err = json.Marshal(map[string]any{"id": id})
	require.NoError(t, err)
	frame = show("light", "640px", url.Values{"tool": {"share_trip"}, "args": {string(args)}})
	said, err = chromedp.Run(ctx, chromedp.Poll[string](`document.querySelectorAll('#days > li.day').length === 31 && document.querySelector('#said').textContent`,
		chromedp.WithPollingInFrame(frame), chromedp.WithPollingTimeout(15*time.Second)))
	require.NoError(t, err)
	require.Contains(t, said, a.URL+"/s/", "the address shared")
	require.Contains(t, report(), `"name":"get_trip"`, "read through the host")

	mu.Lock()
	defer mu.Unlock()
	sent := 0
	for _, f := range viewFrames {
		for _, u := range requests[f] {
			if !strings.HasPrefix(u, "about:") && !strings.HasPrefix(u, "data:") {
				t.Errorf("the view's frame asked %s", u)
				sent++
			}
		}
	}
	t.Logf("the view's frames (%d loads) sent %d requests", len(viewFrames), sent)
	for f, us := range requests {
		for _, u := range us {
			require.True(t, strings.HasPrefix(u, page.URL) || strings.HasPrefix(u, a.URL) || strings.HasPrefix(u, "about:") || strings.HasPrefix(u, "data:"),
				"frame %s asked %s", f, u)
		}
	}
}
