package conformance

import (
	"context"
	"fmt"

	"cairn.dev/cairn/registry"
)

// contactSchema is json_schema_2020_12_tool's input schema, stated as the
// suite writes it (JSON Schema 2020-12: a $defs entry with an $anchor, a
// reference to it, composition and a conditional), each property
// described and each text bounded.
const contactSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {"street": {"type": "string", "maxLength": 200}, "city": {"type": "string", "maxLength": 100}}
    }
  },
  "properties": {
    "name": {"type": "string", "maxLength": 100, "description": "Who to reach."},
    "address": {"$ref": "#/$defs/address", "description": "Where they live."},
    "contactMethod": {"type": "string", "enum": ["phone", "email"], "description": "How to reach them."},
    "phone": {"type": "string", "maxLength": 40, "description": "Their phone number."},
    "email": {"type": "string", "maxLength": 254, "description": "Their email address."}
  },
  "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
  "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
  "then": {"required": ["phone"]},
  "else": {"required": ["email"]},
  "additionalProperties": false
}`

// ContactInput is the input contactSchema admits, decoded.
type ContactInput struct {
	Name          string   `json:"name,omitempty"`
	Address       *Address `json:"address,omitempty"`
	ContactMethod string   `json:"contactMethod,omitempty"`
	Phone         string   `json:"phone,omitempty"`
	Email         string   `json:"email,omitempty"`
}

// Address is a ContactInput's address.
type Address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city,omitempty"`
}

// declareSchemaTool declares json_schema_2020_12_tool: a read whose input
// schema is stated rather than generated, judged by the arguments guard
// on both faces like any other.
func declareSchemaTool(reg *registry.Registry) {
	const description = "Tool with JSON Schema 2020-12 features"
	registry.Add(reg, registry.Op[ContactInput, Answer]{
		ID:          "fixtures.json_schema_2020_12_tool",
		Summary:     description,
		HTTP:        registry.Post("/fixtures/json-schema-2020-12", 200).Reading(),
		Tool:        registry.Tool("json_schema_2020_12_tool", description),
		InputSchema: []byte(contactSchema),

		Scope:        ScopeUse,
		Owner:        registry.CallerOwned,
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: func(_ context.Context, _ *registry.Call, in *ContactInput) (Answer, error) {
			to := in.Email
			if in.ContactMethod == "phone" {
				to = in.Phone
			}
			return Answer{Blocks: []AnswerBlock{text("ok: " + in.Name + " at " + to)}}, nil
		},
	})
}

// HeadersInput is test_custom_headers's input: region and priority are
// mirrored in headers, query is not.
type HeadersInput struct {
	Region   string `json:"region" maxLength:"100" doc:"Where the query runs; mirrored in Mcp-Param-Region."`
	Priority int    `json:"priority,omitempty" minimum:"0" maximum:"10" doc:"Priority, 0 to 10; mirrored in Mcp-Param-Priority."`
	Query    string `json:"query,omitempty" maxLength:"200" doc:"The query; not mirrored."`
}

// declareHeadersTool declares test_custom_headers: a read whose region and
// priority a client mirrors in request headers, so the endpoint checks
// each header against its argument before the guards judge the call.
func declareHeadersTool(reg *registry.Registry) {
	const description = "Answers the region and priority it was called with; both are mirrored in headers."
	workingAs(reg, registry.Tool("test_custom_headers", description).Mirrored("region", "Region").Mirrored("priority", "Priority"),
		"custom-headers", func(_ context.Context, _ *registry.Call, in *HeadersInput) (Answer, error) {
			return Answer{Blocks: []AnswerBlock{text(fmt.Sprintf("region %s, priority %d", in.Region, in.Priority))}}, nil
		})
}
