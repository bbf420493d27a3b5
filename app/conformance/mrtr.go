package conformance

import (
	"reflect"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/tools"
)

// confirmByRoundTrip drives a confirmed tool's other path: a 2026-07-28
// client that declared elicitation is asked in the answer (a multi
// round-trip request) rather than handed a token, and its retry carries
// the answer and the requestState, untrusted. The kit checks that:
//   - the first call answers input_required, with the impact in words and
//     as data, and a requestState; it writes nothing;
//   - a decline, an altered state, and another call's state write nothing,
//     and a declined state is spent: accepting it after all is refused;
//   - the acceptance with the state acts once: the same state again is
//     refused.
func (s *scenario) confirmByRoundTrip() {
	if !s.op.Tool.IsTool() {
		return
	}
	caps := map[string]any{"elicitation": map[string]any{}}
	call := func(r apptest.Request, answer string, state string) map[string]any {
		params := map[string]any{"name": s.op.Tool.Name, "arguments": apptest.Arguments(r)}
		if state != "" {
			params["requestState"] = state
			params["inputResponses"] = map[string]any{tools.ConfirmInput: map[string]any{"action": answer, "content": map[string]any{}}}
		}
		return s.a.Current(s.t, r.Token, "tools/call", s.op.Tool.Name, caps, params)
	}
	ask := func(r apptest.Request) string {
		res, _ := call(r, "", "")["result"].(map[string]any)
		require.Equal(s.t, "input_required", res["resultType"], "%s: a 2026-07-28 client with elicitation is asked in the answer: %v", s.op.ID, res)
		in, _ := res["inputRequests"].(map[string]any)[tools.ConfirmInput].(map[string]any)
		require.Equal(s.t, "elicitation/create", in["method"], "%s: the confirmation is an elicitation", s.op.ID)
		p, _ := in["params"].(map[string]any)
		require.NotEmpty(s.t, p["message"], "%s: the impact in words", s.op.ID)
		meta, _ := p["_meta"].(map[string]any)
		require.NotNil(s.t, meta[tools.ImpactMeta], "%s: the impact as data", s.op.ID)
		state, _ := res["requestState"].(string)
		require.NotEmpty(s.t, state, "%s: the answer carries its requestState", s.op.ID)
		require.False(s.t, s.fix.Written(s.t, s.a, s.u, r), "%s: asking writes nothing", s.op.ID)
		return state
	}
	refused := func(what string, r apptest.Request, res map[string]any) {
		result, _ := res["result"].(map[string]any)
		require.True(s.t, res["error"] != nil || result["isError"] == true, "%s: %s is refused: %v", s.op.ID, what, res)
		require.False(s.t, s.fix.Written(s.t, s.a, s.u, r), "%s: %s writes nothing", s.op.ID, what)
	}

	r := s.valid(s.u)
	state := ask(r)
	refused("a decline", r, call(r, "decline", state))
	refused("a declined requestState accepted after all", r, call(r, "accept", state))
	refused("an altered requestState", r, call(r, "accept", state+"x"))
	if other := s.valid(s.u); !reflect.DeepEqual(apptest.Arguments(other), apptest.Arguments(r)) {
		refused("another call's requestState", other, call(other, "accept", ask(r)))
	}
	state = ask(r)
	res := call(r, "accept", state)
	result, _ := res["result"].(map[string]any)
	require.True(s.t, res["error"] == nil && result["isError"] != true, "%s: the accepted retry acts: %v", s.op.ID, res)
	require.True(s.t, s.fix.Written(s.t, s.a, s.u, r), "%s: the accepted retry wrote", s.op.ID)
	again := call(r, "accept", state)
	againResult, _ := again["result"].(map[string]any)
	require.True(s.t, again["error"] != nil || againResult["isError"] == true, "%s: a replayed requestState is refused: %v", s.op.ID, again)
}
