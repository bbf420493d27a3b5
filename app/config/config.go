// Package config loads the configuration: built-in defaults, then an
// optional cairn.yaml, then CAIRN_* environment variables. The framework's
// keys are Keys; a product adds its own (Load's extra keys) and reads them
// with Decode. An unknown key or a malformed value stops the start with a
// message naming it.
package config

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/knadh/koanf/parsers/yaml"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"
)

// Config is the framework's configuration, and the product's keys behind
// Decode.
type Config struct {
	Addr            string        `koanf:"addr"`
	PublicURL       string        `koanf:"public_url"`
	PublicAliases   string        `koanf:"public_aliases"`
	DataDir         string        `koanf:"data_dir"`
	DatabaseURL     string        `koanf:"database_url"`
	RedisURL        string        `koanf:"redis_url"`
	RedisPrefix     string        `koanf:"redis_prefix"`
	LogFormat       string        `koanf:"log_format"`
	LogLevel        string        `koanf:"log_level"`
	Dev             bool          `koanf:"dev"`
	ShutdownGrace   time.Duration `koanf:"shutdown_grace"`
	MaxBody         int64         `koanf:"max_body"`
	ConfirmTTL      time.Duration `koanf:"confirm_ttl"`
	Workers         int           `koanf:"workers"`
	JobPollInterval time.Duration `koanf:"job_poll_interval"`
	JobTimeout      time.Duration `koanf:"job_timeout"`
	JobRescueAfter  time.Duration `koanf:"job_rescue_after"`
	StreamRecheck   time.Duration `koanf:"stream_recheck"`
	AllowedOrigins  string        `koanf:"allowed_origins"`
	MetricsAddr     string        `koanf:"metrics_addr"`
	TrustedProxies  string        `koanf:"trusted_proxies"`

	k *koanf.Koanf // every key, the product's included, for Decode
}

// Key describes one configuration key, for validation and documentation.
type Key struct {
	Name    string
	Default any
	Doc     string
}

// Keys lists the framework's keys with their defaults. The table of docs/configuration.md
// is this list and the product's.
var Keys = []Key{
	{"addr", "127.0.0.1:8080", "address the server listens on"},
	{"public_url", "", "URL clients reach the server at (default: http:// + addr)"},
	{"public_aliases", "", "comma-separated other origins (scheme://host[:port]) clients may know the server by; its resource metadata and token audiences accept them as public_url"},
	{"data_dir", "./data", "folder of the embedded SQLite database"},
	{"database_url", "", "postgres://… to use PostgreSQL; empty for SQLite in data_dir"},
	{"redis_url", "", "redis://… to share rate limits and progress between replicas; empty for in-process"},
	{"redis_prefix", "cairn:", "prefix of every Redis key"},
	{"log_format", "auto", "text, json, or auto (text on a terminal, JSON otherwise)"},
	{"log_level", "info", "debug, info, warn or error"},
	{"dev", false, "development mode: the product prepares a development user and prints how to reach the server"},
	{"shutdown_grace", "15s", "how long a shutdown waits for in-flight requests"},
	{"max_body", 1 << 20, "largest request body in bytes, the same on HTTP and on /mcp (larger ones get 413)"},
	{"confirm_ttl", "5m", "how long a confirmation token stays usable"},
	{"workers", 4, "background jobs run at once by this process"},
	{"job_poll_interval", "1s", "how often the job queue looks for work it was not told about"},
	{"job_timeout", "1m", "how long a background job may run before it is cancelled and retried (a worker may set its own)"},
	{"job_rescue_after", "90s", "how long a job may stay running before another process takes it over (its own died); more than job_timeout"},
	{"stream_recheck", "5s", "how often an open event stream checks its token again, and closes once it is revoked or expired; at most the token cache's lifetime"},
	{"allowed_origins", "", "comma-separated origins (scheme://host[:port]) whose pages may call the API (CORS) and /mcp, besides the server's own; other origins get 403 on /mcp and no CORS headers"},
	{"metrics_addr", "", "address of the Prometheus listener serving /metrics, apart from the API; empty: no metrics listener"},
	{"trusted_proxies", "", "comma-separated addresses or ranges (10.0.0.0/8) of reverse proxies whose X-Forwarded-For names the caller, for per-address limits; empty: the connection's peer is the caller"},
}

// EnvName is the environment variable of a key: CAIRN_ and the upper-cased name.
func EnvName(key string) string { return "CAIRN_" + strings.ToUpper(key) }

// Load reads the configuration. file may be empty (then ./cairn.yaml is read
// when present); environ is os.Environ() in production; extra are the
// product's keys, read back with Decode.
func Load(path string, environ []string, extra ...Key) (Config, error) {
	k := koanf.New(".")
	defaults := map[string]any{}
	known := map[string]bool{}
	all := append(append([]Key(nil), Keys...), extra...)
	for _, key := range all {
		if known[key.Name] {
			return Config{}, fmt.Errorf("configuration key %q is declared twice", key.Name)
		}
		defaults[key.Name] = key.Default
		known[key.Name] = true
	}
	if err := k.Load(confmap.Provider(defaults, "."), nil); err != nil {
		return Config{}, err
	}
	explicit := path != ""
	if path == "" {
		path = "cairn.yaml"
	}
	if _, err := os.Stat(path); err == nil {
		fk := koanf.New(".")
		if err := fk.Load(file.Provider(path), yaml.Parser()); err != nil {
			return Config{}, fmt.Errorf("config file %s: %w", path, err)
		}
		for _, key := range fk.Keys() {
			if !known[key] {
				return Config{}, fmt.Errorf("config file %s: unknown key %q (known: %s)", path, key, knownList(all))
			}
		}
		if err := k.Merge(fk); err != nil {
			return Config{}, err
		}
	} else if explicit {
		return Config{}, fmt.Errorf("config file %s: %w", path, err)
	}
	env := map[string]any{}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "CAIRN_") || strings.HasPrefix(name, "CAIRN_TEST_") {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(name, "CAIRN_"))
		if !known[key] {
			return Config{}, fmt.Errorf("environment: unknown variable %s (known: %s)", name, envList(all))
		}
		env[key] = value
	}
	if err := k.Load(confmap.Provider(env, "."), nil); err != nil {
		return Config{}, err
	}
	var c Config
	if err := k.UnmarshalWithConf("", &c, koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		return Config{}, fmt.Errorf("configuration: %w", err)
	}
	c.k = k
	return c, c.validate()
}

