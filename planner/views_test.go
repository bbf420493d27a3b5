package planner_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/tools"
)

// TestToolsListWithoutTheViewsIsToday: a host declaring the MCP Apps
// extension sees get_trip, create_trip, share_trip, edit_stages and
// get_stage linked to the trip's view; without the link, its tools/list is
// byte for byte the one in testdata/tools.golden.json, which a client
// without the extension gets (TestToolsList): nothing else is added, and
// the tools/list budget holds with the links.
func TestToolsListWithoutTheViewsIsToday(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	host := a.MCP(t, a.Token(t, "host@example.com", a.Server.Registry.Scopes()...), apptest.WithViews)
	res, err := host.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var linked []string
	for _, tl := range res.Tools {
		ui, ok := tl.Meta["ui"].(map[string]any)
		if !ok {
			continue
		}
		require.Equal(t, trips.TripViewURI, ui["resourceUri"], tl.Name)
		linked = append(linked, tl.Name)
		delete(tl.Meta, "ui")
		if len(tl.Meta) == 0 {
			tl.Meta = nil
		}
	}
	sort.Strings(linked)
	require.Equal(t, []string{"create_trip", "edit_stages", "get_stage", "get_trip", "share_trip"}, linked)
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	require.NoError(t, err)
	want, err := os.ReadFile(filepath.Join("testdata", "tools.golden.json"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(append(got, '\n')), "apart from the links, the same bytes")

	res, err = host.ListTools(context.Background(), nil)
	require.NoError(t, err)
	res.Meta = nil
	wire, err := json.Marshal(res)
	require.NoError(t, err)
	t.Logf("tools/list with the links is %d bytes", len(wire))
	require.LessOrEqual(t, len(wire), 12_000, "tools/list is %d bytes with the links", len(wire))
}

// TestTripViewResource: the trip's view is one resource of at most
// 100 KB, listed with a policy naming no origin and served whole by
// resources/read; its own Content-Security-Policy names no origin either,
// and it carries the words of both languages.
func TestTripViewResource(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	host := a.MCP(t, a.Token(t, "host@example.com", a.Server.Registry.Scopes()...), apptest.WithViews)
	list, err := host.ListResources(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list.Resources, 1)
	r := list.Resources[0]
	require.Equal(t, trips.TripViewURI, r.URI)
	require.Equal(t, tools.ViewMIMEType, r.MIMEType)
	meta, err := json.Marshal(r.Meta)
	require.NoError(t, err)
	require.JSONEq(t, `{"ui":{"csp":{"connectDomains":[],"resourceDomains":[]},"permissions":{},"prefersBorder":true}}`, string(meta))
	read, err := host.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: trips.TripViewURI})
	require.NoError(t, err)
	doc := read.Contents[0].Text
	require.Equal(t, string(trips.TripView.HTML), doc)
	t.Logf("the trip's view is %d bytes", len(doc))
	require.LessOrEqual(t, len(doc), 100_000, "the view is %d bytes", len(doc))
	csp := regexp.MustCompile(`http-equiv="Content-Security-Policy" content="([^"]*)"`).FindStringSubmatch(doc)
	require.NotNil(t, csp, "the document carries its policy")
	require.Regexp(t, `^default-src 'none';`, csp[1])
	require.NotRegexp(t, `https?:|\*`, csp[1], "the policy names no origin")
	require.NotRegexp(t, `<script[^>]+src=|<link[^>]+href=`, doc, "no script or style is loaded from elsewhere")
	require.Contains(t, doc, "Nuit à", "the French words are there for a French trip")
}
