package guards

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"

	"cairn.dev/cairn/registry"
)

// InputStateTTL is how long a sealed input state is taken back by default:
// long enough for a person to answer a form.
const InputStateTTL = 15 * time.Minute

// InputSeal seals the state a handler keeps while it asks its caller for
// input (registry.InputNeeded), so that the caller, who carries it from
// one round to the next, can neither read it as anything but opaque nor
// alter it: the seal is an HMAC over the caller, the operation, its
// arguments' digest, the state and its expiry. Every replica that reads
// the same key opens what another sealed; nothing is kept between rounds.
type InputSeal struct {
	Keys InputKeys
	TTL  time.Duration
	Now  func() time.Time
}

// InputKeys gives the key input states are sealed with, the same on every
// replica.
type InputKeys interface {
	Key(ctx context.Context) ([]byte, error)
}

func (s InputSeal) key(ctx context.Context) ([]byte, error) {
	if s.Keys == nil {
		return nil, errInputSeal
	}
	return s.Keys.Key(ctx)
}

var errInputSeal = errors.New("guards: no input seal: a handler asked for input")

func (s InputSeal) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func mac(key []byte, c *registry.Call, digest string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, part := range []string{"cairn input state", c.UserID(), c.Op.ID, digest} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	m.Write(body)
	return m.Sum(nil)
}

// seal is state sealed for c: expiry and state, then the HMAC.
func (s InputSeal) seal(ctx context.Context, c *registry.Call, state string) (string, error) {
	key, err := s.key(ctx)
	if err != nil {
		return "", err
	}
	if len(state) > registry.MaxInputState {
		return "", errors.New("guards: a handler's input state is over registry.MaxInputState")
	}
	digest, err := Digest(c)
	if err != nil {
		return "", err
	}
	ttl := s.TTL
	if ttl <= 0 {
		ttl = InputStateTTL
	}
	body := binary.BigEndian.AppendUint64(nil, uint64(s.now().Add(ttl).Unix()))
	body = append(body, state...)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(body) + "." + enc.EncodeToString(mac(key, c, digest, body)), nil
}

// open is the state sealed in sealed for c, or registry.ErrInputState.
func (s InputSeal) open(ctx context.Context, c *registry.Call, sealed string) (string, error) {
	if len(sealed) > 2*registry.MaxInputState {
		return "", registry.ErrInputState
	}
	key, err := s.key(ctx)
	if err != nil {
		return "", registry.Internal(err)
	}
	enc := base64.RawURLEncoding
	b64, m64, ok := strings.Cut(sealed, ".")
	body, err1 := enc.DecodeString(b64)
	sum, err2 := enc.DecodeString(m64)
	if !ok || err1 != nil || err2 != nil || len(body) < 8 {
		return "", registry.ErrInputState
	}
	digest, err := Digest(c)
	if err != nil {
		return "", registry.Internal(err)
	}
	if !hmac.Equal(sum, mac(key, c, digest, body)) || s.now().Unix() > int64(binary.BigEndian.Uint64(body)) {
		return "", registry.ErrInputState
	}
	return string(body[8:]), nil
}

// handle is the end of every chain: the module's own code, which may ask
// its caller for input (Asking).
func (ch *Chain) handle(ctx context.Context, c *registry.Call) error {
	return ch.Asking(ctx, c, func() error {
		c.Handling = true
		out, err := c.Op.Handle(ctx, c)
		if err != nil {
			return err
		}
		c.Output = out
		return nil
	})
}

// Asking runs work that may ask c's caller for input: a state sent back
// (c.SentState) is opened first into c.InputState, and refused when it is
// not one sealed for this caller, operation and arguments; an InputNeeded
// the work returns has its state sealed in the answer
// (registry.InputRequired), which, as an error, rolls back every
// transaction around it. The chain runs every handler through it; a face
// runs what asks outside an operation's chain (a prompt) through it too,
// c naming the caller, an operation id of its own and the arguments.
func (ch *Chain) Asking(ctx context.Context, c *registry.Call, work func() error) error {
	if c.SentState != "" {
		state, err := ch.seal.open(ctx, c, c.SentState)
		if err != nil {
			return err
		}
		c.InputState = state
	}
	err := work()
	if need, ok := registry.AsInputNeeded(err); ok {
		sealed, err := ch.seal.seal(ctx, c, need.State)
		if err != nil {
			return registry.Internal(err)
		}
		return registry.NewInputRequired(need, sealed)
	}
	return err
}

// WithInputSeal returns ch sealing the state of handlers that ask their
// caller for input with s. Without it, a handler that asks fails.
func (ch *Chain) WithInputSeal(s InputSeal) *Chain {
	cp := *ch
	cp.seal = s
	return &cp
}
