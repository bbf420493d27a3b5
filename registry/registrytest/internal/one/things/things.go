// Package things is one of two test packages with the same name, each
// holding an Input: their schema names clash.
package things

// Input is an input named as the other package's.
type Input struct {
	Name string `json:"name" doc:"A name."`
}
