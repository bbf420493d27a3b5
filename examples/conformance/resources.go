package conformance

import (
	"context"
	"encoding/json"

	"cairn.dev/cairn/registry"
)

// TemplateIDs are the ids the template resource holds data for: the one
// the suite reads. Any other id is not found, on both faces.
var TemplateIDs = []string{"123"}

// TemplateData is what the template resource holds for one id.
type TemplateData struct {
	ID           string `json:"id"`
	TemplateTest bool   `json:"templateTest"`
	Data         string `json:"data"`
}

// IDInput is the input of the template resource: its id is its URI
// variable, nothing else is sent.
type IDInput struct{}

// resourceOf declares one fixture resource: a read, every guard field
// written, its HTTP twin at path.
func resourceOf(reg *registry.Registry, id, path string, spec registry.ResourceSpec, owner registry.OwnerRule,
	read func(c *registry.Call) (Answer, error)) {
	registry.Add(reg, registry.Op[IDInput, Answer]{
		ID:       "fixtures." + id,
		Summary:  spec.Description,
		HTTP:     registry.Get("/fixtures/resources/" + path),
		Resource: spec,

		Scope:        ScopeUse,
		Owner:        owner,
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: func(_ context.Context, c *registry.Call, _ *IDInput) (Answer, error) { return read(c) },
	})
}

// declareResources declares the suite's resources: a text, a binary blob
// and a template whose id is substituted into what it answers.
func declareResources(reg *registry.Registry) {
	const textURI, binaryURI = "test://static-text", "test://static-binary"
	resourceOf(reg, "static_text", "static-text",
		registry.Resource(textURI, "static_text", "A static text.").Typed("text/plain"), registry.CallerOwned,
		func(*registry.Call) (Answer, error) {
			return Answer{Blocks: []AnswerBlock{resource(textURI, "This is the content of the static text resource.")}}, nil
		})
	resourceOf(reg, "static_binary", "static-binary",
		registry.Resource(binaryURI, "static_binary", "A static image, as bytes.").Typed("image/png"), registry.CallerOwned,
		func(*registry.Call) (Answer, error) {
			return Answer{Blocks: []AnswerBlock{{Type: registry.BlockResource, URI: binaryURI, MIMEType: "image/png", Data: png}}}, nil
		})
	resourceOf(reg, "template_data", "template/{id}/data",
		registry.Resource("test://template/{id}/data", "template_data", "The data held for one id.").Typed("application/json"),
		registry.OneOf("id", TemplateIDs...),
		func(c *registry.Call) (Answer, error) {
			id := c.Vars["id"]
			b, err := json.Marshal(TemplateData{ID: id, TemplateTest: true, Data: "Data for ID: " + id})
			if err != nil {
				return Answer{}, err
			}
			return Answer{Blocks: []AnswerBlock{{Type: registry.BlockResource, MIMEType: "application/json", Text: string(b)}}}, nil
		})
}
