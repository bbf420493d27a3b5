package planner_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/planner/plannertest"
)

// TestAPersonOpensAShareLink opens a share link in a real browser, under
// the page's own policy: the days are listed, the route and its profile
// are drawn at a visible size, the style sheet applies (its hash is the
// one the policy allows), and a screenshot is kept. A link that leads
// nowhere reads as a page for the visitor.
func TestAPersonOpensAShareLink(t *testing.T) {
	t.Parallel()
	ctx := chromium(t)
	a := plannertest.New(t)
	f := newSharedFixture(t, a)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(a.URL+"/s/"+f.code),
		chromedp.WaitVisible(chromedp.CSS("#days"))))

	rows, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("tr.day-row")))
	require.NoError(t, err)
	require.Len(t, rows, f.dayCount, "one row per day")
	first, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`tr.day-row[data-day="1"]`)))
	require.NoError(t, err)
	require.Regexp(t, `\d+\.\d km`, first, "the day's distance")
	require.Regexp(t, `\d+ m\b`, first, "the day's climb and descent")
	dates, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#dates")))
	require.NoError(t, err)
	require.Contains(t, dates, strconv.Itoa(mustYear(t, day(20))), "the trip's dates")

	for _, drawing := range []string{"#map", "#profile"} {
		box, err := chromedp.Run(ctx, chromedp.Dimensions(chromedp.CSS(drawing)))
		require.NoError(t, err, drawing)
		require.Greater(t, box.Width, int64(200), "%s is drawn at a visible size", drawing)
		require.Greater(t, box.Height, int64(50), "%s is drawn at a visible size", drawing)
	}
	lines, err := chromedp.Run(ctx, chromedp.Nodes(chromedp.CSSAll("#map polyline.day")))
	require.NoError(t, err)
	require.Len(t, lines, f.dayCount, "one line per day")
	length, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector('#map polyline.day').getTotalLength()`))
	require.NoError(t, err)
	require.Greater(t, length, 10.0, "the first day is a line, not a dot")
	color, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('#download-gpx')).backgroundColor`))
	require.NoError(t, err)
	require.Equal(t, "rgb(45, 106, 79)", color, "the style sheet applies under the policy")
	href, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS("#download-fit"), "href"))
	require.NoError(t, err)
	require.Equal(t, a.URL+"/s/"+f.code+".fit", href.Value)

	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // lossless: PNG
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(shot, []byte("\x89PNG")) || bytes.HasPrefix(shot, []byte("\xff\xd8")), "an image")
	require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "share-page.png"), shot, 0o644))

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(a.URL+"/s/Zz9_unknwn"),
		chromedp.WaitVisible(chromedp.CSS("h1"))))
	heading, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1")))
	require.NoError(t, err)
	require.Contains(t, heading, "not shared")
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	require.NoError(t, err)
	require.Contains(t, body, "Ask them for a new link")
}

// mustYear is the year of a YYYY-MM-DD day.
func mustYear(t *testing.T, d string) int {
	t.Helper()
	y, err := strconv.Atoi(strings.SplitN(d, "-", 2)[0])
	require.NoError(t, err)
	return y
}
