package accounts

import "net/url"

// ResourceLocation implements registry.Located: a device registered anew
// is at the address that unregisters it.
func (d Device) ResourceLocation() string {
	return "/users/me/device-tokens/" + url.PathEscape(d.Token)
}
