package planner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/tools"
)

// TestEveryToolOutputFieldIsClassified is the coverage rule of third-party
// text: every text-carrying field of every tool's output is classified
// (text:"third-party" or text:"own", or an own name such as an id or a
// status). A field nobody classified fails here, naming it; until it is,
// the MCP face marks every result that can carry it.
func TestEveryToolOutputFieldIsClassified(t *testing.T) {
	t.Parallel()
	cfg, err := config.Load("", nil, planner.Keys()...)
	require.NoError(t, err)
	reg, err := app.Registry(planner.Product(), cfg)
	require.NoError(t, err)
	thirdParty := map[string]bool{}
	var unclassified []string
	for _, op := range reg.Operations() {
		if !op.Tool.IsTool() {
			continue
		}
		for _, f := range tools.TextFields(op.OutputType) {
			switch f.Class {
			case tools.ThirdPartyText:
				thirdParty[op.Tool.Name] = true
			case tools.OwnText:
			default:
				unclassified = append(unclassified, fmt.Sprintf("%s (%s): %s", op.Tool.Name, op.OutputType, f.Path))
			}
		}
	}
	require.Empty(t, unclassified, "these fields may carry third-party text: tag each text:%q, or text:%q when this server writes it",
		tools.ThirdPartyText, tools.OwnText)
	for _, name := range []string{"list_trips", "get_trip", "get_stage", "edit_stages", "choose_accommodation", "add_waypoint", "search_places"} {
		require.True(t, thirdParty[name], "%s answers third-party text (titles, place names)", name)
	}
}

// TestListTripsMarksItsTitles: a trip's title comes from its route's
// provider, so list_trips marks its answer as data, as get_trip does; a
// result of the server's own words only is not marked.
func TestListTripsMarksItsTitles(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, nil)
	a.WaitSettled(t, e.token, id)
	for _, tt := range []struct {
		tool   string
		args   map[string]any
		marked bool
	}{
		{"list_trips", map[string]any{}, true},
		{"get_trip", map[string]any{"id": id}, true},
		{"analyze_trip", map[string]any{"id": id}, false},
	} {
		res, err := e.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		require.NoError(t, err)
		require.False(t, res.IsError, tt.tool)
		text := res.Content[0].(*mcp.TextContent).Text
		require.Equal(t, tt.marked, strings.HasPrefix(text, tools.DataNotice), "%s: %s", tt.tool, text)
	}
}
