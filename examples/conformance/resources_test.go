package conformance_test

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/examples/conformance"
)

// TestResourcesAreGuarded: a resource is read through the guard chain. A
// token with its scope lists it and reads it, the template's variable
// substituted; an id outside the template's is not found; a token without
// the scope lists none of them and is refused the read, as it would be
// refused the HTTP twin.
func TestResourcesAreGuarded(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, conformance.Product())
	ctx := context.Background()

	user := a.MCP(t, a.Token(t, "reader@example.com"))
	list, err := user.ListResources(ctx, nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	require.ElementsMatch(t, []string{"test://static-text", "test://static-binary"}, uris)
	templates, err := user.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Len(t, templates.ResourceTemplates, 1)
	require.Equal(t, "test://template/{id}/data", templates.ResourceTemplates[0].URITemplate)

	got, err := user.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/123/data"})
	require.NoError(t, err)
	require.Len(t, got.Contents, 1)
	require.Equal(t, "test://template/123/data", got.Contents[0].URI)
	require.Equal(t, "application/json", got.Contents[0].MIMEType)
	require.JSONEq(t, `{"id":"123","templateTest":true,"data":"Data for ID: 123"}`, got.Contents[0].Text)

	bin, err := user.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
	require.NoError(t, err)
	require.NotEmpty(t, bin.Contents[0].Blob)
	require.Empty(t, bin.Contents[0].Text)

	_, err = user.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://template/124/data"})
	var rpc *jsonrpc.Error
	require.True(t, errors.As(err, &rpc), "%v", err)
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
	require.Contains(t, string(rpc.Data), `"uri":"test://template/124/data"`)

	stranger := a.MCP(t, a.Token(t, "stranger@example.com", conformance.ScopePrompts))
	list, err = stranger.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, list.Resources)
	templates, err = stranger.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, templates.ResourceTemplates)
	_, err = stranger.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-text"})
	require.True(t, errors.As(err, &rpc), "%v", err)
	require.Equal(t, int64(jsonrpc.CodeInvalidParams), rpc.Code)
	require.Contains(t, string(rpc.Data), "insufficient-scope")
}
