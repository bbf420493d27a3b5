package oauth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"cairn.dev/cairn/modules/route/fetch"
	"cairn.dev/cairn/outbound"
	"cairn.dev/cairn/registry"
)

// TestMetadataSaysWhatIsServed: the metadata claims Client ID Metadata
// Documents only when the server has a fetch client for them; without one
// a client must register, and being told otherwise it would only be
// refused at the consent.
func TestMetadataSaysWhatIsServed(t *testing.T) {
	tests := []struct {
		name    string
		fetcher Fetcher
		want    bool
	}{
		{"with a fetch client", fetch.New(outbound.Options{}), true},
		{"without one", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{reg: registry.New(), issuer: func() string { return "https://cairn.example" }, fetcher: tt.fetcher}
			rec := httptest.NewRecorder()
			s.metadata(rec, httptest.NewRequest(http.MethodGet, MetadataPath, nil))
			var m map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			if got := m["client_id_metadata_document_supported"]; got != tt.want {
				t.Errorf("client_id_metadata_document_supported = %v, want %v", got, tt.want)
			}
			if got := m["authorization_response_iss_parameter_supported"]; got != true {
				t.Errorf("authorization_response_iss_parameter_supported = %v, want true", got)
			}
		})
	}
}
