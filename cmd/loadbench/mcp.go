package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Revisions the generator speaks: 2025-11-25 opens with initialize (and
// the server's answer decides the version sent afterwards); 2026-07-28 has
// no initialize, and every request carries its _meta and the Mcp-Method
// and Mcp-Name headers.
const (
	legacyRevision  = "2025-11-25"
	currentRevision = "2026-07-28"
)

// mcpClient is what a connection needs to call a streamable HTTP endpoint.
type mcpClient struct {
	path     string // the endpoint's path, /mcp
	token    string // bearer token; empty for the bare server
	revision string // legacyRevision or currentRevision
}

// current reports whether the client speaks 2026-07-28.
func (m mcpClient) current() bool { return m.revision == currentRevision }

func (m mcpClient) post(c *conn, body []byte, method, name string) []byte {
	h := []string{"Authorization", bearer(m.token),
		"Content-Type", "application/json",
		"Accept", "application/json, text/event-stream",
		"Mcp-Session-Id", c.session,
		"Mcp-Protocol-Version", c.protocol}
	if m.current() {
		h = append(h, "Mcp-Method", method, "Mcp-Name", name)
	}
	return request(http.MethodPost, c.addr, m.path, body, h...)
}

// meta is the per-request _meta of 2026-07-28, as the first member of a
// params object; empty for the older revision.
func (m mcpClient) meta() string {
	if !m.current() {
		return ""
	}
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + currentRevision +
		`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"loadbench","version":"1"}},`
}

func bearer(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

// transport is what the initialize answer says of a server's transport.
type transport struct {
	Stateful bool // it gave a session id
	JSON     bool // it answers application/json rather than an event stream
}

func (t transport) String() string {
	s := "stateless"
	if t.Stateful {
		s = "stateful"
	}
	if t.JSON {
		return s + ", JSON responses"
	}
	return s + ", event-stream responses"
}

// initialize opens a conversation on c as a client would: for 2025-11-25,
// initialize then the initialized notification; for 2026-07-28,
// server/discover.
func (m mcpClient) initialize(c *conn) (transport, error) {
	c.session, c.protocol = "", ""
	if m.current() {
		c.protocol = currentRevision
		body := `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + strings.TrimSuffix(m.meta(), ",") + `}}`
		res, err := c.do(m.post(c, []byte(body), "server/discover", ""))
		if err != nil {
			return transport{}, err
		}
		if res.StatusCode != http.StatusOK || !bytes.Contains(rpcPayload(c.body.Bytes()), []byte("supportedVersions")) {
			return transport{}, fmt.Errorf("server/discover: status %d: %.200s", res.StatusCode, c.body.String())
		}
		return transport{JSON: strings.HasPrefix(res.Header.Get("Content-Type"), "application/json")}, nil
	}
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + legacyRevision +
		`","capabilities":{},"clientInfo":{"name":"loadbench","version":"1"}}}`
	res, err := c.do(m.post(c, []byte(body), "initialize", ""))
	if err != nil {
		return transport{}, err
	}
	if res.StatusCode != http.StatusOK {
		return transport{}, fmt.Errorf("initialize: status %d: %.200s", res.StatusCode, c.body.String())
	}
	var init struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rpcPayload(c.body.Bytes()), &init); err != nil || init.Result.ProtocolVersion == "" {
		return transport{}, fmt.Errorf("initialize: unreadable answer %.200q", c.body.String())
	}
	tr := transport{
		Stateful: res.Header.Get("Mcp-Session-Id") != "",
		JSON:     strings.HasPrefix(res.Header.Get("Content-Type"), "application/json"),
	}
	c.session, c.protocol = res.Header.Get("Mcp-Session-Id"), init.Result.ProtocolVersion
	res, err = c.do(m.post(c, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "notifications/initialized", ""))
	if err != nil {
		return tr, err
	}
	if res.StatusCode/100 != 2 {
		return tr, fmt.Errorf("initialized: status %d", res.StatusCode)
	}
	return tr, nil
}

// end closes c's session, as a client leaving does.
func (m mcpClient) end(c *conn) {
	if c.session == "" {
		return
	}
	_, _ = c.do(request(http.MethodDelete, c.addr, m.path, nil,
		"Authorization", bearer(m.token), "Mcp-Session-Id", c.session, "Mcp-Protocol-Version", c.protocol))
}

// call is a tools/call request for tool with raw JSON arguments.
func (m mcpClient) call(c *conn, tool, args string) []byte {
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(c.seq+1) + `,"method":"tools/call","params":{` + m.meta() + `"name":"` +
		tool + `","arguments":` + args + `}}`
	return m.post(c, []byte(body), "tools/call", tool)
}

// list is a tools/list request.
func (m mcpClient) list(c *conn) []byte {
	return m.post(c, []byte(`{"jsonrpc":"2.0","id":`+strconv.Itoa(c.seq+1)+`,"method":"tools/list","params":{`+
		strings.TrimSuffix(m.meta(), ",")+`}}`), "tools/list", "")
}

// rpcPayload is the JSON-RPC message of an answer: the body itself, or the
// data of its first event when it is an event stream.
func rpcPayload(body []byte) []byte {
	if len(body) > 0 && body[0] == '{' {
		return body
	}
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimSpace(d)
		}
	}
	return nil
}

// checkCall judges a tools/call answer. The deep check decodes it and
// requires want among the structured content's keys.
func checkCall(want string) func(*conn, *http.Response, bool) error {
	return func(c *conn, res *http.Response, deep bool) error {
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("status %d: %.200s", res.StatusCode, c.body.String())
		}
		p := rpcPayload(c.body.Bytes())
		if !deep {
			if !bytes.Contains(p, []byte(`"result"`)) || bytes.Contains(p, []byte(`"isError":true`)) {
				return fmt.Errorf("not a result: %.300s", p)
			}
			return nil
		}
		var msg struct {
			Result *struct {
				IsError           bool                       `json:"isError"`
				StructuredContent map[string]json.RawMessage `json:"structuredContent"`
				Tools             []json.RawMessage          `json:"tools"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(p, &msg); err != nil || msg.Result == nil {
			return fmt.Errorf("not a result: %.300s", p)
		}
		if msg.Result.IsError {
			return fmt.Errorf("tool error: %.300s", p)
		}
		if want == "tools" {
			if len(msg.Result.Tools) == 0 {
				return errors.New("tools/list answered no tool")
			}
			return nil
		}
		if _, ok := msg.Result.StructuredContent[want]; !ok {
			return fmt.Errorf("the structured content has no %q: %.300s", want, p)
		}
		return nil
	}
}
