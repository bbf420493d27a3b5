package guards

import "cairn/registry"

// Applies reports whether the guard named name does anything for op, by its
// declaration alone. Authentication, scope and arguments apply to every
// operation; the others only where declared.
func Applies(name string, op *registry.Operation) bool {
	switch name {
	case NameAuthenticate, NameScope:
		return op.Scope != registry.Public
	case NameArguments:
		return true
	case NameRateLimit:
		return op.RateLimit.Limited()
	case NameOwner:
		return op.Owner.ByVariable()
	case NameRead:
		return op.Load != nil
	case NameMerge:
		return op.Merge != nil
	case NameValidate:
		return op.Validate.Validates()
	case NameLock:
		return op.Lock.Applies()
	case NamePrecondition:
		return op.Precondition == registry.RequireVersion
	case NameConfirm:
		return op.Confirm.Asks()
	case NameIdempotency:
		return op.Idempotency.Creation()
	}
	return false
}

// Row is one operation of the guard matrix.
type Row struct {
	ID     string          `json:"id"`
	Route  string          `json:"route"`
	Tool   string          `json:"tool"`
	Guards map[string]bool `json:"guards"`
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
		} else {
			r.Tool = "— " + op.Tool.Motive.String()
		}
		for _, g := range Order {
			r.Guards[g] = Applies(g, op)
		}
		rows = append(rows, r)
	}
	return rows
}
