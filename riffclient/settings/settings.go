// Package settings reads the settings file of a machine:
// ~/.config/riff/config.toml ($XDG_CONFIG_HOME/riff/config.toml), the
// file of the key update.auto in riff's user guide. It holds the keys
// that this build reads, with their defaults, and the checks of their
// values:
//
//	lead.wake    minutes, 1 to 1440 (15 by default): the wait from a block
//	             of a session to the second wake of its lead, and from there
//	             to the unanswered block, while a session of this machine is
//	             the lead
//	lead.notify  true or false (true by default): riff relay mcp of the lead
//	             sends a desktop notification for each unanswered block
//
// A key that this build does not read (update.auto, a key of a later
// build) is kept out of the way, not refused. A missing file is the
// defaults. A value of the wrong type or out of its bounds is an error
// that names the key and the file.
//
// It never writes the file, never reads the env by itself (the caller
// gives the function that reads it) and decides no rule of the riff.
package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/como-technologies/riff/riffcore/wire"
)

// Settings are the keys of the settings file that this build reads.
type Settings struct {
	// LeadWake is lead.wake in minutes.
	LeadWake int64
	// LeadNotify is lead.notify.
	LeadNotify bool
}

// Defaults are the settings of a machine with no file.
func Defaults() Settings { return Settings{LeadWake: wire.DefaultLeadWake, LeadNotify: true} }

// Path gives the place of the settings file: $XDG_CONFIG_HOME/riff/config.toml,
// else ~/.config/riff/config.toml. With neither XDG_CONFIG_HOME nor HOME
// it has none.
func Path(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		return filepath.Join(dir, "riff", "config.toml"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "riff", "config.toml"), nil
	}
	return "", errors.New("the settings file of riff is in $XDG_CONFIG_HOME/riff or ~/.config/riff, and neither XDG_CONFIG_HOME nor HOME is set")
}

// Load reads the settings file of the machine: the defaults when it has
// none.
func Load(getenv func(string) string) (Settings, error) {
	path, err := Path(getenv)
	if err != nil {
		return Defaults(), err
	}
	return Read(path)
}

// Read reads the settings file at path: the defaults when there is no
// file. On an error it gives the defaults too, so that a caller that
// only warns goes on with them.
func Read(path string) (Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Defaults(), nil
	}
	if err != nil {
		return Defaults(), fmt.Errorf("the settings file %s does not read: %w", path, err)
	}
	return Parse(path, data)
}

// Parse reads the text of a settings file; path names it in an error.
func Parse(path string, data []byte) (Settings, error) {
	var file struct {
		Lead struct {
			Wake   any `toml:"wake"`
			Notify any `toml:"notify"`
		} `toml:"lead"`
	}
	if _, err := toml.Decode(string(data), &file); err != nil {
		return Defaults(), fmt.Errorf("the settings file %s does not read as TOML with a table lead: %w", path, err)
	}
	s := Defaults()
	switch v := file.Lead.Wake.(type) {
	case nil:
	case int64:
		if v < 1 || v > wire.MaxLeadWake {
			return Defaults(), fmt.Errorf("lead.wake in %s is %d: it is the minutes from a block to the second wake of the lead, 1 to %d", path, v, wire.MaxLeadWake)
		}
		s.LeadWake = v
	default:
		return Defaults(), fmt.Errorf("lead.wake in %s is a whole number of minutes (15 by default), not %s", path, typeText(v))
	}
	switch v := file.Lead.Notify.(type) {
	case nil:
	case bool:
		s.LeadNotify = v
	default:
		return Defaults(), fmt.Errorf("lead.notify in %s is true or false, not %s", path, typeText(v))
	}
	return s, nil
}

// typeText names the TOML type of a value that has the wrong one.
func typeText(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "a number"
	case float64:
		return "a fraction"
	case bool:
		return "true or false"
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "a list"
	}
	return fmt.Sprintf("a %T", v)
}
