// Package guardmatrix renders the operation × guard matrix that `cairn
// guards` prints, as text, Markdown or JSON. Its golden copy lives in the
// repository, so a change in guarding shows up in review.
package guardmatrix

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"cairn.dev/cairn/guards"
	"cairn.dev/cairn/registry"
)

// Formats are the accepted --format values.
var Formats = []string{"text", "markdown", "json"}

// Write renders the matrix of reg in format.
func Write(w io.Writer, reg *registry.Registry, format string) error {
	rows := guards.Matrix(reg)
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"order": guards.Order, "operations": rows})
	case "markdown":
		fmt.Fprintf(w, "| operation | route | tool | %s | limits |\n", strings.Join(guards.Order, " | "))
		fmt.Fprintf(w, "|---|---|---|%s---|\n", strings.Repeat("---|", len(guards.Order)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s |\n", r.ID, r.Route, r.Tool, strings.Join(marks(r, "✓", " "), " | "), r.Limits)
		}
		return nil
	case "text":
		tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
		short := make([]string, len(guards.Order))
		for i := range guards.Order {
			short[i] = fmt.Sprintf("%d", i+1)
		}
		fmt.Fprintf(tw, "operation\troute\ttool\t%s\tlimits\n", strings.Join(short, "\t"))
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Route, r.Tool, strings.Join(marks(r, "x", "."), "\t"), r.Limits)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
		for i, g := range guards.Order {
			fmt.Fprintf(w, "%2d %s\n", i+1, g)
		}
		return nil
	default:
		return fmt.Errorf("unknown format %q (use %s)", format, strings.Join(Formats, ", "))
	}
}

func marks(r guards.Row, yes, no string) []string {
	out := make([]string, len(guards.Order))
	for i, g := range guards.Order {
		out[i] = no
		if r.Guards[g] {
			out[i] = yes
		}
	}
	return out
}
