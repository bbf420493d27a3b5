package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressOf reports a call's progress as notifications/progress to the
// token its request carried, on the request's own answer stream: no
// session outlives the request, so the notification travels with it.
type progressOf struct {
	session *mcp.ServerSession
	token   any
}

func (p progressOf) Progress(ctx context.Context, done, total float64, message string) {
	// A client that went away misses its progress; the call goes on.
	_ = p.session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token, Progress: done, Total: total, Message: message})
}
