package planner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/osmfixture"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/planner/plannertest"
)

// TestToolsList: exactly the thirteen tools of ADR-080 (their names in
// testdata/tools.names.golden), each with a title, all four hints stated
// and every argument described, the whole answer within 12,000 bytes (a
// model pays for it in every conversation); the whole answer is kept in
// testdata/tools.golden.json so a change to the agent surface is reviewed.
func TestToolsList(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	mc := a.MCP(t, a.Token(t, "lister@example.com", a.Server.Registry.Scopes()...))
	res, err := mc.ListTools(context.Background(), nil)
	require.NoError(t, err)

	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		raw, err := json.Marshal(tool.Annotations)
		require.NoError(t, err)
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			require.Contains(t, string(raw), `"`+hint+`"`, "%s states %s", tool.Name, hint)
		}
		var schema struct {
			Properties           map[string]map[string]any `json:"properties"`
			AdditionalProperties *bool                     `json:"additionalProperties"`
		}
		raw, err = json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &schema))
		require.NotNil(t, schema.AdditionalProperties, tool.Name)
		require.False(t, *schema.AdditionalProperties, "%s publishes exactly its arguments", tool.Name)
		require.NotEmpty(t, tool.Title, "%s has a title", tool.Name)
		for arg, p := range schema.Properties {
			require.NotEmpty(t, p["description"], "%s.%s has a description", tool.Name, arg)
		}
	}
	sort.Strings(names)
	golden(t, "tools.names.golden", []byte(strings.Join(names, "\n")+"\n"))

	raw, err := json.MarshalIndent(res.Tools, "", "  ")
	require.NoError(t, err)
	golden(t, "tools.golden.json", append(raw, '\n'))
	// The digest's budget: the result without the _meta in which 2026-07-28
	// has every answer name the server, the same on every result.
	res.Meta = nil
	wire, err := json.Marshal(res)
	require.NoError(t, err)
	t.Logf("tools/list is %d bytes", len(wire))
	require.LessOrEqual(t, len(wire), 12_000, "tools/list is %d bytes", len(wire))
}

// TestToolsListedByScope: a token lists only the tools it may call; a
// read-only token lists the reads alone.
func TestToolsListedByScope(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	all := map[string]bool{}
	for _, ops := range a.Server.Registry.Tools() {
		all[ops[0].Tool.Name] = ops[0].Hints.ReadOnly
	}
	mc := a.MCP(t, a.Token(t, "reader@example.com", scopes.TripsRead))
	res, err := mc.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.Tools)
	for _, tool := range res.Tools {
		require.True(t, tool.Annotations.ReadOnlyHint, "%s is listed to a read-only token", tool.Name)
	}
	reads := 0
	for _, ro := range all {
		if ro {
			reads++
		}
	}
	require.Len(t, res.Tools, reads, "every read is listed")
	require.Less(t, len(res.Tools), len(all))
}

