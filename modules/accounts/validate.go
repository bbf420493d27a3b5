package accounts

import (
	"context"
	"strconv"
	"strings"

	"cairn.dev/cairn/registry"
)

// The inputs of this module's writes are also the records their merge step
// builds (normalised: trimmed, lower-cased), so the validate guard judges
// them before any handler runs, with every field named. A request is what
// these writes record (a link asked for, a device registered).

// RecordVersion implements registry.Record.
func (*EmailInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*TokenInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*VerifyInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*RefreshInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*PatchMeInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*PreferenceInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*DeviceInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*EmailChangeInput) RecordVersion() int64 { return 0 }

// RecordVersion implements registry.Record.
func (*AccessVerifyInput) RecordVersion() int64 { return 0 }

// normalised declares a write whose record is its input, cleaned by clean
// and judged by check.
func normalised[I any, O any, PI interface {
	*I
	registry.Record
}](o registry.Op[I, O], clean func(*I), check func(*I) []registry.Violation) registry.Op[I, O] {
	o.Merge = func(_ context.Context, _ *registry.Call, in *I) (registry.Record, error) {
		cp := *in
		clean(&cp)
		return PI(&cp), nil
	}
	o.Validate = registry.ValidateWith(func(r registry.Record) []registry.Violation { return check(any(r).(*I)) })
	o.Record = PI(nil)
	return o
}

func lower(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

func emailViolations(field, email string) []registry.Violation {
	if _, err := NormalizeEmail(field, email); err != nil {
		return err.Violations
	}
	return nil
}

func required(field, v string) []registry.Violation {
	if v == "" {
		return []registry.Violation{{Field: field, Reason: "must not be blank"}}
	}
	return nil
}

func cleanEmail(in *EmailInput)                      { in.Email = lower(in.Email) }
func checkEmail(in *EmailInput) []registry.Violation { return emailViolations("email", in.Email) }

func cleanToken(in *TokenInput)                        { in.Token = strings.TrimSpace(in.Token) }
func cleanVerify(in *VerifyInput)                      { in.Token = strings.TrimSpace(in.Token) }
func checkVerify(in *VerifyInput) []registry.Violation { return required("token", in.Token) }
func checkToken(in *TokenInput) []registry.Violation   { return required("token", in.Token) }

func cleanRefresh(in *RefreshInput) { in.RefreshToken = strings.TrimSpace(in.RefreshToken) }
func checkRefresh(in *RefreshInput) []registry.Violation {
	return required("refresh_token", in.RefreshToken)
}

func cleanPatchMe(*PatchMeInput) {}
func checkPatchMe(in *PatchMeInput) []registry.Violation {
	if in.Locale != nil && !supported(*in.Locale) {
		return []registry.Violation{{Field: "locale", Reason: "must be fr or en"}}
	}
	return nil
}

func cleanPreference(*PreferenceInput) {}
func checkPreference(in *PreferenceInput) []registry.Violation {
	if in.Enabled == nil {
		return []registry.Violation{{Field: "enabled", Reason: "is required (true or false)"}}
	}
	return nil
}

func cleanDevice(in *DeviceInput) { in.Token = strings.TrimSpace(in.Token) }
func checkDevice(in *DeviceInput) []registry.Violation {
	vs := required("token", in.Token)
	if len(in.Token) > 255 {
		vs = append(vs, registry.Violation{Field: "token", Reason: "must be at most 255 characters"})
	}
	if in.Platform != "android" && in.Platform != "ios" {
		vs = append(vs, registry.Violation{Field: "platform", Reason: "must be android or ios"})
	}
	return vs
}

func cleanEmailChange(in *EmailChangeInput) { in.NewEmail = lower(in.NewEmail) }
func checkEmailChange(in *EmailChangeInput) []registry.Violation {
	return emailViolations("newEmail", in.NewEmail)
}

func cleanAccessVerify(in *AccessVerifyInput) {
	in.Email, in.Expires, in.Signature = lower(in.Email), strings.TrimSpace(in.Expires), strings.TrimSpace(in.Signature)
}

// checkAccessVerify refuses only a request that is no link at all (a part
// missing): what any link holds, valid or not, gets the same answer.
func checkAccessVerify(in *AccessVerifyInput) []registry.Violation {
	vs := append(append(required("email", in.Email), required("expires", in.Expires)...), required("signature", in.Signature)...)
	if in.Expires != "" {
		if _, err := strconv.ParseInt(in.Expires, 10, 64); err != nil {
			vs = append(vs, registry.Violation{Field: "expires", Reason: "must be a unix time in seconds"})
		}
	}
	return vs
}
