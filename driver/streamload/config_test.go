package streamload

import (
	"errors"
	"testing"

	"github.com/tradebench/tradebench/internal/setting"
)

// TestConfigDefaultsAndChecks: a stream given as a path is put under the target (slashes
// joined once), an absolute URL is kept; without a target a path is refused naming URL, and a
// number of subscribers out of 1..MaxSubscribers names Subscribers.
// Mutant (stream-path-not-under-target): SetDefaults leaving a path as it is.
func TestConfigDefaultsAndChecks(t *testing.T) {
	for _, c := range []struct{ target, url, want string }{
		{"http://sut:8080/", "/trade/stream/quotes", "http://sut:8080/trade/stream/quotes"},
		{"http://sut:8080", "trade/stream/quotes", "http://sut:8080/trade/stream/quotes"},
		{"http://sut:8080", "https://hub/s", "https://hub/s"},
	} {
		cfg := Config{URL: c.url, Subscribers: 1}
		cfg.SetDefaults(c.target)
		if cfg.URL != c.want || cfg.TimeField != DefaultTimeField || cfg.Validate() != nil {
			t.Errorf("%s under %s: %+v (%v), want %s", c.url, c.target, cfg, cfg.Validate(), c.want)
		}
	}
	for field, cfg := range map[string]Config{
		"URL":         {URL: "/trade/stream/quotes", Subscribers: 1},
		"Subscribers": {URL: "http://sut/s", Subscribers: MaxSubscribers + 1},
	} {
		cfg.SetDefaults("")
		var se *setting.Error
		if err := cfg.Validate(); !errors.As(err, &se) || se.Field != field {
			t.Errorf("%+v: %v, want an error naming %s", cfg, err, field)
		}
	}
}