// TestDigestOfThirtyDaysFitsTheBudget: get_trip of a 30-day trip, every
// day with its date and where it ends, stays whole within 8,000 bytes on
// the wire (text content beside the structured): a digest over budget is a
// fault in the digest, never a reason to cut days off.
func TestDigestOfThirtyDaysFitsTheBudget(t *testing.T) {
	t.Parallel()
	first := time.Now().UTC().AddDate(0, 0, 10).Truncate(24 * time.Hour)
	weatherURL := forecastServer(t, first)
	route := routefixture.Route(7, 24_000, 100) // 2,400 km with hills
	a := plannertest.New(t, func(_ testing.TB, c *config.Config) {
		*c = c.With("weather_url", weatherURL).With("events_url", eventsServer(t, route[len(route)/3], first.AddDate(0, 0, 10)))
	})
	e := newEnv(t, a)
	// Map data along the whole trip, every computation finding something.
	var x bytes.Buffer
	w, err := osmfixture.NewPBF(&x)
	require.NoError(t, err)
	require.NoError(t, osmfixture.Generate(w, route, osmfixture.Spec{Points: 12_000, Segments: 40_000, Width: 3000, Seed: 1}))
	importExtract(t, a, x.Bytes())
	op, _ := a.Server.Registry.Lookup("trips.upload")
	var g bytes.Buffer
	require.NoError(t, export.WriteGPX(&g, export.Track{Name: "Thirty days", Points: route}))
	out := a.ViaHTTP(t, apptest.Request{Op: op, Token: e.token, Key: key(),
		Args: map[string]any{"startDate": first.Format("2006-01-02"), "endDate": first.AddDate(0, 0, 29).Format("2006-01-02"),
			"maxDistancePerDay": 100, "fatigueFactor": 1.0}, // thirty days of 80 km
		Files: map[string]apptest.File{"gpxFile": {Name: "long.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(t, 202, out.Status, string(out.Raw))
	id := out.Body["id"].(string)
	settled := a.WaitSettled(t, e.token, id)
	for name, st := range settled["computationStatus"].(map[string]any) {
		require.Equal(t, "done", st, name)
	}
	shared := a.Do(t, "POST", "/trips/"+id+"/share", e.token, nil) // shared, the digest says where too
	require.Equal(t, 201, shared.Status, string(shared.Body))
	got := apptest.Call(t, e.mcp, "get_trip", map[string]any{"id": id})
	require.False(t, got.IsError, got.Text)
	require.Equal(t, shared.JSON(t)["url"], got.Structured["shareUrl"])
	require.Len(t, got.Structured["days"].([]any), 30, "no day is cut off")
	for i, x := range got.Structured["days"].([]any) {
		require.Contains(t, x, "date", "day %d", i+1)
		require.Contains(t, x, "end", "day %d", i+1)
	}
	raw, err := json.Marshal(got.Structured)
	require.NoError(t, err)
	res, err := e.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_trip", Arguments: map[string]any{"id": id}})
	require.NoError(t, err)
	// The digest's budget: the result without the _meta in which 2026-07-28
	// has every answer name the server, the same on every result.
	res.Meta = nil
	wire, err := json.Marshal(res)
	require.NoError(t, err)
	t.Logf("get_trip of 30 days: %d bytes on the wire, %d of them structured", len(wire), len(raw))
	_ = os.WriteFile("/tmp/digest.json", wire, 0o644)
	require.LessOrEqual(t, len(wire), 8_000, fmt.Sprintf("the result is %d bytes on the wire", len(wire)))
	require.Contains(t, got.Text, "id: "+id, "the text renders the fields")
	stageBudget(t, e, id, got.Structured["days"].([]any))
	require.Contains(t, got.Text, "days: 30 rows", "the text says where the days are")
	require.NotContains(t, got.Text, `{"`, "the text does not repeat the JSON")
}

// stageBudget: get_stage of each day stays within 3,000 bytes on the wire,
// every computation done: the long lists give their nearest few and a
// count, the rest on request (list).
func stageBudget(t *testing.T, e env, id string, days []any) {
	t.Helper()
	largest, alerts := 0, 0
	for _, d := range days {
		sid := d.(map[string]any)["id"].(string)
		res, err := e.mcp.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_stage", Arguments: map[string]any{"id": id, "stageId": sid}})
		require.NoError(t, err)
		require.False(t, res.IsError)
		res.Meta = nil // as for the digest: the _meta naming the server is on every result
		wire, err := json.Marshal(res)
		require.NoError(t, err)
		if len(wire) > largest {
			_ = os.WriteFile("/tmp/stage.json", wire, 0o644)
		}
		largest = max(largest, len(wire))
		st := res.StructuredContent.(map[string]any)
		if list, ok := st["alertDetails"].([]any); ok {
			alerts += len(list)
		}
	}
	require.LessOrEqual(t, largest, 3_000, "get_stage is %d bytes on the wire", largest)
	t.Logf("get_stage: at most %d bytes on the wire; %d alerts over the days", largest, alerts)
	require.Positive(t, alerts, "the days have alerts to tell")
}
