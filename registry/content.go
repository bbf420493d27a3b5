package registry

// Contents is implemented by an output that is its own content for an MCP
// client: blocks a client shows as they are (a text, an image, a sound, an
// embedded resource) rather than the face's rendering of its fields. Its
// JSON stays the HTTP body and the structured content.
type Contents interface {
	Contents() []Block
}

// Block kinds.
const (
	BlockText     = "text"
	BlockImage    = "image"
	BlockAudio    = "audio"
	BlockResource = "resource" // an embedded resource: URI, MIMEType, and Text or Data
)

// Block is one piece of content.
type Block struct {
	Kind     string
	Text     string
	Data     []byte
	MIMEType string
	URI      string
}
