package guards

import "cairn.dev/cairn/registry"

// Row is one operation of the guard matrix.
type Row struct {
	ID     string          `json:"id"`
	Route  string          `json:"route"`
	Tool   string          `json:"tool"`
	Guards map[string]bool `json:"guards"`
	Limits string          `json:"limits,omitempty"` // the declared rate limits, when limited
}

// Matrix is the operation × guard table, in registry order; columns follow Order.
func Matrix(reg *registry.Registry) []Row {
	var rows []Row
	for _, op := range reg.Operations() {
		r := Row{ID: op.ID, Route: op.HTTP.Method + " " + op.HTTP.Path, Guards: map[string]bool{}}
		if op.Tool.IsTool() {
			r.Tool = op.Tool.Name
			if op.Tool.Action != "" {
				r.Tool += ":" + op.Tool.Action
			}
		} else if op.Resource.IsResource() {
			r.Tool = "resource " + op.Resource.URI
		} else {
			r.Tool = "— " + op.Tool.Motive.String()
		}
		for _, g := range Order {
			r.Guards[g] = Applies(g, op)
		}
		if Applies(NameRateLimit, op) {
			r.Limits = op.RateLimit.String()
		}
		rows = append(rows, r)
	}
	return rows
}
