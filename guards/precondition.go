package guards

import (
	"context"
	"fmt"

	"cairn.dev/cairn/registry"
)

// Precondition refuses a write whose expected version is missing (428) or
// not the stored one (412). The store's write repeats the comparison
// (WHERE version = ?), so two writers holding one version cannot both win.
type Precondition struct{}

var _ Guard = Precondition{}

// Name implements Guard.
func (Precondition) Name() string { return NamePrecondition }

// Check implements Guard.
func (Precondition) Check(ctx context.Context, c *registry.Call, next Next) error {
	if c.VersionMalformed {
		return &registry.Error{Kind: registry.KindMalformed, Code: "version_malformed",
			Detail: "the expected version must be an integer: If-Match: \"3\" on HTTP, version: 3 on MCP"}
	}
	if c.AnyVersion && c.Previous != nil {
		// "*" asks for any current version (RFC 9110 §13.1.1): the one read
		// is expected, so the store's write still refuses a concurrent one.
		v := c.Previous.RecordVersion()
		c.ExpectedVersion = &v
	}
	if c.ExpectedVersion == nil {
		return registry.Fail(registry.KindPreconditionRequired,
			"send the version you last read (If-Match on HTTP, the version argument on MCP)")
	}
	if c.WeakVersion {
		// If-Match compares strongly (RFC 9110 §13.1.1): a weak tag never matches.
		return registry.Fail(registry.KindPreconditionFailed,
			"a weak tag (W/) never matches If-Match; send the ETag as read, without W/")
	}
	if *c.ExpectedVersion != c.Previous.RecordVersion() {
		return registry.Fail(registry.KindPreconditionFailed,
			fmt.Sprintf("the record changed since version %d; read it again and retry with its current version", *c.ExpectedVersion))
	}
	return next(ctx, c)
}
