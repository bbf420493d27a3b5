package tools

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestAPingCarriesNoCapabilities: a request without params (a ping of
// 2025-11-25) is read as carrying no capabilities, not dereferenced.
func TestAPingCarriesNoCapabilities(t *testing.T) {
	if caps := requestCapabilities(&mcp.ServerRequest[*mcp.PingParams]{}); caps != nil {
		t.Fatalf("a ping without params carries no capabilities, got %+v", caps)
	}
}
