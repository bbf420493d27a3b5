package notes_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/examples/notes"
	"cairn.dev/cairn/tools"
)

// TestTheNoteViewShowsOnlyToHostsOfTheExtension: a client declaring the
// MCP Apps extension is told the server speaks it, sees the note tools
// linked to ui://notes/note, lists that resource with its policy (no
// origin) and reads its document; a client stating capabilities without
// it gets no link, no resource and no extension; a 2025-11-25 request,
// which carries no capabilities after initialize, gets the links.
func TestTheNoteViewShowsOnlyToHostsOfTheExtension(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, notes.Product())
	tok := a.Token(t, "ada@example.com")
	ctx := context.Background()

	host := a.MCP(t, tok, apptest.WithViews)
	init := host.InitializeResult()
	require.NotNil(t, init)
	require.Contains(t, init.Capabilities.Extensions, tools.UIExtension, "the extension is answered to a client declaring it")
	listed, err := host.ListTools(ctx, nil)
	require.NoError(t, err)
	linked := map[string]string{}
	for _, tl := range listed.Tools {
		if ui, ok := tl.Meta["ui"].(map[string]any); ok {
			linked[tl.Name], _ = ui["resourceUri"].(string)
		}
	}
	require.Equal(t, map[string]string{"get_note": notes.NoteView.URI, "create_note": notes.NoteView.URI,
		"update_note": notes.NoteView.URI}, linked, "the tools declaring the view, and only they, link it")
	res, err := host.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Len(t, res.Resources, 1)
	r := res.Resources[0]
	require.Equal(t, notes.NoteView.URI, r.URI)
	require.Equal(t, tools.ViewMIMEType, r.MIMEType)
	raw, err := json.Marshal(r.Meta)
	require.NoError(t, err)
	require.JSONEq(t, `{"ui":{"csp":{"connectDomains":[],"resourceDomains":[]},"permissions":{},"prefersBorder":false}}`, string(raw))
	read, err := host.ReadResource(ctx, &mcp.ReadResourceParams{URI: notes.NoteView.URI})
	require.NoError(t, err)
	require.Len(t, read.Contents, 1)
	doc := read.Contents[0]
	require.Equal(t, tools.ViewMIMEType, doc.MIMEType)
	require.Equal(t, string(notes.NoteView.HTML), doc.Text)
	require.Contains(t, doc.Text, `http-equiv="Content-Security-Policy" content="default-src 'none';`)
	require.NotContains(t, doc.Text, "http://", "the document names no origin")
	require.NotContains(t, doc.Text, "https://", "the document names no origin")
	_, err = host.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://notes/other"})
	require.Error(t, err, "an unknown view is not found")

	plain := a.MCP(t, tok, func(o *mcp.ClientOptions) { o.Capabilities = &mcp.ClientCapabilities{} })
	require.NotContains(t, plain.InitializeResult().Capabilities.Extensions, tools.UIExtension)
	bare, err := plain.ListTools(ctx, nil)
	require.NoError(t, err)
	for _, tl := range bare.Tools {
		require.Nil(t, tl.Meta, "%s is listed to a client without the extension as before any view", tl.Name)
	}
	none, err := plain.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, none.Resources)

	// 2025-11-25 on the stateless endpoint: tools/list after initialize
	// carries no capabilities, so the links are there for a host to use.
	old := a.Do(t, http.MethodPost, "/mcp", tok,
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
		"Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", tools.Revision20251125)
	require.Equal(t, http.StatusOK, old.Status, string(old.Body))
	require.Equal(t, 3, strings.Count(string(old.Body), `"resourceUri":"`+notes.NoteView.URI+`"`), string(old.Body))

	// 2025-11-25's initialize carries the capabilities: the extension is
	// answered to the client declaring it, and to it alone.
	for _, c := range []struct {
		caps map[string]any
		want bool
	}{
		{map[string]any{"extensions": map[string]any{tools.UIExtension: map[string]any{"mimeTypes": []string{tools.ViewMIMEType}}}}, true},
		{map[string]any{"extensions": map[string]any{tools.UIExtension: map[string]any{}}}, true},
		{map[string]any{"extensions": map[string]any{tools.UIExtension: map[string]any{"mimeTypes": []string{"text/html"}}}}, false},
		{map[string]any{}, false},
	} {
		res := a.Do(t, http.MethodPost, "/mcp", tok, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
			"params": map[string]any{"protocolVersion": tools.Revision20251125, "capabilities": c.caps,
				"clientInfo": map[string]any{"name": "host", "version": "1"}}},
			"Accept", "application/json, text/event-stream")
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		require.Equal(t, c.want, strings.Contains(string(res.Body), `"`+tools.UIExtension+`"`), "%v: %s", c.caps, res.Body)
	}
}
