package conformance_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/examples/conformance"
)

// TestPromptsAreOfferedByScope: a token with the prompts' scope lists and
// gets them, its arguments checked by name; a token without it lists none
// and gets each as unknown, learning nothing of what it cannot use.
func TestPromptsAreOfferedByScope(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, conformance.Product())
	ctx := context.Background()

	user := a.MCP(t, a.Token(t, "prompts@example.com"))
	list, err := user.ListPrompts(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	require.ElementsMatch(t, []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_image", "test_prompt_with_embedded_resource",
		"test_input_required_result_prompt"}, names)

	got, err := user.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: map[string]string{"arg1": "a", "arg2": "b"}})
	require.NoError(t, err)
	require.Equal(t, "Prompt with arguments: arg1='a', arg2='b'", got.Messages[0].Content.(*mcp.TextContent).Text)

	for _, tt := range []struct {
		name string
		args map[string]string
		want []string
	}{
		{"a required argument missing", map[string]string{"arg1": "a"}, []string{"argument arg2 is required"}},
		{"an argument not declared", map[string]string{"arg1": "a", "arg2": "b", "arg3": "c"}, []string{"argument arg3 is not an argument of this prompt"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := user.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_prompt_with_arguments", Arguments: tt.args})
			require.Error(t, err)
			for _, w := range tt.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}

	stranger := a.MCP(t, a.Token(t, "stranger@example.com", conformance.ScopeUse))
	list, err = stranger.ListPrompts(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, list.Prompts)
	_, err = stranger.GetPrompt(ctx, &mcp.GetPromptParams{Name: "test_simple_prompt"})
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), `unknown prompt "test_simple_prompt"`), err.Error())
}
