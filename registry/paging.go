package registry

import (
	"fmt"
	"reflect"
	"strconv"
)

// A listing pages the same way on every operation: its input embeds
// PageInput, its output embeds PageInfo, and the operation declares its
// page sizes with Paged. The arguments guard applies the defaults and
// refuses, naming the argument, a page size over the declared largest and
// a page past any offset a store can represent, before the handler runs.

// MaxOffset is the largest offset a listing serves: (page-1) ×
// itemsPerPage beyond it is refused (422, naming page) rather than sent to
// a store, where it overflows a 64-bit OFFSET or silently wraps.
const MaxOffset = 1<<31 - 1

// MaxItemsPerPage is the largest page size any listing may declare.
const MaxItemsPerPage = 1000

// PageInput is the paging of a listing's input: embed it (without a JSON
// name) in the input of every operation that lists.
type PageInput struct {
	Page         int `json:"page,omitempty" minimum:"1" maximum:"2147483648" doc:"Page number, from 1 (default 1)."`
	ItemsPerPage int `json:"itemsPerPage,omitempty" minimum:"1" maximum:"1000" doc:"Items per page, from 1."`
}

// PageRequest implements Pager.
func (p *PageInput) PageRequest() *PageInput { return p }

// Offset is how many items the page skips; valid once the arguments guard
// has applied the operation's Paging.
func (p PageInput) Offset() int { return (p.Page - 1) * p.ItemsPerPage }

// Limit is how many items the page holds at most.
func (p PageInput) Limit() int { return p.ItemsPerPage }

// Info is the PageInfo of an answer holding total items in all.
func (p PageInput) Info(total int) PageInfo {
	return PageInfo{Page: p.Page, ItemsPerPage: p.ItemsPerPage, TotalItems: total}
}

// Pager is implemented by an input embedding PageInput.
type Pager interface{ PageRequest() *PageInput }

// PageInfo is the paging of a listing's answer: embed it (without a JSON
// name) in the output beside the page's items.
type PageInfo struct {
	Page         int `json:"page" doc:"This page's number, from 1."`
	ItemsPerPage int `json:"itemsPerPage" doc:"The page size used."`
	TotalItems   int `json:"totalItems" doc:"How many items match, over all pages."`
}

// PageAnswer implements Paginated.
func (p *PageInfo) PageAnswer() *PageInfo { return p }

// Paginated is implemented by an output embedding PageInfo.
type Paginated interface{ PageAnswer() *PageInfo }

// Paging declares an operation's page sizes. The zero value declares no
// listing.
type Paging struct {
	Default int // the page size when none is asked for
	Max     int // the largest page size a caller may ask for
}

// Paged declares a listing whose pages hold def items unless the caller
// asks for up to max.
func Paged(def, max int) Paging { return Paging{Default: def, Max: max} }

// Lists reports whether the operation is declared a listing.
func (p Paging) Lists() bool { return p != (Paging{}) }

// String describes the page sizes for people ("20 items a page, at most 100").
func (p Paging) String() string {
	if !p.Lists() {
		return "none"
	}
	return fmt.Sprintf("%d items a page, at most %d", p.Default, p.Max)
}

// Apply fills in the defaults of in and judges it against p: a page size
// over p.Max, or a page whose offset is past MaxOffset, is a violation
// naming its argument.
func (p Paging) Apply(in *PageInput) []Violation {
	var vs []Violation
	if in.ItemsPerPage == 0 {
		in.ItemsPerPage = p.Default
	}
	if in.Page == 0 {
		in.Page = 1
	}
	switch {
	case in.ItemsPerPage < 1:
		vs = append(vs, Violation{Field: "itemsPerPage", Reason: "must be at least 1"})
	case in.ItemsPerPage > p.Max:
		vs = append(vs, Violation{Field: "itemsPerPage", Reason: "must be at most " + strconv.Itoa(p.Max)})
	}
	switch {
	case in.Page < 1:
		vs = append(vs, Violation{Field: "page", Reason: "must be at least 1"})
	case len(vs) == 0 && in.Page-1 > MaxOffset/in.ItemsPerPage:
		vs = append(vs, Violation{Field: "page", Reason: fmt.Sprintf("is past the last page any listing has: at most %d at %d per page", MaxOffset/in.ItemsPerPage+1, in.ItemsPerPage)})
	}
	return vs
}

// pagingProblems refuses a listing declared by halves: paging without the
// input or output that carries it, or the reverse.
func pagingProblems(o *Operation) []string {
	pager := reflect.PointerTo(o.InputType).Implements(reflect.TypeFor[Pager]())
	paged := reflect.PointerTo(o.OutputType).Implements(reflect.TypeFor[Paginated]())
	var out []string
	switch {
	case o.Paging.Lists() && (o.Paging.Default < 1 || o.Paging.Max < o.Paging.Default || o.Paging.Max > MaxItemsPerPage):
		out = append(out, fmt.Sprintf("paging %s: the default page size must be at least 1 and at most the largest, itself at most %d", o.Paging, MaxItemsPerPage))
	case o.Paging.Lists() && !pager:
		out = append(out, "it is declared Paged, but its input does not embed registry.PageInput")
	case o.Paging.Lists() && !paged:
		out = append(out, "it is declared Paged, but its output does not embed registry.PageInfo")
	case !o.Paging.Lists() && (pager || paged):
		out = append(out, "its input or output carries paging (registry.PageInput, registry.PageInfo): declare its page sizes with registry.Paged")
	}
	return out
}