// Decode fills v, a struct whose fields carry koanf tags naming the
// product's keys, from the loaded configuration.
func (c Config) Decode(v any) error {
	if c.k == nil {
		return errors.New("configuration: Decode on a configuration that was not loaded")
	}
	if err := c.k.UnmarshalWithConf("", v, koanf.UnmarshalConf{Tag: "koanf"}); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	return nil
}

// With returns a copy of the configuration in which key has value v, for
// tests that set a product's key; the receiver is left unchanged.
func (c Config) With(key string, v any) Config {
	k := koanf.New(".")
	if c.k != nil {
		k = c.k.Copy()
	}
	_ = k.Set(key, v) // Set fails only on a delimiter clash, which flat keys cannot have
	c.k = k
	return c
}

func (c Config) validate() error {
	var errs []error
	if c.Addr == "" {
		errs = append(errs, errors.New("addr: must not be empty"))
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || u.Scheme == "" || u.Host == "" {
			errs = append(errs, fmt.Errorf("public_url: %q is not an absolute URL", c.PublicURL))
		}
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") &&
		!strings.HasPrefix(c.DatabaseURL, "sqlite:") && !strings.HasPrefix(c.DatabaseURL, "file:") {
		errs = append(errs, errors.New("database_url: must be a postgres://, postgresql://, sqlite: or file: URL"))
	}
	if c.RedisURL != "" && !strings.HasPrefix(c.RedisURL, "redis://") && !strings.HasPrefix(c.RedisURL, "rediss://") {
		errs = append(errs, errors.New("redis_url: must start with redis:// or rediss://"))
	}
	switch c.LogFormat {
	case "auto", "text", "json":
	default:
		errs = append(errs, fmt.Errorf("log_format: %q is not one of auto, text, json", c.LogFormat))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log_level: %q is not one of debug, info, warn, error", c.LogLevel))
	}
	if c.MaxBody < 1024 {
		errs = append(errs, errors.New("max_body: must be at least 1024 bytes"))
	}
	if c.ShutdownGrace <= 0 {
		errs = append(errs, errors.New("shutdown_grace: must be a positive duration such as 15s"))
	}
	if c.Workers < 1 {
		errs = append(errs, errors.New("workers: must be at least 1"))
	}
	if c.JobPollInterval <= 0 {
		errs = append(errs, errors.New("job_poll_interval: must be a positive duration such as 1s"))
	}
	if c.ConfirmTTL <= 0 {
		errs = append(errs, errors.New("confirm_ttl: must be a positive duration such as 5m"))
	}
	if c.JobTimeout <= 0 {
		errs = append(errs, errors.New("job_timeout: must be a positive duration such as 1m"))
	}
	if c.JobRescueAfter <= c.JobTimeout {
		errs = append(errs, errors.New("job_rescue_after: must be longer than job_timeout, or a job still running would be taken over"))
	}
	if c.StreamRecheck <= 0 {
		errs = append(errs, errors.New("stream_recheck: must be a positive duration such as 5s"))
	}
	if _, err := c.Origins(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.Aliases(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.Proxies(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Proxies are the configured trusted_proxies, each address a range of one.
func (c Config) Proxies() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(c.TrustedProxies, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("trusted_proxies: %q is neither an address nor a range such as 10.0.0.0/8", f)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// Origins are the configured allowed_origins, each as a browser sends it in
// an Origin header: scheme://host[:port], lower case, without a path.
func (c Config) Origins() ([]string, error) {
	var out []string
	for _, o := range strings.Split(c.AllowedOrigins, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		norm, ok := Origin(o)
		if !ok {
			return nil, fmt.Errorf("allowed_origins: %q is not an origin such as https://app.example.com", o)
		}
		out = append(out, norm)
	}
	return out, nil
}

// Aliases are the configured public_aliases, as origins.
func (c Config) Aliases() ([]string, error) {
	var out []string
	for _, o := range strings.Split(c.PublicAliases, ",") {
		if o = strings.TrimSpace(o); o == "" {
			continue
		}
		norm, ok := Origin(o)
		if !ok {
			return nil, fmt.Errorf("public_aliases: %q is not an origin such as https://cairn.example.com", o)
		}
		out = append(out, norm)
	}
	return out, nil
}

// Origin is the origin of an absolute http(s) URL (scheme://host[:port],
// lower case), as a browser writes it; false for anything else, such as
// "null" or a URL with a path.
func Origin(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// URL is where clients reach the server.
func (c Config) URL() string {
	if c.PublicURL != "" {
		return strings.TrimSuffix(c.PublicURL, "/")
	}
	return "http://" + c.Addr
}

func knownList(keys []Key) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func envList(keys []Key) string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = EnvName(k.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
