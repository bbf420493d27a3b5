// Package config loads the configuration: built-in defaults, then an
// optional cairn.yaml, then CAIRN_* environment variables. An unknown key or
// a malformed value stops the start with a message naming it.
package config

import (
	"errors"
	"fmt"
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

// Config is the whole configuration.
type Config struct {
	Addr            string        `koanf:"addr"`
	PublicURL       string        `koanf:"public_url"`
	DataDir         string        `koanf:"data_dir"`
	DatabaseURL     string        `koanf:"database_url"`
	RedisURL        string        `koanf:"redis_url"`
	RedisPrefix     string        `koanf:"redis_prefix"`
	LogFormat       string        `koanf:"log_format"`
	LogLevel        string        `koanf:"log_level"`
	Dev             bool          `koanf:"dev"`
	DevEmail        string        `koanf:"dev_email"`
	ShutdownGrace   time.Duration `koanf:"shutdown_grace"`
	ConfirmTTL      time.Duration `koanf:"confirm_ttl"`
	AuthCacheTTL    time.Duration `koanf:"auth_cache_ttl"`
	Workers         int           `koanf:"workers"`
	JobPollInterval time.Duration `koanf:"job_poll_interval"`
	SourceAllowHTTP bool          `koanf:"source_allow_http"`
	SourceAllow     string        `koanf:"source_allow"`
	SourceBaseURLs  string        `koanf:"source_base_urls"`
	RouterURL       string        `koanf:"router_url"`
	NominatimURL    string        `koanf:"nominatim_url"`
	OverpassURL     string        `koanf:"overpass_url"`
}

// Key describes one configuration key, for validation and documentation.
type Key struct {
	Name    string
	Default any
	Doc     string
}

// Keys lists every key with its default. The README's table is this list.
var Keys = []Key{
	{"addr", "127.0.0.1:8080", "address the server listens on"},
	{"public_url", "", "URL clients reach the server at (default: http:// + addr)"},
	{"data_dir", "./data", "folder of the embedded SQLite database"},
	{"database_url", "", "postgres://… to use PostgreSQL; empty for SQLite in data_dir"},
	{"redis_url", "", "redis://… to share rate limits and progress between replicas; empty for in-process"},
	{"redis_prefix", "cairn:", "prefix of every Redis key"},
	{"log_format", "auto", "text, json, or auto (text on a terminal, JSON otherwise)"},
	{"log_level", "info", "debug, info, warn or error"},
	{"dev", false, "create a development user and print a fresh token at start"},
	{"dev_email", "dev@cairn.local", "email of the development user"},
	{"shutdown_grace", "15s", "how long a shutdown waits for in-flight requests"},
	{"confirm_ttl", "5m", "how long a confirmation token stays usable"},
	{"auth_cache_ttl", "5s", "how long a replica remembers a resolved token (a revocation reaches other replicas within it); 0 disables"},
	{"workers", 4, "computations run at once by this process"},
	{"job_poll_interval", "1s", "how often the job queue looks for work it was not told about"},
	{"source_allow_http", false, "let route sources use plain http (local development only)"},
	{"source_allow", "", "comma-separated address ranges route fetching may reach despite the SSRF rules (e.g. 127.0.0.1/32 for local development); empty by default"},
	{"source_base_urls", "", "comma-separated provider=URL overrides of the route sources' base URLs (komoot, strava, ridewithgps), for local servers"},
	{"router_url", "", "base URL of a self-hosted BRouter for add_waypoint; empty for the straight-line router"},
	{"nominatim_url", "", "base URL of a Nominatim for search_places; empty for the offline gazetteer"},
	{"overpass_url", "", "an Overpass API endpoint for accommodation candidates; empty for the local store (cairn pois import)"},
}

// EnvName is the environment variable of a key: CAIRN_ and the upper-cased name.
func EnvName(key string) string { return "CAIRN_" + strings.ToUpper(key) }

// Load reads the configuration. file may be empty (then ./cairn.yaml is read
// when present); environ is os.Environ() in production.
func Load(path string, environ []string) (Config, error) {
	k := koanf.New(".")
	defaults := map[string]any{}
	known := map[string]bool{}
	for _, key := range Keys {
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
				return Config{}, fmt.Errorf("config file %s: unknown key %q (known: %s)", path, key, knownList())
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
			return Config{}, fmt.Errorf("environment: unknown variable %s (known: %s)", name, envList())
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
	return c, c.validate()
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
		errs = append(errs, errors.New("database_url: must start with postgres://, postgresql://, sqlite: or file:"))
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
	if c.ShutdownGrace <= 0 {
		errs = append(errs, errors.New("shutdown_grace: must be a positive duration such as 15s"))
	}
	if c.AuthCacheTTL < 0 {
		errs = append(errs, errors.New("auth_cache_ttl: must not be negative"))
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
	return errors.Join(errs...)
}

// URL is where clients reach the server.
func (c Config) URL() string {
	if c.PublicURL != "" {
		return strings.TrimSuffix(c.PublicURL, "/")
	}
	return "http://" + c.Addr
}

func knownList() string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func envList() string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = EnvName(k.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
